"""`packlab grade --overrides FILE.csv`: corrections with a reason, applied after grading and
after the late penalty, shown to the student; a bad row is named and the others still apply."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from packlab.course.cli import main

pytestmark = pytest.mark.xdist_group("overrides")  # one class, corrected in turn

TOTAL = COURSE.exercise("01")
OPTIONS = ["--jobs", "2", "--call-seconds", "1", "--setup-seconds", "5"]
WRONG = "def total_tokens(parts):\n    return 0\n"
OVERRIDES = """student,assignment,points,score,reason
ada,01-total-tokens,-1,,Copied <b>part</b> of the answer
bo,01,+2,,"Regrade request: the test, was unfair"
cy,01-total-tokens,,2.5,Oral exam
dee,01-total-tokens,many,,typo
cy,01-total-tokens,+1,,a second row for cy
zed,01-total-tokens,1,,no such student
"""


def grade(submitted, out, capsys, *extra: str) -> tuple[dict, str]:
    assert main(["grade", str(submitted), "--out", str(out), *OPTIONS, *extra]) == 0
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {r["student"]: r for r in csv.DictReader(handle)}
    return rows, capsys.readouterr().out


@pytest.fixture(scope="module")
def corrected(tmp_path_factory):
    base = tmp_path_factory.mktemp("overrides")
    submitted, out = base / "submitted", base / "out"
    for student, code in (("ada", None), ("bo", WRONG), ("cy", WRONG), ("dee", None)):
        submit(submitted, student, TOTAL, with_answer(TOTAL, code))
    (base / "overrides.csv").write_text(OVERRIDES)
    (base / "none.csv").write_text("student,assignment,points,reason\n")
    return submitted, out, base


def page(out, student: str) -> str:
    return (outfolder.submission_folder(out, student, TOTAL.name) / "feedback.html").read_text()


def test_overrides_apply_after_grading_with_their_reason(corrected, capsys):
    submitted, out, base = corrected
    rows, said = grade(submitted, out, capsys, "--overrides", str(base / "overrides.csv"))
    got = {s: (r["raw_score"], r["score"], r["adjustment"], r["adjustment_reason"])
           for s, r in rows.items()}
    assert got == {"ada": ("3", "2", "-1", "Copied <b>part</b> of the answer"),
                   "bo": ("0", "2", "2", "Regrade request: the test, was unfair"),
                   "cy": ("0", "2.5", "2.5", "Oral exam"),
                   "dee": ("3", "3", "", "")}
    data = json.loads((outfolder.submission_folder(out, "cy", TOTAL.name)
                       / "results.json").read_text())
    assert data["score"] == 2.5 and data["extra_data"]["adjustment"]["reason"] == "Oral exam"
    assert "Adjustment by your instructor: -1 point. Reason: Copied &lt;b&gt;part&lt;/b&gt; " \
        "of the answer" in page(out, "ada")
    assert "The tests gave 3 / 3; after these, 2 / 3." in page(out, "ada")
    assert "Adjustment by your instructor: score set to 2.5. Reason: Oral exam" in page(out, "cy")


def test_bad_rows_are_named_and_the_rest_apply(corrected, capsys):
    submitted, out, base = corrected
    _, said = grade(submitted, out, capsys, "--overrides", str(base / "overrides.csv"))
    said = " ".join(said.split())
    assert "overrides.csv, line 5: points 'many' is not a number; this row was not applied" in said
    assert "overrides.csv, line 6: a second override for cy / 01-total-tokens; the one on line " \
        "4 was applied" in said
    assert "an override for zed / 01-total-tokens matches no submission" in said


def test_overrides_are_kept_until_replaced_and_never_regrade(corrected, capsys):
    submitted, out, base = corrected
    grade(submitted, out, capsys, "--overrides", str(base / "overrides.csv"))
    graded = {s: (outfolder.submission_folder(out, s, TOTAL.name) / "graded.json").stat()
              .st_mtime_ns for s in ("ada", "bo")}
    rows, _ = grade(submitted, out, capsys)  # no --overrides: the last ones stay
    assert (rows["ada"]["score"], rows["bo"]["score"]) == ("2", "2")
    rows, _ = grade(submitted, out, capsys, "--overrides", str(base / "none.csv"))
    assert (rows["ada"]["score"], rows["bo"]["score"], rows["bo"]["adjustment"]) == ("3", "0", "")
    assert "Adjustment" not in page(out, "ada")
    assert graded == {s: (outfolder.submission_folder(out, s, TOTAL.name) / "graded.json").stat()
                      .st_mtime_ns for s in ("ada", "bo")}  # the students' code never ran again


def test_a_file_without_its_columns_is_refused(corrected, capsys, tmp_path):
    submitted, out, _ = corrected
    bad = tmp_path / "bad.csv"
    bad.write_text("name,points\nada,1\n")
    assert main(["grade", str(submitted), "--out", str(out), "--overrides", str(bad)]) == 2
    assert "needs the columns student, assignment, points or score, and reason" in \
        " ".join(capsys.readouterr().out.split())
