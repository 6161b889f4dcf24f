"""Checking an answer from inside its notebook: the test cells call `run_tests`.

nbgrader's test cells and the learner's own runs both come here, so they show the same plain
messages (in a notebook as HTML, their `code` spans set as code). A group that earns nothing
does not raise: its message is shown, then one line on stderr says the cell earns no points.
*Run All* goes on to the cells below (the slider that shows the learner's own answer), and
nbgrader still gives the cell no points, because it scores a test cell with any stderr output 0
(`nbgrader.utils.determine_grade`). `packlab check` and `packlab progress` use the same words,
and find which exercise a notebook is from here.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from autograder.checks import example_cache, unwritten
from autograder.checks.ideas import start_here
from autograder.checks.suite import (
    Failure,
    Group,
    GroupResult,
    Suite,
    in_process_caller,
    passed_shown,
    run_group,
    seed_key,
)
from autograder.checks.suites import load
from autograder.escape import message_html
from packlab.course.hints import hint_call, hint_command
from packlab.manifest import Exercise, Step
from packlab.manifest import load as load_course


class TestsFailed(AssertionError):
    """A test cell cannot run at all here; the message says why."""


class HiddenTestsNotInstalled(TestsFailed):
    """A hidden test group was asked for in the student install, which leaves them out."""


def hidden_not_installed(groups: Iterable[str]) -> str:
    """What a learner reads when hidden test groups are not part of this install."""
    return (f"The hidden tests ({', '.join(groups)}) are not part of this install: they run "
            "when your notebook is graded.")


def _short_display(shell, etype, value, tb, tb_offset=None):
    """Show a failed test cell as its message, not a traceback (still an error for nbgrader)."""
    short = [f"{etype.__name__}: {value}"]
    shell._showtraceback(etype, value, short)  # IPython does not show what this returns
    return short


def _install_display() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((TestsFailed,), _short_display)


def failure_lines(failures: Iterable[Failure]) -> list[str]:
    """The failures grouped by the mistake they point to: its paragraph once, then each check
    with the call, what came back and what was expected."""
    by_mistake: dict[tuple[str, str, str], list[Failure]] = {}
    for failure in failures:
        wrong = failure.misconception
        by_mistake.setdefault((wrong.key, wrong.text, wrong.lesson), []).append(failure)
    lines = []
    for (key, text, lesson), group in by_mistake.items():
        lines += ["", text, *([f"  revisit:   lessons/{lesson}.ipynb"] if lesson else [])]
        if key == unwritten.KEY:  # every call raised the same: the checks waiting are enough
            lines += [f"  ✗ {failure.check}" for failure in group]
            continue
        for failure in group:
            lines += [f"  ✗ {failure.check}",
                      f"      the call:  {failure.call}",
                      f"      came back: {failure.got}",
                      f"      expected:  {failure.expected}"]
    return lines


def summary(exercise: str, result: GroupResult, hidden: bool) -> str:
    """What passed and what failed, in words."""
    lines = [f"✓ {name}" for name in result.passed] if not hidden else []
    lines += failure_lines(result.failures)
    total = len(result.passed) + len(result.failures)
    if result.ok:
        lines.append("The check passed." if total == 1 else f"All {total} checks passed.")
    else:
        found = load_course().exercise(exercise)
        lines += ["", f"{len(result.failures)} of {total} checks failed."]
        if all(map(unwritten.is_unwritten, result.failures)):
            lines[-1] += (f" Write `{found.function}` in the answer cell above and run it, then "
                          "run this cell again.")
        lines[-1] += (f" Stuck? Run `{hint_command(found)}` in a terminal, or "
                      f"`{hint_call(found)}` in a cell.")
    return "\n".join(lines).lstrip("\n")


GROUP_TITLES = {"visible": "Visible tests", "edge-cases": "Hidden edge cases",
                "properties": "Hidden properties"}


def points_text(points: float) -> str:
    """``1 point``, ``2 points``, ``2.5 points``."""
    return f"{points:g} point" if points == 1 else f"{points:g} points"


def nbgrader_runs() -> bool:
    """Is nbgrader running this notebook (autograde, or its Validate button)?"""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def grading_seed(exercise: Exercise) -> str:
    """What the hidden edge cases of this kernel's notebook are varied by (see
    `autograder.checks.suite.seeded`): under nbgrader's autograde, the student and the assignment,
    as `packlab grade` varies them. nbgrader runs the notebook in its folder
    ``autograded/<student>/<assignment>/`` (its default directory_structure), so the student
    is that folder's parent's name. Anywhere else: none, the cases as written."""
    if os.environ.get("NBGRADER_EXECUTION") != "autograde":
        return ""
    return seed_key(Path.cwd().parent.name, exercise.name)


def _run(group: Group, func: Callable, seed: str) -> GroupResult:
    """Run one group in this kernel. What the learner's code writes to stderr (warnings
    included) would make nbgrader fail the cell whatever the checks say, and the sandboxed
    grader ignores it too, so both agree; what it prints during a hidden group stays out of the
    notebook, as it stays out of the grader's feedback (it would show the hidden inputs)."""
    quiet = contextlib.redirect_stdout(io.StringIO()) if not group.visible \
        else contextlib.nullcontext()
    with contextlib.redirect_stderr(io.StringIO()), quiet, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_group(group, in_process_caller(func), seed)


