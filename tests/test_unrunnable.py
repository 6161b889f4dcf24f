"""A submission whose own code cannot run says why in grades.csv, naming the cell by its place in
the notebook and its first line, and its feedback shows the student's code, the failing line
marked — escaped, and bounded."""

from __future__ import annotations

import csv
import html
import json

import nbformat
import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from autograder.cohort.classroom import grade_class
from autograder.run import submission
from autograder.run.isolation import Limits

# The module's fixtures are built once only if its tests share one xdist worker.
pytestmark = pytest.mark.xdist_group("unrunnable")

FAST = Limits(call_seconds=1.0, setup_seconds=5.0)
PACK = COURSE.exercise("02")
SYNTAX = "def pack(parts, budget)\n    return []\n"
HOSTILE = ("# <script>alert(1)</script> =HYPERLINK()\n" + "x = 1\n" * 30
           + "def pack(parts, budget):\n    return [p for p in parts if]\n" + "y = 2\n" * 30)


def answer_position(notebook) -> int:
    """The answer cell's place in the notebook, counting every cell from 1."""
    return next(i for i, c in enumerate(notebook.cells, 1)
                if c.metadata.get("nbgrader", {}).get("grade_id") == PACK.grade_id("answer"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("unrunnable")
    submitted, out = base / "submitted", base / "out"
    submit(submitted, "syntax", PACK, with_answer(PACK, SYNTAX))
    submit(submitted, "hostile", PACK, with_answer(PACK, HOSTILE))
    raising = with_answer(PACK, None)
    raising.cells.insert(1, nbformat.v4.new_code_cell("import nothing_like_this\n"))
    submit(submitted, "raising", PACK, raising)
    rows = grade_class(submitted, out, jobs=2, limits=FAST)
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        written = {r["student"]: r for r in csv.DictReader(handle)}
    return out, {r["student"]: r for r in rows}, written


def page(out, student: str) -> str:
    return (outfolder.submission_folder(out, student, PACK.name) / "feedback.html").read_text()


def test_a_syntax_error_has_its_reason_in_grades_csv(graded):
    out, rows, written = graded
    at = answer_position(nbformat.read(PACK.release, as_version=4))
    expected = f"cell {at} (`def pack(parts, budget)`) has a syntax error on line 1: expected ':'"
    assert rows["syntax"]["score"] == 0 and rows["syntax"]["status"] == "graded"
    assert written["syntax"]["reason"] == expected
    data = json.loads((outfolder.submission_folder(out, "syntax", PACK.name)
                       / "results.json").read_text())
    assert data["extra_data"]["problem"] == expected
    assert "cell 1 " not in page(out, "syntax")


def test_the_feedback_shows_the_code_with_the_failing_line_marked(graded):
    out, _, _ = graded
    text = page(out, "syntax")
    assert "Your code that did not run" in text
    assert "<span class=bad>→   1 | def pack(parts, budget)</span>" in text
    assert "   2 | " in text and "return []" in text


def test_student_code_on_the_page_is_escaped_and_cut(graded):
    out, rows, written = graded
    text = page(out, "hostile")
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<span class=bad>→  33 |     return [p for p in parts if]</span>" in text
    shown = text.count(" | x = 1") + text.count(" | y = 2")
    assert shown == submission.SHOWN_LINES - 2  # a window around the failing line, not all 63
    assert rows["hostile"]["reason"].startswith("cell ")
    assert not written["hostile"]["reason"].startswith(("=", "+", "-", "@"))
    assert "(`# <script>alert(1)</script> =HYPERLINK()`) has a syntax error on line 33" in \
        written["hostile"]["reason"]


def test_a_cell_that_raises_is_named_and_full_marks_keep_an_empty_reason(graded):
    out, rows, _ = graded
    assert rows["raising"]["score"] == PACK.max_score and rows["raising"]["reason"] == ""
    text = html.unescape(page(out, "raising"))
    assert "cell 2 (`import nothing_like_this`) raised ModuleNotFoundError" in text
