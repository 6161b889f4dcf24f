"""exercises/ is exactly what `nbgrader generate_assignment` makes from solutions/."""

from __future__ import annotations

import nbformat
import pytest
from conftest import EXERCISES

from autograder.checks import gallery

# Every assignment is released once per test session by one nbgrader process (conftest's
# released_course, shared with the parity tests), into an empty copy of the course.
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
