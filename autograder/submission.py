"""Reading a submitted notebook: which cells are the student's, and what was tampered with.

The course owns every locked and test cell of an exercise (solutions/ is their source). The
student owns the answer cells and any cell they added. Only the student's cells are run; the
course's cells are never taken from the submission, so editing or deleting them changes nothing.

A student's cell is read the way IPython reads it, by IPython's own input transformers (a regex
cannot tell a magic from a continuation line such as ``% (reserve, budget))``): ``%time x``
becomes ``get_ipython().run_line_magic('time', 'x')``, ``!ls`` ``get_ipython().system('ls')``
and a ``%%time`` cell ``get_ipython().run_cell_magic('time', '', body)``; the worker's
``get_ipython()`` decides what those calls do (a ``%%time``-like cell's body, read the same way,
is run). A cell that IPython cannot read either is passed on as written, and the worker reports its
syntax error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import nbformat

from autograder.worker import RUNS_ITS_BODY
from packlab.course.manifest import Exercise

# IPython tokenizes the whole cell again for each piece of its syntax that it rewrites: a cell of
# hundreds of magics would take minutes. One notebook gets this many characters tokenized (a few
# seconds at worst; an honest one needs thousands); past it, cells are passed on as written.
TOKENIZE_BUDGET = 1_000_000


class Ungradable(Exception):
    """The submission cannot be graded at all; the message says why, in plain words."""


@dataclass
class StudentCode:
    cells: list[str]
    notes: list[str] = field(default_factory=list)


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


@cache
def _course_cells(release: Path) -> dict[str, str]:
    """grade_id -> released source of every cell the course owns (all but the answer cells).

    Read once per process (a class hands in many copies of one release); never changed.
    """
    source = nbformat.read(release, as_version=4)
    owned = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") and not meta.get("solution"):
            owned[meta["grade_id"]] = cell.source
    return owned


def _ipython_reader() -> Callable[[str], str]:
    """Reads one notebook's cells as IPython does, tokenizing at most TOKENIZE_BUDGET characters."""
    from IPython.core.inputtransformer2 import TransformerManager  # only for cells that need it

    budget = TOKENIZE_BUDGET

    class Bounded(TransformerManager):
        def do_one_token_transform(self, lines):  # called once per rewrite, and once more
            nonlocal budget
            budget -= sum(map(len, lines))
            if budget < 0:
                raise RuntimeError("too much IPython syntax in one notebook")
            return super().do_one_token_transform(lines)

    manager = Bounded()

    def as_python(source: str) -> str:
        try:
            python = manager.transform_cell(source)
        except Exception:  # IndentationError, SyntaxError, the budget: the worker will say
            return source
        return _with_body_read(source, python, as_python)

    return as_python


def _with_body_read(source: str, python: str, as_python: Callable[[str], str]) -> str:
    """A ``%%time``-like cell runs its body as a cell of its own: read that body as IPython
    would too (``%%capture`` over ``!pip install ...`` is common)."""
    first, _, body = source.lstrip("\n").partition("\n")
    name, _, line = first.removeprefix("%%").partition(" ")
    if not first.startswith("%%") or name not in RUNS_ITS_BODY:
        return python
    body_python = as_python(body)
    if body_python == body:
        return python
    return f"get_ipython().run_cell_magic({name!r}, {line!r}, {body_python!r})\n"


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
    owned = _course_cells(exercise.release)
    code = StudentCode(cells=[])
    as_python = None
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
        source = cell.source
        if "%" in source or "!" in source or "?" in source:  # else plain Python: skip IPython
            as_python = as_python or _ipython_reader()
            source = as_python(source)
        code.cells.append(source)
    for grade_id, count in seen.items():
        if count > 1:
            code.notes.append(f"The course's cell `{grade_id}` appeared {count} times; the "
                              "original was used, once.")
    for grade_id in owned.keys() - seen.keys():
        if grade_id.startswith(exercise.function):
            code.notes.append(f"The course's test cell `{grade_id}` was missing; the original was "
                              "used.")
    return code
