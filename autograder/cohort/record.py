"""The grader's own record of a graded submission: OUT/students/<student>/<assignment>/graded.json.

It holds what the tests found (the `Result`, bounded as the reports are) and the student's cells
that failed to run, before any date or correction; and what was graded: the SHA-256 of the
notebook's bytes and the fingerprint of the grader and course it was graded with. A rerun reuses
a record only for the same notebook bytes and the same grader (`stale` says why not); a
regrade keeps the earlier results' scores and times in the record's ``history``. A rerun that
changes only a due date, the late policy or an override writes the student's feedback and
results again from it, without running their code; a regrade of one test group merges the new
group into it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
from datetime import UTC, datetime
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType

from autograder import outfolder
from autograder.checks.suite import Failure, Misconception
from autograder.cohort import report
from autograder.run import handed_in, kernel
from autograder.run import plain as plain_grading
from autograder.run.engine import GroupScore, Result
from autograder.run.handed_in import NOTEBOOK_BYTES
from autograder.run.kernel import runner_source
from autograder.run.submission import CellProblem
from packlab.manifest import load, plain_assignments

RECORD = "graded.json"
HISTORY = 50  # earlier results kept per submission (the newest)
CHANGED, NEW_GRADER = "changed notebook", "new grader"


@dataclasses.dataclass(frozen=True)
class Graded:
    result: Result
    cells: list[CellProblem]
    notebook: str | None = None  # SHA-256 of the notebook's bytes; None: no notebook graded
    grader: str = ""  # `grader_fingerprint` of the assignment when it was graded
    graded_at: str = ""  # ISO 8601, UTC
    history: tuple[dict, ...] = ()  # earlier results: score, error, graded_at, notebook, why


def digest(path: Path | None, below: Path | None = None) -> str | None:
    """The SHA-256 of a notebook's bytes, or None: no file, not a regular file (no link
    followed, down from ``below``, SUBMITTED; no FIFO opened), or larger than
    `NOTEBOOK_BYTES`, which is checked before a byte is read (such a notebook is refused)."""
    if path is None:
        return None
    try:
        handle = handed_in.opened(path, below=below)
    except (OSError, handed_in.Refused):
        return None
    with handle:
        if os.fstat(handle.fileno()).st_size > NOTEBOOK_BYTES:
            return None
        hasher, left = hashlib.sha256(), NOTEBOOK_BYTES + 1
        while left > 0 and (chunk := handle.read(min(left, 1 << 20))):
            hasher.update(chunk)
            left -= len(chunk)
    return None if left <= 0 else hasher.hexdigest()  # None: it grew past the limit


def _modules(module: ModuleType) -> set[ModuleType]:
    """``module`` and the course's own modules it uses (one level: what its names come from)."""
    found = {module}
    for value in vars(module).values():
        used = value if inspect.ismodule(value) else inspect.getmodule(value)
        if used is not None and used.__name__.split(".")[0] in ("autograder", "packlab"):
            found.add(used)
    return found


@cache
def grader_fingerprint(assignment: str) -> str:
    """What decides an assignment's scores: its points and partial credit in course.toml, and
    the source of its suite, its hidden tests and the course's modules they use ("" for an
    assignment the course does not have)."""
    plain = plain_assignments().get(assignment)
    if plain is not None:  # its notebooks (the tests, the release's checksums) and their grader
        hasher = hashlib.sha256((inspect.getsource(plain_grading) + runner_source()
                                  + inspect.getsource(kernel)).encode())
        for notebook in plain.notebooks:
            for path in (plain.source(notebook), plain.release(notebook)):
                hasher.update(path.read_bytes() if path.is_file() else b"\0")
            hasher.update(repr(sorted(plain_grading.gradebook_sources(
                assignment, notebook).items())).encode())
        hasher.update(repr(sorted(plain_grading.execute_settings().items())).encode())
        return hasher.hexdigest()[:16]
    exercise = next((e for e in load().exercises if e.name == assignment), None)
    if exercise is None:
        return ""
    hasher = hashlib.sha256(repr((exercise.name, exercise.suite, exercise.function,
                                  sorted(exercise.points.items()),
                                  exercise.partial_credit)).encode())
    modules: set[ModuleType] = set()
    for package in ("autograder.checks.suites", "autograder.checks.hidden"):
        try:
            modules |= _modules(import_module(f"{package}.{exercise.suite}"))
        except ModuleNotFoundError:
            continue  # the student install has no hidden tests
    for module in sorted(modules, key=lambda m: m.__name__):
        hasher.update(module.__name__.encode() + b"\0")
        with open(inspect.getfile(module), "rb") as handle:
            hasher.update(handle.read())
    return hasher.hexdigest()[:16]


