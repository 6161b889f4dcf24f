"""The grader's own record of a graded submission: OUT/students/<student>/<assignment>/graded.json.

It holds what the tests found (the `Result`, bounded as the reports are) and the student's cells
that failed to run, before any date or correction. A rerun that changes only a due date, the late
policy or an override writes the student's feedback and results again from it, without running
their code; a regrade of one test group merges the new group into it.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from autograder import report
from autograder.engine import GroupScore, Result
from autograder.submission import CellProblem
from autograder.suite import Failure, Misconception

RECORD = "graded.json"


@dataclasses.dataclass(frozen=True)
class Graded:
    result: Result
    cells: list[CellProblem]


def write(out: Path, graded: Graded) -> None:
    """Write the record of one submission (atomically)."""
    folder = report.submission_folder(out, graded.result.student, graded.result.assignment)
    data = {"result": dataclasses.asdict(report.bounded(graded.result)),
            "cells": [dataclasses.asdict(cell) for cell in graded.cells]}
    report.write_atomically(folder / RECORD, json.dumps(data) + "\n")


def _failure(data: dict) -> Failure:
    return Failure(**{**data, "misconception": Misconception(**data["misconception"])})


def read(out: Path, student: str, assignment: str) -> Graded | None:
    """The record of one submission, or None when there is none that can be read."""
    try:
        path = report.submission_folder(out, student, assignment) / RECORD
        data = json.loads(path.read_text(encoding="utf-8"))
        result = data["result"]
        groups = [GroupScore(**{**g, "failures": [_failure(f) for f in g["failures"]]})
                  for g in result["groups"]]
        graded = Graded(Result(**{**result, "groups": groups}),
                        [CellProblem(**cell) for cell in data["cells"]])
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
    return Graded(result, new.cells)
