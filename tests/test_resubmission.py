"""A result belongs to the exact notebook it graded, and the grader that graded it.

A plain `packlab grade SUBMITTED --out OUT` rerun grades again a submission whose notebook
bytes changed (nbgrader's `collect --update`), one graded by another grader (its suites or
hidden tests changed) and one handed in since; it says how many and why, and keeps each
earlier score and time in the submission's record. Everything else is left as it was.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from autograder.cohort import record
from packlab.course.cli import main

pytestmark = pytest.mark.xdist_group("resubmission")

TOTAL = COURSE.exercise("01")
OPTIONS = ["--jobs", "2", "--call-seconds", "1", "--setup-seconds", "5"]
WRONG = "def total_tokens(parts):\n    return 0\n"


def grade(submitted, out, capsys) -> tuple[dict, str]:
    main(["grade", str(submitted), "--out", str(out), *OPTIONS])
    said = " ".join(capsys.readouterr().out.split())
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {r["student"]: r for r in csv.DictReader(handle)}, said


def stamps(out, student) -> dict:
    folder = out / "students" / student
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def graded_json(out, student) -> dict:
    path = outfolder.submission_folder(out, student, TOTAL.name) / record.RECORD
    return json.loads(path.read_text())


def test_a_changed_notebook_is_graded_again_and_its_history_kept(tmp_path, capsys):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    for student in ("ada", "bo"):
        submit(submitted, student, TOTAL, with_answer(TOTAL, WRONG))
        (submitted / student / TOTAL.name / "timestamp.txt").write_text(
            "2026-11-30 09:00:00.000000 UTC\n")
    (submitted / "cy" / TOTAL.name).mkdir(parents=True)  # cy's notebook is not there yet
    first, _ = grade(submitted, out, capsys)
    assert first["ada"]["score"] == first["bo"]["score"] == "0"
    assert first["cy"]["reason"].startswith("no notebook called")
    old = graded_json(out, "ada")
    assert old["notebook_sha256"] and old["grader"] and old["history"] == []

    # ada hands in again (collect --update), and cy hands in for the first time.
    submit(submitted, "ada", TOTAL, with_answer(TOTAL, None))
    (submitted / "ada" / TOTAL.name / "timestamp.txt").write_text(
        "2026-11-30 11:00:00.000000 UTC\n")
    submit(submitted, "cy", TOTAL, with_answer(TOTAL, None))
    bo_before = stamps(out, "bo")
    rows, said = grade(submitted, out, capsys)
    assert rows["ada"]["score"] == rows["cy"]["score"] == str(TOTAL.max_score)
    assert rows["ada"]["submitted_at"] == "2026-11-30T11:00:00+00:00"
    assert rows["bo"]["score"] == "0" and stamps(out, "bo") == bo_before  # not graded again
    assert "Graded again: 2 (2 changed notebook)" in said, said
    new = graded_json(out, "ada")
    assert new["notebook_sha256"] != old["notebook_sha256"]
    assert new["history"] == [{"score": 0, "error": None, "graded_at": old["graded_at"],
                               "notebook": old["notebook_sha256"], "why": "changed notebook",
                               "submitted_at": "2026-11-30T09:00:00+00:00", "late_penalty": 0,
                               "late_days": None, "flag": ""}]

    # A plain rerun with nothing changed grades nothing, and shows no progress bar at 0 %.
    _, said = grade(submitted, out, capsys)
    assert "Graded again" not in said and "━" not in said, said
    assert graded_json(out, "ada")["history"] == new["history"]
    assert first["cy"]["sandbox"] == ""  # nothing of cy's ran: no sandbox to name


def test_a_result_from_another_grader_is_graded_again(tmp_path, capsys):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", TOTAL, with_answer(TOTAL, None))
    grade(submitted, out, capsys)
    path = outfolder.submission_folder(out, "ada", TOTAL.name) / record.RECORD
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "grader": "an older grader"}))  # as if suites changed
    rows, said = grade(submitted, out, capsys)
    assert rows["ada"]["score"] == str(TOTAL.max_score)
    assert "Graded again: 1 (1 new grader)" in said, said
    assert graded_json(out, "ada")["history"][0]["why"] == "new grader"


def test_the_grader_fingerprint_follows_the_suites_source(monkeypatch, tmp_path):
    import inspect

    from autograder.checks.suites import total_tokens

    before = record.grader_fingerprint(TOTAL.name)
    assert before and record.grader_fingerprint(COURSE.exercise("02").name) != before
    edited, real = tmp_path / "total_tokens.py", inspect.getfile
    edited.write_text(Path(real(total_tokens)).read_text() + "\n# a new check\n")
    monkeypatch.setattr(inspect, "getfile",
                        lambda module: str(edited) if module is total_tokens else real(module))
    record.grader_fingerprint.cache_clear()
    try:
        assert record.grader_fingerprint(TOTAL.name) != before
    finally:
        monkeypatch.undo()
        record.grader_fingerprint.cache_clear()
    assert record.grader_fingerprint(TOTAL.name) == before


def test_the_digest_takes_regular_files_only(tmp_path):
    import os

    (tmp_path / "a.ipynb").write_bytes(b"{}")
    os.symlink(tmp_path / "a.ipynb", tmp_path / "link.ipynb")
    os.mkfifo(tmp_path / "fifo.ipynb")
    assert record.digest(tmp_path / "a.ipynb")
    assert record.digest(tmp_path / "link.ipynb") is None
    assert record.digest(tmp_path / "fifo.ipynb") is None  # never blocks
    assert record.digest(None) is None


def test_a_rerun_that_grades_nothing_shows_no_progress_bar(tmp_path, capsys):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", TOTAL, with_answer(TOTAL, None))
    _, said = grade(submitted, out, capsys)
    assert "Grading" in said and "100%" in said
    _, said = grade(submitted, out, capsys)  # only the reports are written again
    assert "Grading" not in said and "━" not in said, said  # no bar stuck at 0 %
