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

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import nbformat

from autograder.run import handed_in
from autograder.run.handed_in import NOTEBOOK_BYTES
from autograder.worker import RUNS_ITS_BODY
from packlab.manifest import Exercise

# IPython tokenizes the whole cell again for each piece of its syntax that it rewrites: a cell of
# hundreds of magics would take minutes. One notebook gets this many characters tokenized (a few
# seconds at worst; an honest one needs thousands); past it, cells are passed on as written.
TOKENIZE_BUDGET = 1_000_000


class Ungradable(Exception):
    """The submission cannot be graded at all; the message says why, in plain words."""


@dataclass
class StudentCode:
    cells: list[str]  # as run: read as IPython reads them
    notes: list[str] = field(default_factory=list)
    written: list[tuple[int, str]] = field(default_factory=list)  # (place, source as written)
    untouched: bool = False  # the answer cell is still the starter as released


# The note on a submission whose answer cell is the starter as released.
UNTOUCHED = ("Your answer cell is still the code the exercise was handed out with: nothing of "
             "yours was graded. Change it, then hand it in again.")


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


@cache
def _released_answer(release: Path, grade_id: str) -> str | None:
    """The starter the exercise was released with in its answer cell ``grade_id``."""
    for cell in nbformat.read(release, as_version=4).cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            return cell.source
    return None


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


@dataclass(frozen=True)
class Cell:
    """One cell of a submitted notebook, as far as grading needs it."""

    position: int  # its place in the notebook, counting every cell from 1
    kind: str  # "code", "markdown", "raw"
    source: str
    grade_id: str | None  # nbgrader's, for the course's cells and the answer cells


REHAND = "open it in Jupyter, save it and hand it in again"
CLEAR_OUTPUTS = "clear its outputs (Edit, Clear Outputs of All Cells), save it and hand it in again"


def too_large(size: int) -> str | None:
    """Why a notebook of ``size`` bytes is not read (over `NOTEBOOK_BYTES`), or None."""
    if size <= NOTEBOOK_BYTES:
        return None
    return f"{handed_in.larger_than(size, NOTEBOOK_BYTES, 'the notebook')}: {CLEAR_OUTPUTS}"


def _cell(position: int, cell) -> Cell:
    """The parts of one notebook cell grading uses; `Ungradable` when they are not what a
    notebook holds (a number as a cell's source, a list as its grade id)."""
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else None
    nbgrader = meta.get("nbgrader", {}) if isinstance(meta, dict) else None
    grade_id = nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None
    if nbgrader is None or type(cell.get("cell_type")) is not str \
            or type(cell.get("source", "")) is not str \
            or not (grade_id is None or type(grade_id) is str):
        raise Ungradable(f"the notebook is not a valid notebook: cell {position} is not laid "
                         f"out as a notebook's cells are; {REHAND}")
    return Cell(position, cell["cell_type"], cell.get("source", ""), grade_id)


def _parsed(data: bytes):
    """The notebook in ``data``, by nbformat's reader but without its schema check (seconds
    for a large notebook, and it only logs): `_cell` checks what grading uses. `Ungradable`,
    quoting nothing of it, when it is not one."""
    try:
        return nbformat.convert(nbformat.reader.reads(data.decode("utf-8")), 4)
    except Exception as exc:  # nbformat raises several kinds for a broken file
        where = ""
        cause = exc if isinstance(exc, json.JSONDecodeError) else exc.__cause__ or exc.__context__
        if isinstance(cause, json.JSONDecodeError):
            where = f", at line {cause.lineno}, column {cause.colno}"
        raise Ungradable(f"the notebook could not be read: it is not valid notebook JSON "
                         f"({type(exc).__name__}{where}); {REHAND}") from None


