"""exercises/ is exactly what `nbgrader generate_assignment` makes from solutions/."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from conftest import EXERCISES

from autograder.checks import gallery
from packlab.course.release import release
from packlab.manifest import ROOT

# Every exercise is released once per test session by one nbgrader process, one after the other
# as `packlab release` releases them (conftest's released_course, shared with the parity tests),
# into an empty copy of the course.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]


@pytest.fixture(scope="module")
def fresh_release(released_course):
    return released_course


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_committed_release_matches_nbgrader(fresh_release, exercise):
    made = fresh_release / "exercises" / exercise.name / f"{exercise.name}.ipynb"
    assert made.read_bytes() == exercise.release.read_bytes(), (
        f"exercises/{exercise.name} differs from nbgrader's release: run `make release`")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_release_hides_solution_and_hidden_tests(exercise):
    text = exercise.release.read_text()
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert '"edge-cases")' not in text and '"properties")' not in text


def test_bug_fix_exercise_starts_from_its_buggy_starter():
    for exercise in EXERCISES:
        if exercise.starter:
            notebook = nbformat.read(exercise.release, as_version=4)
            answer = [c for c in notebook.cells
                      if c.metadata.get("nbgrader", {}).get("solution")][0]
            assert answer.source == gallery.load(exercise.starter).code.rstrip("\n")
            assert "NotImplementedError" not in answer.source


def test_a_release_that_fails_names_its_assignment_and_keeps_those_before(tmp_path):
    """Several assignments in one nbgrader process: the first that nbgrader cannot release is
    named with nbgrader's own words, and those released before it are as nbgrader makes them."""
    first = EXERCISES[0]
    shutil.copytree(first.source.parent, tmp_path / "solutions" / first.name)
    (tmp_path / "solutions" / "99-broken").mkdir()
    (tmp_path / "solutions" / "99-broken" / "99-broken.ipynb").write_text("{not a notebook")
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    with pytest.raises(RuntimeError) as raised:
        release([first.name, "99-broken", EXERCISES[1].name], tmp_path)
    said = str(raised.value)
    assert said.startswith("nbgrader could not release 99-broken:"), said
    assert "Notebook does not appear to be JSON" in said, said
    made = tmp_path / "exercises" / first.name / f"{first.name}.ipynb"
    assert made.read_bytes() == first.release.read_bytes()
    assert not (tmp_path / "exercises" / EXERCISES[1].name).exists()


def test_the_gradebook_a_release_makes_is_stamped_as_nbgrader_stamps_it(released_course):
    """`packlab release` reads the revision nbgrader stamps a new gradebook with in its own
    process (alembic's API) instead of running `alembic heads`, as nbgrader does: the revision
    is the one nbgrader's own way gives, and the released course's gradebook holds it."""
    import sqlite3

    from nbgrader.api import get_alembic_version

    from packlab.course.release import alembic_head, nbgrader_env

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", nbgrader_env()["PATH"])  # nbgrader runs `alembic` by name
        assert alembic_head() == get_alembic_version()
    with sqlite3.connect(released_course / "gradebook.db") as db:
        stamped = db.execute("SELECT version_num FROM alembic_version").fetchall()
    assert stamped == [(alembic_head(),)]


# --- what a release is made from (`packlab author check` believes a recorded one current) -----

def test_the_release_code_is_every_module_of_the_course_that_its_step_loads():
    """RELEASE_CODE lists the modules of packlab's own release step in nbgrader_config.py and
    all that importing it loads from the course's packages: a module left out could change a
    release while `packlab author check` still believed the recorded one current."""
    import json
    import subprocess
    import sys

    from traitlets.config.loader import PyFileConfigLoader

    from packlab.course.release import RELEASE_CODE

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    ours = [step.rpartition(".")[0] for step in config.GenerateAssignment.preprocessors
            if not step.startswith(("nbgrader.", "nbconvert."))]
    assert ours == ["autograder.glue.release"]
    probe = ("import json, sys\nbefore = set(sys.modules)\n"
             f"import {', '.join(ours)}\n"
             "print(json.dumps(sorted(m for m in set(sys.modules) - before\n"
             "                        if m.split('.')[0] in ('autograder', 'packlab'))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout) == sorted(RELEASE_CODE)


def test_a_release_is_made_from_its_solution_the_courses_files_and_its_starter(tmp_path):
    """The record's digest changes with the solution, nbgrader_config.py or course.toml; a
    bug-fix exercise's also holds its starter, and no exercise's holds the grader's suites or
    other mutants (editing a suite does not make every release look stale)."""
    from packlab.course.release import made_from, release_code

    fix = next(e for e in EXERCISES if e.starter is not None)
    plain = next(e for e in EXERCISES if e.starter is None)
    course = tmp_path / "course"
    for exercise in (fix, plain):
        shutil.copytree(exercise.source.parent, course / "solutions" / exercise.name)
    for name in ("nbgrader_config.py", "course.toml"):
        shutil.copy(ROOT / name, course)
    code = {exercise.name: [path for _, path in release_code(exercise.name, course)]
            for exercise in (fix, plain)}
    assert gallery.GALLERY / f"{fix.starter}.py" in code[fix.name]
    assert code[plain.name] == code[fix.name][:-1]
    assert not [path for path in code[fix.name] if "suites" in path.parts]

    first = made_from(fix.name, course)
    assert made_from(fix.name, course) == first
    for path in (fix.source.relative_to(fix.source.parent.parent.parent), "nbgrader_config.py",
                 "course.toml"):
        changed = course / path
        kept = changed.read_bytes()
        changed.write_bytes(kept + b"\n")
        assert made_from(fix.name, course) != first, path
        changed.write_bytes(kept)
    assert made_from(fix.name, course) == first
