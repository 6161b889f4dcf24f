"""The big exercises come in graded steps (course.toml's [[exercises.steps]]): each step has its
own visible and hidden test groups, cells and points; the reference passes every step; each
step's typical mistake (a gallery mutant marked ``# step: <name>``) fails that step and no other;
and the learner reads which step a check belongs to."""

from __future__ import annotations

import nbformat
import pytest
from conftest import EXERCISES

from autograder.checks import gallery
from autograder.checks.suite import in_process_caller, run_group
from autograder.checks.suites import load
from autograder.cohort.report import group_title
from packlab.course.check import every_group, score_line

STEPPED = [exercise for exercise in EXERCISES if exercise.steps]
MARKED = [(exercise, mutant) for exercise in STEPPED for mutant in gallery.every()
          if mutant.suite == exercise.suite and mutant.step]


def failing_groups(exercise, func) -> list[str]:
    suite = load(exercise.suite)
    call = in_process_caller(func)
    return [group.name for group in suite.groups if not run_group(group, call).ok]


def mutant_function(exercise, mutant):
    scope: dict = {}
    exec(compile(mutant.code, mutant.key, "exec"), scope)  # noqa: S102 - the course's own gallery
    return scope[exercise.function]


def test_the_big_exercises_come_in_steps():
    assert {e.name for e in STEPPED} == {"06-fit", "09-score-and-pack", "10-assemble-turn"}


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.name)
def test_each_step_has_a_visible_and_a_hidden_group_cell_and_points(exercise):
    suite = load(exercise.suite)
    wanted = [step.group(kind) for step in exercise.steps for kind in ("visible", "hidden")]
    assert [group.name for group in suite.groups] == wanted == list(exercise.points)
    assert [suite.group(name).visible for name in wanted] == [True, False] * len(exercise.steps)
    cells = {c.metadata["nbgrader"]["grade_id"]: c
             for c in nbformat.read(exercise.source, as_version=4).cells}
    graded = [gid for gid, c in cells.items() if c.metadata["nbgrader"].get("grade")]
    assert graded == [exercise.grade_id(name) for name in wanted]
    for step in exercise.steps:
        assert all(cells[exercise.grade_id(step.group(k))].metadata["nbgrader"]["points"] == p
                   for k, p in step.points.items())
        assert f"Step {step.number} of {len(exercise.steps)}: {step.title}" in \
            cells[f"{step.name}-intro"].source
        assert step.hints, f"{exercise.name} step {step.name} has no hints"
    assert all(h.startswith("Step ") for h in exercise.hints)


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.name)
def test_the_reference_passes_every_step(exercise):
    assert failing_groups(exercise, load(exercise.suite).reference) == []


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.name)
def test_every_step_has_a_typical_mistake_in_the_gallery(exercise):
    marked = {mutant.step for e, mutant in MARKED if e is exercise}
    assert marked == {step.name for step in exercise.steps}


@pytest.mark.parametrize("exercise,mutant", MARKED, ids=lambda x: getattr(x, "key", ""))
def test_a_step_s_typical_mistake_fails_that_step_only(exercise, mutant):
    failed = failing_groups(exercise, mutant_function(exercise, mutant))
    steps = {exercise.step_of(name).name for name in failed}
    assert steps == {mutant.step}, f"{mutant.key} fails {failed}"
    assert mutant.step + "-visible" in failed, f"{mutant.key}: its step's visible checks pass"


def test_the_feedback_and_the_notebook_name_the_step():
    exercise = STEPPED[0]
    step = exercise.steps[1]
    assert group_title(exercise.name, step.group("hidden")) == \
        f"Step 2 of {len(exercise.steps)}, {step.title}: hidden tests"
    assert group_title("01-total-tokens", "edge-cases") == "Hidden tests: edge cases"
    suite = load(exercise.suite)
    mistake = next(m for e, m in MARKED if e is exercise and m.step == step.name)
    text, earned = every_group(exercise, suite, mutant_function(exercise, mistake),
                               step.group("visible"))
    assert list(earned) == [step.group("visible"), step.group("hidden")]
    assert earned == dict.fromkeys(earned, 0)
    assert f"Step 2 of {len(exercise.steps)}, {step.title}: visible tests" in text
    others = exercise.max_score - sum(step.points.values())
    assert text.endswith(f"Step 2 of {len(exercise.steps)} ({step.title}): 0 / 2 points. "
                         f"The other steps hold {others} points of {exercise.max_score}.")
    whole = score_line(exercise, dict.fromkeys(exercise.points, 1), ())
    assert whole.startswith(f"Score: {exercise.max_score} / {exercise.max_score} points")


def test_progress_says_how_many_steps_pass_and_which_is_next():
    from types import SimpleNamespace

    from packlab.course.progress import status

    exercise = STEPPED[0]
    failing = {exercise.steps[1].group("hidden"), exercise.steps[3].group("visible")}
    wrong = SimpleNamespace(misconception=SimpleNamespace(key="required-dropped"))
    groups = [SimpleNamespace(name=name, passed=["a check"],
                              failures=[wrong] if name in failing else [])
              for name in exercise.points]
    result = SimpleNamespace(error=None, groups=groups, score=5, max_score=exercise.max_score)
    said = status(result, exercise=exercise)
    assert said == (f"5 of {exercise.max_score} points (2 of 4 steps pass; next: step 2, "
                    f"{exercise.steps[1].title})")

