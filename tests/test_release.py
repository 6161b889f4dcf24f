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
