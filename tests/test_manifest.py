"""The manifest, the notebooks and the suites agree with each other."""

from __future__ import annotations

import re

import nbformat
import pytest
from conftest import COURSE, EXERCISES

from autograder.checks import gallery
from autograder.checks.suites import load as load_suite
from packlab.course import course_map
from packlab.manifest import ROOT


def grade_cells(path):
    notebook = nbformat.read(path, as_version=4)
    return [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id")]


def test_every_lesson_and_exercise_exists():
    for lesson in COURSE.lessons:
        assert lesson.path.is_file(), f"missing lesson notebook {lesson.path}"
    for exercise in EXERCISES:
        assert exercise.source.is_file(), f"missing solution notebook {exercise.source}"
        assert exercise.release.is_file(), f"missing release {exercise.release}: make release"
        assert exercise.lesson is None or any(
            lesson.slug == exercise.lesson for lesson in COURSE.lessons)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_points_in_notebook_match_manifest_and_suite(exercise):
    suite = load_suite(exercise.suite)
    assert [g.name for g in suite.groups] == list(exercise.points)
    points = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader.get("points")
              for c in grade_cells(exercise.source) if c.metadata.nbgrader.get("grade")}
    assert points == {exercise.grade_id(g): p for g, p in exercise.points.items()}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_one_answer_cell_defines_the_function(exercise):
    cells = grade_cells(exercise.source)
    ids = [c.metadata.nbgrader["grade_id"] for c in cells]
    assert len(ids) == len(set(ids)), "duplicate grade_ids break nbgrader (#1083)"
    answers = [c for c in cells if c.metadata.nbgrader.get("solution")]
    assert len(answers) == 1
    assert answers[0].source.startswith(f"def {exercise.function}(")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_intro_states_what_the_manifest_says(exercise):
    intro = nbformat.read(exercise.source, as_version=4).cells[0].source
    assert exercise.teaches in intro and exercise.leaves_out in intro


def test_starters_come_from_the_mutant_gallery():
    for exercise in EXERCISES:
        if exercise.starter:
            mutant = gallery.load(exercise.starter)
            assert mutant.suite == exercise.suite
            assert f"def {exercise.function}(" in mutant.code


def test_every_exercise_has_hints_that_start_with_a_question():
    for exercise in EXERCISES:
        assert len(exercise.hints) >= 3
        assert "?" in exercise.hints[0], f"{exercise.name}: the first hint should ask a question"


def test_every_hint_command_in_the_notebooks_finds_its_exercise():
    """A hint pointer that names a function shared by two exercises would only print an error."""
    pattern = re.compile(r'packlab hint ([\w-]+)|hint\("([\w-]+)"\)')
    for path in sorted((ROOT / "lessons").glob("*.ipynb")) + [e.release for e in EXERCISES]:
        for cell in nbformat.read(path, as_version=4).cells:
            for match in pattern.finditer(cell.source):
                COURSE.exercise(match.group(1) or match.group(2))  # raises when not exactly one


def test_lessons_and_exercises_are_listed_in_course_order():
    slugs = [lesson.slug for lesson in COURSE.lessons]
    assert slugs == sorted(slugs)
    assert [e.name for e in EXERCISES] == sorted(e.name for e in EXERCISES)


def test_the_readme_course_map_is_the_generated_one():
    """The README's block between the course-map markers is what course.toml gives
    (`packlab course-map` writes it again)."""
    assert course_map.current(COURSE), "the README's course map is stale: run packlab course-map"
    readme = (ROOT / "README.md").read_text()
    for lesson in COURSE.lessons:
        assert f"lessons/{lesson.slug}.ipynb" in readme, lesson.slug
    for exercise in EXERCISES:
        assert f"exercises/{exercise.name}/{exercise.name}.ipynb" in readme, exercise.name