def notebook_cells(path: Path, below: Path | None = None) -> list[Cell]:
    """The cells of the notebook at ``path`` (a regular file of at most `NOTEBOOK_BYTES`, read
    once; ``below``: SUBMITTED, no link followed under it, `handed_in.opened`); `Ungradable`,
    saying why in plain words, when it cannot be graded."""
    try:
        data = handed_in.read(path, NOTEBOOK_BYTES, "the notebook", below)
    except handed_in.TooLarge as exc:
        raise Ungradable(f"{exc}: {CLEAR_OUTPUTS}") from None
    except handed_in.Refused as exc:
        raise Ungradable(str(exc)) from None
    except OSError as exc:
        raise Ungradable(f"the notebook could not be read ({type(exc).__name__})") from None
    notebook = _parsed(data)
    cells = notebook.get("cells")
    if type(cells) is not list:
        raise Ungradable(f"the notebook is not a valid notebook: it has no list of cells; {REHAND}")
    cells = [_cell(position, cell) for position, cell in enumerate(cells, 1)]
    if not any(cell.source.strip() for cell in cells):
        raise Ungradable("the notebook is empty: it has no cells with anything in them (is it "
                         "the right file?)")
    return cells


def _students(cells: list[Cell], owned: dict[str, str]) -> list[tuple[int, str]]:
    """The student's code cells (every code cell the course does not own), in order: each
    one's place in the notebook and its source as written."""
    return [(cell.position, cell.source) for cell in cells
            if cell.kind == "code" and cell.grade_id not in owned]


def read(path: Path, exercise: Exercise, below: Path | None = None) -> StudentCode:
    """The code cells to run for this submission, in order, and notes on what was changed
    (``below``: see `notebook_cells`)."""
    cells = notebook_cells(path, below)
    owned = _course_cells(exercise.release)
    code = StudentCode(cells=[], written=_students(cells, owned))
    answer_id = exercise.grade_id("answer")
    starter = _released_answer(exercise.release, answer_id)
    answers = [cell.source for cell in cells if cell.grade_id == answer_id]
    code.untouched = starter is not None and len(answers) == 1 \
        and answers[0].strip() == starter.strip()
    as_python = None
    seen: dict[str, int] = {}
    edited: set[str] = set()
    for cell in cells:
        if cell.kind != "code" or cell.grade_id not in owned:
            continue
        seen[cell.grade_id] = seen.get(cell.grade_id, 0) + 1
        if cell.source != owned[cell.grade_id] and cell.grade_id not in edited:
            edited.add(cell.grade_id)
            code.notes.append(f"The course's cell `{cell.grade_id}` had been edited; the "
                              "original was used.")
    for _, source in code.written:
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


# --- naming the cell a problem came from ------------------------------------------------------
# The worker numbers the cells it ran ("cell 1 has a syntax error on line 3: ..."); a learner
# knows their notebook. A problem names the cell by its place in the notebook and its first line,
# and the feedback shows its code with the failing line marked. (The worker's words are the
# student's to forge: a number that names no cell is left as it was.)

SHOWN_LINES = 12  # lines of a failing cell shown around the failing line
LINE_CHARS = 160
FIRST_LINE_CHARS = 60
_PROBLEM = re.compile(r"cell (\d+) (has a syntax error on line (\d+): .*|raised .*)", re.DOTALL)


@dataclass(frozen=True)
class CellProblem:
    """A student's cell that failed to run: what happened, and the code around it."""

    problem: str  # e.g. "cell 2 (`def pack(parts, budget)`) has a syntax error on line 1: ..."
    position: int  # the cell's place in the notebook, counting every cell from 1
    first_line: int  # the line number of lines[0]
    lines: list[str]  # some of the cell's lines, each cut to LINE_CHARS
    marked: int | None = None  # the failing line's number, when known


def _first_line(source: str) -> str:
    line = next((text.strip() for text in source.splitlines() if text.strip()), "")
    return line if len(line) <= FIRST_LINE_CHARS else line[:FIRST_LINE_CHARS] + "…"


def cell_problem(problem: str, cells: list[tuple[int, str]]) -> CellProblem | None:
    """The worker's ``problem`` ("cell 1 raised ...") about the student's ``cells``, named."""
    match = _PROBLEM.fullmatch(problem)
    if match is None or not 1 <= int(match[1]) <= len(cells):
        return None
    position, source = cells[int(match[1]) - 1]
    lines = source.splitlines() or [""]
    marked = int(match[3]) if match[3] and 1 <= int(match[3]) <= len(lines) else None
    start = max(1, min((marked or 1) - SHOWN_LINES // 2, len(lines) - SHOWN_LINES + 1))
    shown = [line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " …"
             for line in lines[start - 1:start - 1 + SHOWN_LINES]]
    named = f"cell {position} (`{_first_line(source)}`) {match[2]}"
    return CellProblem(named, position, start, shown, marked)
