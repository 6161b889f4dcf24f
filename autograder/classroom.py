"""Grading a class: every SUBMITTED/<student>/<assignment>/<notebook>.ipynb, in parallel.

Each submission is graded in its own worker process (which runs the student's code in a sandbox
of its own), and its results are written as soon as it is done. A rerun skips what is already
written unless forced, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from autograder import isolation, report
from autograder.engine import Result, confinement, grade_notebook
from autograder.isolation import Limits
from packlab.course.manifest import load


@dataclass(frozen=True)
class Task:
    student: str
    assignment: str
    notebook: Path | None
    problem: str | None = None


SHOWN_NOTEBOOKS = 10  # a problem names at most this many of the notebooks found


def _folders(path: Path) -> list[str] | None:
    """The names of the folders in ``path`` (files are ignored), or None if it cannot be read."""
    try:
        with os.scandir(path) as entries:
            return sorted(entry.name for entry in entries if _is_folder(entry))
    except OSError:
        return None


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _notebooks(folder: Path) -> str:
    """The notebooks a submission folder holds, to name in a problem (at most a few)."""
    try:
        with os.scandir(folder) as entries:
            found = sorted(e.name for e in entries if e.name.endswith(".ipynb"))
    except OSError:
        return ""
    if not found:
        return ""
    more = len(found) - SHOWN_NOTEBOOKS
    return (f" (found {', '.join(found[:SHOWN_NOTEBOOKS])}"
            + (f" and {more:,} more" if more > 0 else "") + ")")


def discover(submitted: Path) -> list[Task]:
    """One task per student × assignment seen anywhere in SUBMITTED, problems included.

    Students and assignments are the folders found (files are ignored), whatever their names:
    spaces, unicode, newlines, leading dashes, markup or `grades.csv` are all just names. A
    folder that cannot be read gets its rows with the reason; discovery itself never fails
    on a submission (only when SUBMITTED cannot be listed at all).
    """
    known = {e.name for e in load().exercises}
    students = _folders(submitted)
    if students is None:
        raise OSError(f"cannot list the folders in {submitted}")
    seen = {s: _folders(submitted / s) for s in students}
    assignments = sorted({a for found in seen.values() if found for a in found})
    tasks = []
    for student in students:
        for assignment in assignments:
            folder = submitted / student / assignment
            expected = folder / f"{assignment}.ipynb"
            try:
                if assignment not in known:
                    problem = f"`{assignment}` is not an assignment of this course"
                elif seen[student] is None:
                    problem = "the student's folder could not be read"
                elif assignment not in seen[student]:
                    problem = "no submission"
                elif not expected.is_file():
                    problem = f"no notebook called {expected.name}" + _notebooks(folder)
                else:
                    problem = None
            except OSError as exc:  # e.g. a folder that may be listed but not entered
                problem = f"the submission could not be read ({type(exc).__name__})"
            tasks.append(Task(student, assignment, None if problem else expected, problem))
    return tasks


def grade_task(task: Task, limits: Limits, sandboxed: bool = True) -> Result:
    exercise = load().exercise(task.assignment) if task.problem is None else None
    if exercise is None:
        return Result(task.student, task.assignment, error=task.problem,
                      max_score=_max_score(task.assignment),
                      sandbox=confinement(sandboxed))
    try:
        return grade_notebook(task.notebook, exercise, task.student, limits,
                              sandboxed=sandboxed)
    except Exception as exc:  # noqa: BLE001 - one broken submission must not stop the class
        return Result(task.student, task.assignment, max_score=exercise.max_score,
                      error=f"the grader failed on this submission ({type(exc).__name__}: {exc})",
                      sandbox=confinement(sandboxed))


def _max_score(assignment: str) -> int:
    return next((e.max_score for e in load().exercises if e.name == assignment), 0)


def _results(out: Path, task: Task) -> dict | None:
    """The task's results.json, or None if there is none that can be read (grade it again).

    It is OUT/students/<student>/<assignment>/results.json, and must be a document of ours
    about this very task.
    """
    try:
        path = report.submission_folder(out, task.student, task.assignment) / "results.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        extra = data["extra_data"]
        if (extra["student"], extra["assignment"]) != (task.student, task.assignment) \
                or not isinstance(data["score"], int | float) \
                or not isinstance(extra["max_score"], int | float) \
                or not isinstance(extra["error"], str | None):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data


def _row(data: dict) -> dict:
    """The grades.csv row of one results.json document (``sandbox``: bubblewrap or none)."""
    extra = data["extra_data"]
    return {"student": extra["student"], "assignment": extra["assignment"],
            "score": data["score"], "max_score": extra["max_score"],
            "status": "not graded" if extra["error"] else "graded", "reason": extra["error"] or "",
            "sandbox": extra.get("sandbox", "bubblewrap")}


def _unwritten(task: Task, sandboxed: bool) -> dict:
    """The row of a submission whose results could not be written (the grader's fault)."""
    return {"student": task.student, "assignment": task.assignment, "score": 0,
            "max_score": _max_score(task.assignment), "status": "not graded",
            "reason": "the grader could not write this submission's results; run again",
            "sandbox": confinement(sandboxed)}


def grade_class(submitted: Path, out: Path, jobs: int | None = None, force: bool = False,
                limits: Limits | None = None,
                progress: Callable[[Iterator, int], Iterator] | None = None,
                sandboxed: bool = True) -> list[dict]:
    """Grade everything under ``submitted`` into ``out``; return the grades.csv rows.

    With ``sandboxed`` (the default) grading refuses to start (`isolation.SandboxUnavailable`)
    unless bubblewrap works here; ``sandboxed=False`` grades without one, and says so everywhere.

    Also writes the class's summary.md, class.json and class.png; `report.summary(rows)` is
    the text to print.
    """
    limits = limits or Limits()
    if sandboxed:
        isolation.require_sandbox()  # fail closed: no sandbox, no grading
    tasks = discover(submitted)
    report.remove_partial(out)  # what a killed run was writing when it died
    todo = [t for t in tasks if force or _results(out, t) is None]
    jobs = max(1, jobs or os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(grade_task, task, limits, sandboxed) for task in todo]
        finished = as_completed(futures)
        for future in progress(finished, len(futures)) if progress else finished:
            report.write_submission(out, future.result())
    results = [_results(out, t) for t in tasks]
    rows = [_row(data) if data else _unwritten(task, sandboxed)
            for task, data in zip(tasks, results, strict=True)]
    report.write_grades(out, rows)
    report.write_class(out, rows, [data for data in results if data])  # summary.md, class.*
    return rows
