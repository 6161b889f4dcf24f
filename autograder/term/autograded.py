"""The autograded notebook `nbgrader generate_feedback` renders, for one packlab graded.

nbgrader's feedback page is autograded/<student>/<assignment>/<notebook>.ipynb shown with the
gradebook's scores. packlab runs no student code on the trusted side, so it writes that notebook
as nbgrader's autograde lays it out: the course's cells as released (edits to them are not kept,
as nbgrader's OverwriteCells does), the student's answer cells and own code cells, and in each
test cell packlab's messages for its group as the cell's output. Hidden test code is never in it
(the released cells have none). A submission that cannot be read gets the released notebook with
the reason it was not graded on top. Beside it go the submission's timestamp.txt and
submission_secret.txt, as `nbgrader autograde` copies them: `nbgrader release_feedback` needs
both (the secret ties the feedback to the student's own `nbgrader fetch_feedback`).
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import nbformat
from nbformat.v4 import nbjson, new_code_cell, new_markdown_cell, new_output

from autograder.escape import for_markdown
from autograder.outfolder import write_atomically
from autograder.run import handed_in
from autograder.run.submission import Cell, Ungradable, notebook_cells

MAX_CELLS = 500  # of the student's cells, at most this many are kept
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")  # what nbgrader's exchange writes
EXCHANGE_BYTES = 1_000  # nbgrader's secret is 128 characters, its timestamp about 30
MAX_SOURCE = 20_000  # characters of one of the student's cells


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _bounded(source: object) -> str:
    text = str(source)
    if len(text) <= MAX_SOURCE:
        return text
    return f"{text[:MAX_SOURCE]}\n# … ({len(text) - MAX_SOURCE:,} more characters were cut)"


def _student_cells(path: Path, below: Path | None) -> list[Cell] | None:
    """The submitted notebook's cells, read as the grader reads them (`notebook_cells`: a
    regular file of at most the notebook limit, no link followed below SUBMITTED), or None
    when it cannot be read."""
    try:
        return notebook_cells(path, below)
    except Ungradable:
        return None


def merged(released: list, submitted: list[Cell]) -> list:
    """The cells in the student's order: the course's as released (once each; any the student
    deleted at the end), answer cells with the student's code, the student's own code cells."""
    course = {_grade_id(cell): cell for cell in released if _grade_id(cell)}
    seen: set[str] = set()
    cells = []
    for cell in submitted[:MAX_CELLS]:
        if cell.grade_id in course:
            if cell.grade_id in seen:
                continue
            seen.add(cell.grade_id)
            kept = copy.deepcopy(course[cell.grade_id])
            if kept.metadata["nbgrader"].get("solution"):
                kept.source = _bounded(cell.source)
            cells.append(kept)
        elif cell.kind == "code":
            cells.append(new_code_cell(_bounded(cell.source)))
    return cells + [copy.deepcopy(c) for g, c in course.items() if g not in seen]


def write(path: Path, release: Path, submitted: Path, row: dict,
          messages: dict[str, str] | None, said: list[str] = (),
          below: Path | None = None) -> None:
    """Write one autograded notebook of a grades.csv ``row``, from the ``release`` notebook and
    the ``submitted`` one; ``messages`` are its results.json test outputs by grade_id, None
    when it was not graded; ``said``, what the student is told about dates and corrections
    (`corrections.nbgrader_lines`: the late penalty and the override, which the gradebook holds
    as extra credit), goes on top, one paragraph a line. ``below``: SUBMITTED, which
    ``submitted`` is in."""
    notebook = nbformat.read(release, as_version=4)
    cells = _student_cells(submitted, below) if messages is not None else None
    if cells is None:
        reason = row["reason"] or "the notebook could not be read"
        notebook.cells.insert(0, new_markdown_cell(f"**Not graded:** {for_markdown(reason)}"))
    else:
        notebook.cells = merged(notebook.cells, cells)
    if said:
        notebook.cells.insert(0, new_markdown_cell("\n\n".join(for_markdown(line)
                                                                 for line in said)))
    for cell in notebook.cells:
        if _grade_id(cell) in (messages or {}):
            cell.outputs = [new_output("stream", name="stdout", text=messages[_grade_id(cell)])]
    path.parent.mkdir(parents=True, exist_ok=True)
    # nbformat.writes validates the whole notebook only to log a complaint (it writes either
    # way), half of the cost; the outputs are our own, bounded; tests validate what is written.
    write_atomically(path, nbjson.writes(notebook))


def copy_exchange_files(submitted: Path, autograded: Path, below: Path | None = None) -> list[str]:
    """Copy the submission folder's timestamp.txt and submission_secret.txt into its autograded
    folder (each only as a small regular file, no link followed below ``below``, SUBMITTED);
    return why any that is there was not copied."""
    problems = []
    for name in EXCHANGE_FILES:
        try:
            data = handed_in.read(submitted / name, EXCHANGE_BYTES, name, below)
        except FileNotFoundError:
            (autograded / name).unlink(missing_ok=True)  # none now: none left from before
            continue
        except handed_in.Refused as exc:
            problems.append(f"{name} was not copied ({exc})")
            continue
        except OSError as exc:
            problems.append(f"{name} was not copied ({type(exc).__name__})")
            continue
        autograded.mkdir(parents=True, exist_ok=True)
        write_atomically(autograded / name, data.decode("utf-8", "replace"))
    return problems


def copy_source_files(source: Path, autograded: Path) -> None:
    """Copy the files beside a plain assignment's source notebook (data, images) into its
    autograded folder, as nbgrader's autograde does, for `nbgrader generate_feedback` to carry
    to the feedback folder. Regular files only, no notebook, nothing hidden, no link followed."""
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_symlink() or not path.is_file() or path.suffix == ".ipynb" \
                or any(part.startswith(".") for part in relative.parts):
            continue
        (autograded / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, autograded / relative)
