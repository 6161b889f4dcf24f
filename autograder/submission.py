"""Reading a submitted notebook: which cells are the student's, and what was tampered with.

The course owns every locked and test cell of an exercise (solutions/ is their source). The
student owns the answer cells and any cell they added. Only the student's cells are run; the
course's cells are never taken from the submission, so editing or deleting them changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from packlab.course import Exercise

MAGIC = re.compile(r"^(\s*)[%!].*$", re.MULTILINE)


class Ungradable(Exception):
    """The submission cannot be graded at all; the message says why, in plain words."""


@dataclass
class StudentCode:
    cells: list[str]
    notes: list[str] = field(default_factory=list)


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _course_cells(exercise: Exercise) -> dict[str, str]:
    """grade_id -> released source of every cell the course owns (all but the answer cells)."""
    source = nbformat.read(exercise.release, as_version=4)
    owned = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") and not meta.get("solution"):
            owned[meta["grade_id"]] = cell.source
    return owned


def _without_magics(source: str) -> str:
    """IPython lines (``%time``, ``!ls``) are not Python: the grader skips them."""
    return MAGIC.sub(lambda m: f"{m.group(1)}pass", source)


def read(path: Path, exercise: Exercise) -> StudentCode:
    """The code cells to run for this submission, in order, and notes on what was changed."""
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several kinds for a broken file
        raise Ungradable(f"the notebook could not be read: it is not valid notebook JSON "
                         f"({type(exc).__name__}: {str(exc)[:200]})") from None
    if not any(cell.get("source", "").strip() for cell in notebook.cells):
        raise Ungradable("the notebook is empty: it has no cells with anything in them (is it "
                         "the right file?)")
    owned = _course_cells(exercise)
    code = StudentCode(cells=[])
    seen: dict[str, int] = {}
    edited: set[str] = set()
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        grade_id = _grade_id(cell)
        if grade_id in owned:
            seen[grade_id] = seen.get(grade_id, 0) + 1
            if cell.source != owned[grade_id] and grade_id not in edited:
                edited.add(grade_id)
                code.notes.append(f"The course's cell `{grade_id}` had been edited; the original "
                                  "was used.")
            continue
        code.cells.append(_without_magics(cell.source))
    for grade_id, count in seen.items():
        if count > 1:
            code.notes.append(f"The course's cell `{grade_id}` appeared {count} times; the "
                              "original was used, once.")
    for grade_id in owned.keys() - seen.keys():
        if grade_id.startswith(exercise.function):
            code.notes.append(f"The course's test cell `{grade_id}` was missing; the original was "
                              "used.")
    return code
