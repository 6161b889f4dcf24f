"""Partial credit per exercise: all-or-nothing per test group (the default), or proportional to the
group's checks that passed — the same number from packlab's grader and from the notebook's test
cell, which is what nbgrader reads."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re

import pytest
from conftest import COURSE, submit, with_answer

from autograder.checks import gallery
from autograder.run.engine import grade_notebook
from packlab import manifest
from packlab.course import check
from packlab.manifest import ALL_OR_NOTHING, PROPORTIONAL

PACK = COURSE.exercise("02-greedy-pack")
BREAK = gallery.load("pack/break_at_first_miss")


def under(policy: str):
    return dataclasses.replace(PACK, partial_credit=policy)


def test_all_or_nothing_is_the_course_default():
    assert {e.partial_credit for e in COURSE.exercises} == {ALL_OR_NOTHING}


def test_points_earned_under_each_policy():
    strict, share = under(ALL_OR_NOTHING), under(PROPORTIONAL)
    assert (strict.earned("edge-cases", 12, 12), strict.earned("edge-cases", 11, 12)) == (2, 0)
    assert share.earned("edge-cases", 12, 12) == 2
    assert share.earned("edge-cases", 9, 12) == 1.5
    assert share.earned("edge-cases", 1, 3) == 0.67  # rounded as the test cell prints it
    assert share.earned("edge-cases", 0, 12) == 0
    half = share.earned("edge-cases", 6, 12)
    assert half == 1 and isinstance(half, int)


def manifest_with(tmp_path, default: str, extra: str = "") -> manifest.Course:
    text = re.sub(r"^partial_credit = .*$", f'partial_credit = "{default}"',
                  manifest.MANIFEST.read_text(encoding="utf-8"), count=1, flags=re.M)
    text = text.replace('name = "03-fix-the-break"\n', f'name = "03-fix-the-break"\n{extra}')
    path = tmp_path / f"course-{default}.toml"
    path.write_text(text, encoding="utf-8")
    return manifest.load(path)


def test_a_course_wide_default_and_an_exercise_of_its_own(tmp_path):
    course = manifest_with(tmp_path, PROPORTIONAL, 'partial_credit = "all-or-nothing"\n')
    assert course.exercise("02").partial_credit == PROPORTIONAL
    assert course.exercise("03").partial_credit == ALL_OR_NOTHING
    with pytest.raises(ValueError, match=r"03-fix-the-break has partial_credit = 'some'; it "
                                         r"must be one of 'all-or-nothing', 'proportional'"):
        manifest_with(tmp_path, ALL_OR_NOTHING, 'partial_credit = "some"\n')


def cell_points(exercise, group: str, func, monkeypatch) -> float:
    """What nbgrader gives the test cell `run_tests(...)`: no points when it writes to stderr,
    its value when it shows one, else every point (`nbgrader.utils.determine_grade`)."""
    course = dataclasses.replace(COURSE, exercises=tuple(
        exercise if e.name == exercise.name else e for e in COURSE.exercises))
    monkeypatch.setattr(check, "load_course", lambda: course)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        value = check.run_tests(exercise.name, func, group)
    if err.getvalue():
        return 0
    return exercise.points[group] if value is None else float(value)


@pytest.mark.parametrize("policy", [ALL_OR_NOTHING, PROPORTIONAL])
def test_the_grader_and_the_test_cell_give_the_same_points(tmp_path, monkeypatch, capsys,
                                                            policy):
    exercise = under(policy)
    graded = grade_notebook(submit(tmp_path, "bo", exercise, with_answer(exercise, BREAK.code)),
                            exercise, "bo")
    namespace: dict = {}
    exec(BREAK.code, namespace)  # the gallery's own code, in the test's process
    cells = {g: cell_points(exercise, g, namespace["pack"], monkeypatch) for g in PACK.points}
    assert {g.name: g.points for g in graded.groups} == cells
    assert graded.score == round(sum(cells.values()), 2)
    partial = [g for g in graded.groups if 0 < g.points < g.max_points]
    if policy == PROPORTIONAL:
        assert partial, cells  # the break bug passes some checks of a group, not all
        assert "Partial credit:" in capsys.readouterr().out
    else:
        assert not partial
