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
from autograder.engine import Result, grade_notebook
from autograder.isolation import Limits
from packlab.course import load


@dataclass(frozen=True)
class Task:
    student: str
    assignment: str
    notebook: Path | None
    problem: str | None = None


def discover(submitted: Path) -> list[Task]:
    """One task per student × assignment seen anywhere in SUBMITTED, problems included."""
    known = {e.name for e in load().exercises}
    students = sorted(p.name for p in submitted.iterdir() if p.is_dir())
    assignments = sorted({a.name for s in students for a in (submitted / s).iterdir()
                          if a.is_dir()})
    tasks = []
    for student in students:
        for assignment in assignments:
            folder = submitted / student / assignment
            expected = folder / f"{assignment}.ipynb"
            if assignment not in known:
                problem = f"`{assignment}` is not an assignment of this course"
            elif not folder.is_dir():
                problem = "no submission"
            elif not expected.is_file():
                found = sorted(p.name for p in folder.glob("*.ipynb"))
                problem = (f"no notebook called {expected.name}"
                           + (f" (found {', '.join(found)})" if found else ""))
            else:
                problem = None
            tasks.append(Task(student, assignment, None if problem else expected, problem))
    return tasks


def grade_task(task: Task, limits: Limits, hidden: tuple[str, ...] = ()) -> Result:
    exercise = load().exercise(task.assignment) if task.problem is None else None
    if exercise is None:
        return Result(task.student, task.assignment, error=task.problem,
                      max_score=_max_score(task.assignment))
    try:
        return grade_notebook(task.notebook, exercise, task.student, limits, hidden=hidden)
    except Exception as exc:  # noqa: BLE001 - one broken submission must not stop the class
        return Result(task.student, task.assignment, max_score=exercise.max_score,
                      error=f"the grader failed on this submission ({type(exc).__name__}: {exc})")


def _max_score(assignment: str) -> int:
    return next((e.max_score for e in load().exercises if e.name == assignment), 0)


def _results(out: Path, task: Task) -> dict | None:
    """The task's results.json, or None if there is none that can be read (grade it again)."""
    path = out / task.student / task.assignment / "results.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["extra_data"]["student"]  # noqa: B018 - a document of ours, not any JSON
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data


def _row(data: dict) -> dict:
    """The grades.csv row of one results.json document."""
    extra = data["extra_data"]
    return {"student": extra["student"], "assignment": extra["assignment"],
            "score": data["score"], "max_score": extra["max_score"],
            "status": "not graded" if extra["error"] else "graded", "reason": extra["error"] or ""}


def grade_class(submitted: Path, out: Path, jobs: int | None = None, force: bool = False,
                limits: Limits | None = None,
                progress: Callable[[Iterator, int], Iterator] | None = None) -> list[dict]:
    """Grade everything under ``submitted`` into ``out``; return the grades.csv rows.

    Also writes the class's summary.md, class.json and class.png; `report.summary(rows)` is
    the text to print.
    """
    limits = limits or Limits()
    tasks = discover(submitted)
    report.remove_partial(out)  # what a killed run was writing when it died
    isolation.sweep_orphans()  # and what its sandboxes' code had forked
    todo = [t for t in tasks if force or _results(out, t) is None]
    jobs = max(1, jobs or os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        hidden = (str(submitted.resolve()), str(out.resolve()))  # no peeking at the class
        futures = [pool.submit(grade_task, task, limits, hidden) for task in todo]
        finished = as_completed(futures)
        for future in progress(finished, len(futures)) if progress else finished:
            report.write_submission(out, future.result())
    results = [_results(out, t) for t in tasks]
    rows = [_row(data) for data in results]
    report.write_grades(out, rows)
    report.write_class(out, rows, results)  # summary.md, class.json, class.png
    return rows
