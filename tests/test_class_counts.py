"""The class summary counts what happened: an untouched starter is "not started", a notebook
whose code does not run is "does not run", and only real wrong ideas are misconceptions.

Exercise 03 hands out a buggy `pack` (the break bug) to fix: handed in untouched, it holds no
idea of the student's. A syntax error leaves the function undefined: that is code that does not
run, not a function the student forgot to write.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from autograder.checks import gallery
from autograder.cohort import misconceptions
from autograder.cohort.classroom import grade_class
from autograder.run.isolation import Limits

pytestmark = pytest.mark.xdist_group("class_counts")

FAST = Limits(call_seconds=1.0, setup_seconds=5.0)
FIX, PACK = COURSE.exercise("03"), COURSE.exercise("02")
BROKEN = "def pack(parts, budget)\n    return []\n"  # a colon missing
LOOPS = "def pack(parts, budget):\n    while True:\n        pass\n"  # an endless loop
# A real wrong idea of the student's own in each (03's starter *is* the break bug).
WRONG = {FIX.name: "pack/strict_less_than", PACK.name: "pack/break_at_first_miss"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("counts")
    submitted, out = root / "submitted", root / "out"
    submit(submitted, "untouched", FIX, nbformat.read(FIX.release, as_version=4))
    submit(submitted, "broken", FIX, with_answer(FIX, BROKEN))
    submit(submitted, "wrong", FIX, with_answer(FIX, gallery.load(WRONG[FIX.name]).code))
    submit(submitted, "fixed", FIX, with_answer(FIX, None))
    submit(submitted, "untouched", PACK, nbformat.read(PACK.release, as_version=4))
    submit(submitted, "broken", PACK, with_answer(PACK, BROKEN))
    submit(submitted, "wrong", PACK, with_answer(PACK, gallery.load(WRONG[PACK.name]).code))
    submit(submitted, "fixed", PACK, with_answer(PACK, None))
    submit(submitted, "loops", PACK, with_answer(PACK, LOOPS))
    rows = grade_class(submitted, out, jobs=2, limits=FAST)
    return out, rows


def test_an_untouched_starter_is_not_started(graded):
    out, _ = graded
    data = json.loads((out / "class.json").read_text())
    for exercise in (FIX, PACK):
        entry = data[exercise.name]
        assert entry["states"] == {"not started": 1, "does not run": 1}, exercise.name
        held = gallery.load(WRONG[exercise.name]).misconception
        also = {misconceptions.TIMEOUT: 1} if exercise is PACK else {}  # the endless loop
        assert entry["misconceptions"] == {held: 1, **also}, exercise.name
        assert entry["crashed_or_missing"] == 0, exercise.name
    assert data[PACK.name]["ran_out_of_time"] == 1 and data[FIX.name]["ran_out_of_time"] == 0


def test_an_endless_loop_is_said_to_have_run_out_of_time(graded):
    out, _ = graded
    listed = (out / "misconceptions.csv").read_text()
    assert f"loops,{PACK.name},{misconceptions.TIMEOUT},\"a call ran out of time" in listed
    assert "ran-out-of-time 1 (20%)" in (out / "summary.md").read_text()
    data = json.loads((out / "class.json").read_text())
    rows = misconceptions.picture_rows(data)
    assert ("generic", "ran out of time", 1) in [row[:3] for row in rows]
    assert not any("did not run" in row[1] for row in rows)


def test_example_calls_have_something_in_them(graded):
    """The class summary's example call is the smallest one with parts and a budget above 0."""
    out, _ = graded
    data = json.loads((out / "class.json").read_text())
    for exercise in (FIX, PACK):
        held = gallery.load(WRONG[exercise.name]).misconception
        example = data[exercise.name]["found"][held]["example"]
        assert example.startswith("pack([{") and not misconceptions.degenerate(example), example


def test_the_summary_and_csv_say_so(graded):
    out, _ = graded
    markdown = (out / "summary.md").read_text()
    assert f"| {FIX.name} | 4 | 0 | 25% | 1 | strict-less-than: 1 student |" in markdown
    assert "Nothing of theirs to count: not started 1 (25%)" in markdown
    assert "does not run 1 (25%): the notebook's code did not run" in markdown
    assert "| missing |" not in markdown and "missing 1" not in markdown
    listed = (out / "misconceptions.csv").read_text()
    assert f"untouched,{FIX.name},not started" in listed
    assert f"broken,{FIX.name},does not run" in listed
    assert f"wrong,{FIX.name},strict-less-than" in listed
    assert f"untouched,{FIX.name},break-at-first-miss" not in listed


def test_the_untouched_starter_is_told_so(graded):
    out, _ = graded
    page = (outfolder.submission_folder(out, "untouched", FIX.name) / "feedback.html").read_text()
    assert "still the code the exercise was handed out with" in page
    fixed = (outfolder.submission_folder(out, "fixed", FIX.name) / "feedback.html").read_text()
    assert "handed out with" not in fixed