def notebook_groups(suite: Suite, found: Exercise | None = None,
                    group: str | None = None) -> list[str]:
    """The test groups a released notebook reports when a learner runs it outside nbgrader:
    every group this install has (all of them in the course's own install, the visible ones in
    a student install); of an exercise in steps, those of ``group``'s step."""
    step = None if found is None or group is None else found.step_of(group)
    return [g.name for g in suite.groups if step is None or found.step_of(g.name) == step]


def every_group(found: Exercise, suite: Suite, func: Callable,
                group: str | None = None) -> tuple[str, dict[str, float]]:
    """Every group of this install run on ``func`` (of an exercise in steps and a ``group``:
    every group of its step), told as `packlab check --all` tells it, the last line the score
    the grader would give (in a student install: the points the hidden tests decide at
    grading); and the points each group earned. On a hub that runs the room, the room's chart
    is told what passed (`tell_room`)."""
    lines, earned, results = [], dict.fromkeys(notebook_groups(suite, found, group), 0), []
    for name in earned:
        result = _run(suite.group(name), func, "")
        results.append(result)
        checks = len(result.passed) + len(result.failures)
        earned[name] = found.earned(name, len(result.passed), checks)
        lines += ["", f"{found.group_title(name, GROUP_TITLES)} "
                      f"({points_text(found.points[name])}):"]
        lines += [f"✓ {check}" for check in passed_shown(suite.group(name), result.passed)]
        lines += failure_lines(result.failures)
        failed = len(result.failures)
        lines.append(f"{failed} of {checks} checks failed." if failed else
                     ("The check passed." if checks == 1 else f"All {checks} checks passed."))
        if failed and all(map(unwritten.is_unwritten, result.failures)):
            lines[-1] += (f" Write `{found.function}` in the answer cell above and run it, "
                          "then run this cell again.")
            break  # an answer not written yet fails every group alike
    first = start_here([f for result in results for f in result.failures])
    if first:
        lines += ["", first]
    if any(earned[name] != found.points[name] for name in earned):
        lines.append(f"Stuck? Run `{hint_command(found)}` in a terminal, or "
                     f"`{hint_call(found)}` in a cell.")
    lines.append(score_line(found, earned, suite.missing))
    room_line = tell_room(found, results)
    return "\n".join(lines + ([room_line] if room_line else [])).lstrip("\n"), earned


