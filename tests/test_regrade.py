"""`packlab grade --student/--assignment/--group` regrades just those, keeps every other result
and file, and writes grades.csv again from all of them."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from autograder.checks import gallery
from packlab.course.cli import main

pytestmark = pytest.mark.xdist_group("regrade")  # one class, regraded in turn

TOTAL, PACK = COURSE.exercise("01"), COURSE.exercise("02")
OPTIONS = ["--jobs", "2", "--call-seconds", "1", "--setup-seconds", "5"]
BREAK = gallery.load("pack/break_at_first_miss").code  # fails every test group
WRONG_TOTAL = "def total_tokens(parts):\n    return 0\n"


def grade(submitted, out, *extra: str) -> dict:
    assert main(["grade", str(submitted), "--out", str(out), *OPTIONS, *extra]) == 0
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {(r["student"], r["assignment"]): r for r in csv.DictReader(handle)}


def stamps(out) -> dict:
    """Every submission file's modification time (to see what was written again)."""
    return {p.relative_to(out): p.stat().st_mtime_ns for p in (out / "students").rglob("*")
            if p.is_file()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """ada and bo hand in wrong answers; then everyone's notebooks are put right."""
    base = tmp_path_factory.mktemp("regrade")
    submitted, out = base / "submitted", base / "out"
    for student in ("ada", "bo"):
        submit(submitted, student, TOTAL, with_answer(TOTAL, WRONG_TOTAL))
        submit(submitted, student, PACK, with_answer(PACK, BREAK))
    first = grade(submitted, out)
    for student in ("ada", "bo"):  # the grader is not told: only a regrade sees it
        submit(submitted, student, TOTAL, with_answer(TOTAL, None))
        submit(submitted, student, PACK, with_answer(PACK, None))
    return submitted, out, first


def scores(rows: dict) -> dict:
    return {key: row["score"] for key, row in rows.items()}


def test_regrade_one_student_keeps_the_rest(graded):
    submitted, out, first = graded
    assert scores(first) == {("ada", TOTAL.name): "0", ("ada", PACK.name): "0",
                             ("bo", TOTAL.name): "0", ("bo", PACK.name): "0"}
    before = stamps(out)
    rows = grade(submitted, out, "--student", "bo", "--assignment", "01")
    assert scores(rows) == {**scores(first), ("bo", TOTAL.name): "3"}
    after = stamps(out)
    changed = {path.parts[1:3] for path in after if after[path] != before.get(path)}
    assert changed == {("bo", TOTAL.name)}


def test_regrade_one_test_group_keeps_the_others(graded):
    submitted, out, _ = graded
    rows = grade(submitted, out, "--student", "ada", "--assignment", PACK.name,
                 "--group", "edge-cases")
    # edge cases now pass (2 points); the other groups were not run again: still failing
    assert rows["ada", PACK.name]["score"] == "2"
    data = json.loads((outfolder.submission_folder(out, "ada", PACK.name)
                       / "results.json").read_text())
    assert [(t["name"], t["score"]) for t in data["tests"]] == [
        ("Visible tests", 0), ("Hidden tests: edge cases", 2), ("Hidden tests: properties", 0)]
    assert rows["ada", TOTAL.name]["score"] == "0" and rows["bo", PACK.name]["score"] == "0"


def test_a_regrade_rewrites_the_class_files(graded):
    submitted, out, _ = graded
    rows = grade(submitted, out, "--assignment", PACK.name)
    assert rows["ada", PACK.name]["score"] == rows["bo", PACK.name]["score"] == "5"
    assert rows["ada", TOTAL.name]["score"] == "0"  # not regraded
    summary = (out / "summary.md").read_text()
    assert f"| {PACK.name} | 2 | 0 | 100% | 2 |" in summary


def test_an_unknown_student_is_refused(graded, capsys):
    submitted, out, _ = graded
    assert main(["grade", str(submitted), "--out", str(out), "--student", "nobody"]) == 2
    assert "--student takes a folder name" in " ".join(capsys.readouterr().out.split())