def stale(graded: Graded, notebook: str | None, problem: str | None) -> str | None:
    """Why a stored record no longer stands for the submission (`CHANGED`, `NEW_GRADER`), or
    None when it does: the same notebook bytes (or the same problem), the same grader."""
    if problem is not None:  # as the record keeps it: cut to a length
        problem = report.bounded(dataclasses.replace(graded.result, error=problem)).error
    if graded.notebook != notebook or (problem is not None and graded.result.error != problem):
        return CHANGED
    if graded.grader != grader_fingerprint(graded.result.assignment):
        return NEW_GRADER
    return None


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def stamped(graded: Graded, notebook: str | None, earlier: Graded | None,
            why: str | None, late: dict | None = None) -> Graded:
    """``graded`` with what it graded (``notebook``'s digest, this grader, now) and, when it
    replaces an ``earlier`` record, that one's result in its history (``why`` it was redone;
    ``late``: its results' lateness, when it was handed in and the penalty it had)."""
    history = earlier.history if earlier else ()
    if earlier is not None and why is not None:
        late = late if isinstance(late, dict) else {}
        history = (*history, {"score": earlier.result.score, "error": earlier.result.error,
                              "graded_at": earlier.graded_at, "notebook": earlier.notebook,
                              "why": why, "submitted_at": late.get("submitted_at", ""),
                              "late_penalty": late.get("penalty", 0),
                              "late_days": late.get("late_days"),
                              "flag": late.get("flag", "")})[-HISTORY:]
    return dataclasses.replace(graded, notebook=notebook, graded_at=now(), history=history,
                               grader=grader_fingerprint(graded.result.assignment))


def write(out: Path, graded: Graded) -> None:
    """Write the record of one submission (atomically)."""
    folder = outfolder.submission_folder(out, graded.result.student, graded.result.assignment)
    data = {"result": dataclasses.asdict(report.bounded(graded.result)),
            "cells": [dataclasses.asdict(cell) for cell in graded.cells],
            "notebook_sha256": graded.notebook, "grader": graded.grader,
            "graded_at": graded.graded_at, "history": list(graded.history)}
    outfolder.write_atomically(folder / RECORD, json.dumps(data) + "\n")


def _failure(data: dict) -> Failure:
    return Failure(**{**data, "misconception": Misconception(**data["misconception"])})


def _history(entries: object) -> tuple[dict, ...]:
    if not isinstance(entries, list):
        return ()
    return tuple(e for e in entries[-HISTORY:] if isinstance(e, dict))


def read(out: Path, student: str, assignment: str) -> Graded | None:
    """The record of one submission, or None when there is none that can be read."""
    try:
        path = outfolder.submission_folder(out, student, assignment) / RECORD
        data = json.loads(path.read_text(encoding="utf-8"))
        result = data["result"]
        groups = [GroupScore(**{**g, "failures": [_failure(f) for f in g["failures"]]})
                  for g in result["groups"]]
        notebook = data.get("notebook_sha256")
        graded = Graded(Result(**{**result, "groups": groups}),
                        [CellProblem(**cell) for cell in data["cells"]],
                        notebook if isinstance(notebook, str) else None,
                        str(data.get("grader", "")), str(data.get("graded_at", "")),
                        _history(data.get("history")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (graded.result.student, graded.result.assignment) != (student, assignment):
        return None
    return graded


def merged(old: Graded, new: Graded) -> Graded:
    """``old`` with the test groups that ``new`` regraded replaced (in the suite's order)."""
    fresh = {group.name: group for group in new.result.groups}
    groups = [fresh.pop(group.name, group) for group in old.result.groups] + list(fresh.values())
    result = dataclasses.replace(new.result, groups=groups,
                                 score=sum(group.points for group in groups))
    return dataclasses.replace(old, result=result, cells=new.cells)