def tell_room(found: Exercise, results: Iterable) -> str | None:
    """Send the room's chart what passed and which misconceptions failed checks named (each
    result has ``passed`` and ``failures``: a group's, run here or by the grader); the line
    saying so (None off the hub, or when the learner opted out: nothing was sent)."""
    from packlab.course.room import report

    results = list(results)
    return report.send(report.payload(
        load_course().title, found.name, [name for r in results for name in r.passed],
        [(f.check, f.misconception.key) for r in results for f in r.failures]))


def score_line(found: Exercise, earned: dict[str, float], missing: Iterable[str]) -> str:
    """``Score: 3 / 5 points (...)`` when every group ran; else the points earned so far and
    those the hidden tests decide (at grading, when they are ``missing`` from this install).
    Of one step of an exercise in steps (every group ``earned`` is that step's): the step's
    score, and the points the other steps hold."""
    steps = [found.step_of(name) for name in earned]
    if len(found.steps) > 1 and steps and None not in steps and \
            len({step.name for step in steps}) == 1:
        return _step_line(found, steps[0], earned, missing)
    got = round(sum(earned.values()), 2)
    parts = ", ".join(f"{found.group_title(name, GROUP_TITLES).lower()} {earned[name]:g}/"
                      f"{found.points[name]:g}" for name in earned)
    later = [name for name in found.points if name not in earned]
    if not later:
        return f"Score: {got:g} / {points_text(found.max_score)} ({parts}), as the grader gives it."
    here = sum(found.points[name] for name in earned)
    left = sum(found.points[name] for name in later)
    when = (" when your notebook is graded" if set(later) & set(missing)
            else ": `packlab check --all` runs them now")
    return (f"Here: {got:g} / {points_text(here)}. The hidden tests decide the other "
            f"{points_text(left)} of {found.max_score:g}{when}.")


def _step_line(found: Exercise, step: Step, earned: dict[str, float],
               missing: Iterable[str]) -> str:
    """The score line of one step: its points earned here, those its hidden tests decide at
    grading (when ``missing`` here), and those the other steps hold."""
    got = round(sum(earned.values()), 2)
    mine = sum(step.points.values())
    here = sum(found.points[name] for name in earned)
    others = found.max_score - mine
    said = (f"Step {step.number} of {len(found.steps)} ({step.title}): {got:g} / "
            f"{points_text(mine)}")
    if here < mine:
        left = set(step.group(kind) for kind in step.points) - set(earned)
        when = (" when your notebook is graded" if left & set(missing)
                else ": `packlab check --all` runs them now")
        said = (f"Step {step.number} of {len(found.steps)} ({step.title}): {got:g} / "
                f"{points_text(here)} here; its hidden tests decide the other "
                f"{points_text(mine - here)}{when}")
    return f"{said}. The other steps hold {points_text(others)} of {found.max_score:g}."


@dataclass(frozen=True)
class Report:
    """What a test cell shows: the text, and in a notebook the same as HTML, its `code` spans
    set as code (no raw backticks)."""

    text: str

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return ('<div class="packlab-report" style="white-space: pre-wrap; line-height: 1.4">'
                f"{message_html(self.text)}</div>")


def show(text: str) -> None:
    """Show a test cell's report (printed as text outside a notebook)."""
    from IPython.display import display

    display(Report(text))


FAILED_NOTE = ("This cell earns no points until every check above passes. The cells below still "
               "run, with your answer as it is now.")


def failed(text: str) -> None:
    """A group that earns no points: its message on stderr, which nbgrader scores 0 (a raise
    would stop *Run All* here, before the learner sees their answer on the slider)."""
    show(text)
    sys.stdout.flush()  # what was shown before comes first
    print(FAILED_NOTE, file=sys.stderr, flush=True)


