"""exercises/ is exactly what `nbgrader generate_assignment` makes from solutions/."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from conftest import EXERCISES

from autograder import gallery
from packlab.course.manifest import ROOT
from packlab.course.release import release

# One worker releases every assignment once (nbgrader: about 80 s), not one per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory):
    """Release every assignment with nbgrader into an empty copy of the course."""
    course_dir = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "solutions", course_dir / "solutions")
    shutil.copy(ROOT / "nbgrader_config.py", course_dir)
    for exercise in EXERCISES:
        release(exercise.name, course_dir)
    return course_dir


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
