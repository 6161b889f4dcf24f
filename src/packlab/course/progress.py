"""Where a learner stands: each exercise of their workspace checked as it is saved.

`packlab progress` prints the table in a terminal; `progress()` shows the same table in a
notebook cell (the start page has one).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from autograder.escape import for_terminal as shown
from packlab.course import workspace
from packlab.manifest import Exercise, load


def learner_sandbox(console: Console) -> bool:
    """A learner's own check may go without a sandbox (it is their own code); say so once."""
    from autograder.run import isolation

    if isolation.sandbox_works():
        return True
    console.print("Note: checking without a sandbox (bubblewrap is not available here), so "
                  "your code runs as you. That is fine for your own work; graders never do this.")
    return False


def steps_done(exercise: Exercise, result) -> str:
    """Of an exercise in steps: which steps pass every check run, and the next one to do."""
    failing = {exercise.step_of(g.name).name for g in result.groups if g.failures}
    done = [step for step in exercise.steps if step.name not in failing]
    later = [step for step in exercise.steps if step.name in failing]
    said = f"{len(done)} of {len(exercise.steps)} steps pass"
    return f"{said}; next: step {later[0].number}, {later[0].title}" if later else said


def status(result, visible_only: bool = False, exercise: Exercise | None = None) -> str:
    """One exercise's state in words (rich markup), from its grading result; of an exercise in
    steps, which steps pass."""
    from autograder.checks.unwritten import is_unwritten

    if result.error:
        return f"cannot be checked: {shown(result.error)}"
    failures = [f for g in result.groups for f in g.failures]
    if failures and all(is_unwritten(f) for f in failures):
        return "not started"
    if not failures:
        return f"[green]passes {'the visible tests' if visible_only else 'every test'}[/]"
    steps = f" ({steps_done(exercise, result)})" if exercise and exercise.steps else ""
    if visible_only:
        checks = len(failures) + sum(len(g.passed) for g in result.groups)
        return f"{checks - len(failures)} of {checks} visible checks pass{steps}"
    return f"{result.score} of {result.max_score} points{steps}"


def handed_out_status(said: str) -> str:
    """The status of an exercise handed out with code to fix (03's buggy packer) that the
    learner has not changed: checked like any other, and said to be the handed-out code."""
    if said.startswith("[green]") or said.startswith("cannot be checked"):
        return f"{said} (the handed-out code, not changed yet)"
    return f"failing: the handed-out code, not changed yet ({said})"


def table(folder: Path, console: Console) -> tuple[Table, bool]:
    """The progress table of the workspace ``folder``, and whether only the visible tests ran
    (the student install)."""
    from autograder.checks.suites import load as load_suite
    from autograder.run.engine import grade_notebook
    from packlab.course.check import untouched

    found = Table(title=f"Your progress ({shown(folder)})")
    for column in ("exercise", "function", "status"):
        found.add_column(column)
    sandboxed = learner_sandbox(console)
    visible_only = False
    for exercise in load().exercises:
        copy = workspace.learner_copy(folder, exercise.release)
        suite = load_suite(exercise.suite)
        visible_only = bool(suite.missing)
        if not copy.is_file():
            said = "not opened yet (run `packlab lab`)"
        elif not exercise.starter and untouched(copy, exercise):
            said = "not started"
        else:
            installed = tuple(group.name for group in suite.groups)
            said = status(grade_notebook(copy, exercise, "you", sandboxed=sandboxed,
                                         groups=installed if visible_only else None),
                          visible_only, exercise)
            if exercise.starter and untouched(copy, exercise):  # code to fix, not changed yet
                said = handed_out_status(said)
        found.add_row(exercise.name, exercise.function, said)
    return found, visible_only


def predictions_table() -> Table:
    """The learner's predictions, lesson by lesson: how many made, how many right."""
    from packlab.course import predictions as predict

    found = Table(title="Your predictions (the lessons' predict questions)")
    for column in ("lesson", "made", "right"):
        found.add_column(column)
    lessons = sorted({question.lesson for question in predict.questions().values()})
    for lesson in lessons:
        made, right, asked = predict.tally(lesson)
        found.add_row(lesson, f"{made} of {asked}", f"{right}" if made else "—")
    made, right, asked = predict.tally()
    found.add_row("all", f"{made} of {asked}", f"{right}" if made else "—")
    return found


def show(folder: Path, console: Console) -> None:
    """Print the progress table of ``folder`` and the learner's predictions on ``console``."""
    found, visible_only = table(folder, console)
    console.print(found)
    console.print(predictions_table())
    if visible_only:
        console.print("Only the visible tests run in this install; the hidden tests run when "
                      "your notebook is graded.")
    for update in workspace.updates(folder):
        console.print(f"Newer in the course: {shown(update.title)}. Get it with "
                      f"`{shown(update.command)}` (your copy is kept).")


def progress(folder: str | Path | None = None) -> None:
    """Show where you stand in a notebook cell: each exercise of your workspace, checked as it
    is saved (save the exercise first)."""
    show(Path(folder) if folder else workspace.default_folder(), Console(highlight=False))