def run_tests(exercise: str, func: Callable, group: str = "visible") -> float | None:
    """Run one test group of an exercise's suite against ``func`` and print the result.

    Outside nbgrader the visible group's cell reports every group this install has (see
    `every_group`): a learner who runs the notebook top to bottom reads every check that
    decides the grade, and the score, not "passed" while points remain.

    A group that earns nothing says so on stderr (see `failed`: no points, and *Run All*
    goes on). Under the exercise's proportional partial credit, when some checks passed, the
    points earned are returned instead, and a test cell ending in this call shows them as its
    value, which nbgrader reads as the cell's partial credit (`nbgrader.utils.determine_grade`).
    """
    _install_display()
    found = load_course().exercise(exercise)
    suite = load(found.suite)
    if group in suite.missing:
        raise HiddenTestsNotInstalled(hidden_not_installed([group]))
    suite_group = suite.group(group)
    example_cache.prepare([found.suite])  # the stored examples: no seconds spent drawing them
    if suite_group.visible and not nbgrader_runs():
        text, earned = every_group(found, suite, func, group)
        if earned[group] == found.points[group]:
            show(text)
            return None
        if not earned[group]:
            return failed(text)
        show(text)
        return float(earned[group])
    result = _run(suite_group, func, grading_seed(found))
    text = summary(exercise, result, hidden=not suite_group.visible)
    if result.ok:
        show(text)
        return None
    checks = len(result.passed) + len(result.failures)
    earned = found.earned(group, len(result.passed), checks)
    if not earned:
        return failed(text)
    show(f"{text}\nPartial credit: {len(result.passed)} of {checks} checks passed, so this "
          f"cell earns {earned} of {found.points[group]} points (the number below).")
    return float(earned)


# --- which exercise a notebook is, and whether it was touched -----------------------------------

def _nbgrader_cells(path: Path) -> dict[str, dict]:
    """Each nbgrader cell of a notebook by its grade_id: its metadata and source (none when the
    file is not a notebook, or is larger than the grader reads: its size is checked first)."""
    import nbformat

    from autograder.run.handed_in import NOTEBOOK_BYTES

    try:
        if path.stat().st_size > NOTEBOOK_BYTES:
            return {}  # the grader says it is too large, having read none of it
        notebook = nbformat.read(path, as_version=4)
        return {cell.metadata["nbgrader"]["grade_id"]: {**cell.metadata["nbgrader"],
                                                       "source": cell.source}
                for cell in notebook.cells if "grade_id" in cell.metadata.get("nbgrader", {})}
    except Exception:  # noqa: BLE001 - any file may be given; the grader says why it is unreadable
        return {}


def _same_locked_cells(cells: dict[str, dict], exercise: Exercise) -> int:
    """How many of the notebook's cells that are not answers read as the release's of that id."""
    release = _nbgrader_cells(exercise.release)
    return sum(1 for grade_id, meta in cells.items() if not meta.get("solution")
               and release.get(grade_id, {}).get("source") == meta["source"])


def exercise_of(path: Path) -> Exercise | None:
    """The exercise a notebook is a copy of: by its nbgrader cells (the test cells' grade_id,
    then which exercise's cells it shares), else by its file or folder name (None if none)."""
    exercises = load_course().exercises
    cells = _nbgrader_cells(path)
    found = [e for e in exercises if all(e.grade_id(group) in cells for group in e.points)]
    if len(found) > 1:
        shared = {e.name: _same_locked_cells(cells, e) for e in found}
        found = [e for e in found if shared[e.name] == max(shared.values())]
    if len(found) == 1:
        return found[0]
    return next((e for e in exercises if e.name in (path.stem, path.parent.name)), None)


def untouched(path: Path, exercise: Exercise) -> bool:
    """Whether every answer cell of the notebook is still as the exercise was released."""
    released = {k: v for k, v in _nbgrader_cells(exercise.release).items() if v.get("solution")}
    mine = _nbgrader_cells(path)
    return bool(released) and all(
        mine.get(grade_id, {}).get("source", "").strip() == cell["source"].strip()
        for grade_id, cell in released.items())
