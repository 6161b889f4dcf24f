"""One submission of a class: what to grade (`Task`), and grading it (`grade_one`), never raising.

Used alike by `autograder.cohort.classroom` (here, in a process pool), `autograder.cohort.cluster`
(on a Dask worker) and `autograder.glue.gradescope` (one notebook on Gradescope).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.cohort.record import Graded
from autograder.run.engine import Result, confinement, grade_submission
from autograder.run.isolation import Limits
from autograder.run.plain import grade_plain
from packlab.manifest import load, plain_assignments


@dataclass(frozen=True)
class Task:
    student: str
    assignment: str
    notebook: Path | None
    problem: str | None = None
    submitted: Path | None = None  # SUBMITTED, when the notebook is in it: no link followed below


def grade_task(task: Task, limits: Limits, sandboxed: bool = True,
               groups: tuple[str, ...] | None = None) -> Result:
    """Grade one task (every test group, or just ``groups``); never raises."""
    return grade_one(task, limits, sandboxed, groups).result


def grade_one(task: Task, limits: Limits, sandboxed: bool = True,
              groups: tuple[str, ...] | None = None) -> Graded:
    """`grade_task`, with each of the student's cells that failed to run named by its place in
    the notebook and its first line ("cell 3 (`def pack(parts, budget)`)"), its code kept."""
    plain = plain_assignments().get(task.assignment) if task.problem is None else None
    exercise = load().exercise(task.assignment) if task.problem is None and not plain else None
    if plain is None and exercise is None:  # nothing to run: no sandbox to name
        return Graded(Result(task.student, task.assignment, error=task.problem,
                             max_score=max_score(task.assignment), sandbox=""), [])
    try:
        if plain is not None:  # a plain nbgrader assignment (`autograder.run.plain`)
            result, cells = grade_plain(task.notebook, plain, task.student, limits, sandboxed,
                                        below=task.submitted)
        else:
            result, cells = grade_submission(task.notebook, exercise, task.student, limits,
                                             groups=groups, sandboxed=sandboxed,
                                             below=task.submitted)
    except Exception as exc:  # noqa: BLE001 - one broken submission must not stop the class
        return Graded(Result(task.student, task.assignment, max_score=max_score(task.assignment),
                             error=f"the grader failed on this submission ({type(exc).__name__})",
                             sandbox=confinement(sandboxed)), [])
    return Graded(result, cells)


def max_score(assignment: str) -> int | float:
    """The most an assignment of the course can score (0 for one it does not have)."""
    plain = plain_assignments().get(assignment)
    if plain is not None:
        return plain.max_score
    return next((e.max_score for e in load().exercises if e.name == assignment), 0)
