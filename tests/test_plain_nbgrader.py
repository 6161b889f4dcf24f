"""A plain nbgrader quiz mixed into the course: `packlab grade` scores it as `nbgrader autograde`.

A throwaway course folder holds the quiz fixture (tests/fixtures/plain/quiz1: an answer cell, a
visible test cell, a test cell with a hidden block, a partial-credit test cell and a markdown
answer a person grades), released by real nbgrader, and a copy of course.toml naming it in a
[[plain]] entry (a due date and a per-day late penalty). A class hands it in; real
`nbgrader autograde` grades it, then `packlab grade` (the CLI, in its bubblewrap sandbox) grades
the same files, and every test cell's score, every total and every "needs manual grading" flag
must agree. Then the same class's late penalty, extension, grades.csv, Canvas file, bundle and
feedback pages are checked, and a resubmission is graded again by both.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from packlab.course.release import BIN, NBGRADER, nbgrader_env, release
from packlab.manifest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("plain-nbgrader")]

QUIZ = "quiz1"
FIXTURE = Path(__file__).parent / "fixtures" / "plain" / QUIZ
DUE = "2025-11-20T17:00:00+00:00"
TESTS = ("squares-visible", "squares-hidden", "squares-partial")
MANUAL = "why-answer"
HIDDEN_CODE = ("squares(5)[-1] == 16", "the last of squares(5) is 16", "squares(10)")

RIGHT = "def squares(n):\n    return [i * i for i in range(n)]"
ANSWERS = {
    "right": RIGHT,
    "wrong": "def squares(n):\n    return [i * i for i in range(1, n + 1)]",
    "hidden-fails": "def squares(n):\n    return [i * i for i in range(n)] if n < 5 else [0] * n",
    "partial": "def squares(n):\n    return [] if n == 4 else [i * i for i in range(n)]",
    "syntax-error": "def squares(n)\n    return [i * i for i in range(n)]",
    "noisy": "import sys\n\ndef squares(n):\n    print('squaring', n, file=sys.stderr)\n"
             "    return [i * i for i in range(n)]",
    "late": RIGHT,
    "extended": RIGHT,
    "resubmit": "def squares(n):\n    return [i * i for i in range(1, n + 1)]",
}
UNTIL = "2025-11-23T17:00:00+00:00"  # the extension of student "extended"
LATE = "2025-11-22 18:00:00.000000 UTC"  # 2 days and 1 hour after the due date
ON_TIME = "2025-11-19 09:00:00.000000 UTC"
# "second-late" hands in on time (the hidden test fails: 3 of 7), then right but late (5 of 7,
# minus 3 days × 10 % × 7 = 2.9): `latest` counts the late one, `on-time` the on-time one.
SECOND_LATE = {"first": ANSWERS["hidden-fails"], "again": RIGHT}


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def notebook(course: Path, answer: str | None, why: str | None = None,
             deleted: str | None = None, edited: str | None = None):
    """The released quiz with ``answer`` in its answer cell (None: as released), ``why`` as
    the written answer, the test cell ``deleted`` removed and ``edited`` made to pass."""
    nb = nbformat.read(course / "exercises" / QUIZ / f"{QUIZ}.ipynb", as_version=4)
    for cell in nb.cells:
        if grade_id(cell) == "squares-answer" and answer is not None:
            cell.source = answer
        if grade_id(cell) == MANUAL and why is not None:
            cell.source = why
        if grade_id(cell) == edited:
            cell.source = "pass"
    nb.cells = [c for c in nb.cells if grade_id(c) != deleted]
    return nb


def hand_in(course: Path, student: str, nb, timestamp: str | None = None) -> None:
    folder = course / "submitted" / student / QUIZ
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{QUIZ}.ipynb")
    if timestamp:
        (folder / "timestamp.txt").write_text(timestamp, encoding="utf-8")


def the_class(course: Path) -> None:
    for student, answer in ANSWERS.items():
        hand_in(course, student, notebook(course, answer),
                LATE if student in ("late", "extended") else None)
    hand_in(course, "second-late", notebook(course, SECOND_LATE["first"]), ON_TIME)
    hand_in(course, "blank", notebook(course, None))
    hand_in(course, "manual", notebook(course, RIGHT, why="Because range(0) is empty."))
    hand_in(course, "deleted-test", notebook(course, ANSWERS["wrong"], deleted="squares-visible"))
    hand_in(course, "edited-test", notebook(course, ANSWERS["wrong"], edited="squares-visible"))


def plain_course(folder: Path) -> Path:
    """A course folder with the quiz, released by nbgrader, and a course.toml naming it."""
    shutil.copytree(FIXTURE, folder / "solutions" / QUIZ)
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    toml = (ROOT / "course.toml").read_text(encoding="utf-8")
    toml += f'\n[[plain]]\nname = "{QUIZ}"\ndue = "{DUE}"\nlate_policy = {{ per_day = 0.1 }}\n'
    (folder / "course.toml").write_text(toml, encoding="utf-8")
    release(QUIZ, folder)
    return folder


def env(course: Path) -> dict[str, str]:
    return {**nbgrader_env(), "PACKLAB_COURSE_TOML": str(course / "course.toml")}


def packlab(course: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "packlab"), *args], cwd=course, env=env(course),
                          capture_output=True, text=True, timeout=600)


def autograde(course: Path, *args: str) -> None:
    done = subprocess.run([str(NBGRADER), "autograde", QUIZ, "--force",
                           "--Autograde.create_student=True", *args], cwd=course,
                          env=nbgrader_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def nbgrader_grades(course: Path) -> dict[str, dict]:
    """Per student: nbgrader's score of each graded cell, its manual flags and its total."""
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
        for submission in gb.assignment_submissions(QUIZ):
            grades = {g.name: g for g in submission.notebooks[0].grades}
            found[submission.student.id] = {
                # auto scores: packlab's late penalty is extra credit on top; a deleted
                # test cell has none (None: left ungraded)
                "cells": {name: grades[name].auto_score for name in TESTS},
                "manual": grades[MANUAL].needs_manual_grade,
                "manual_score": grades[MANUAL].score,
                "total": submission.score}
    return found


def formgrader(course: Path, student: str, points: float) -> None:
    """What a grader does in formgrader: a manual score for the student's written answer."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
        grade = gb.find_grade(MANUAL, QUIZ, QUIZ, student)
        grade.manual_score = points
        grade.needs_manual_grade = False
        gb.db.commit()


def packlab_grades(out: Path, student: str) -> dict:
    data = json.loads((out / "students" / student / QUIZ / "results.json").read_text())
    return {"cells": {t["group"]: test["score"] for t, test in
                      zip(data["extra_data"]["groups"], data["tests"], strict=True)},
            "raw": data["extra_data"]["raw_score"], "notes": data["extra_data"]["notes"],
            "score": data["score"], "data": data}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded by nbgrader, then by packlab; then a resubmission graded by both (and a
    grader's manual score from formgrader, read by that run); then the quiz's counted attempt
    changed to the on-time one, graded once more."""
    course = plain_course(tmp_path_factory.mktemp("plain") / "course")
    the_class(course)
    autograde(course)
    first = nbgrader_grades(course)
    extended = packlab(course, "extend", QUIZ, "extended", "--until", UNTIL)
    assert extended.returncode == 0, extended.stdout + extended.stderr
    done = packlab(course, "grade", "submitted", "--out", "out")
    assert done.returncode == 0, done.stdout + done.stderr
    book = nbgrader_grades(course)  # after packlab wrote its scores into the same gradebook
    hand_in(course, "resubmit", notebook(course, RIGHT))
    hand_in(course, "second-late", notebook(course, SECOND_LATE["again"]), LATE)
    autograde(course, "--student", "resubmit")
    again = nbgrader_grades(course)["resubmit"]
    formgrader(course, "manual", 1.5)  # a grader marks the written answer between two runs
    regraded = packlab(course, "grade", "submitted", "--out", "out")
    assert regraded.returncode == 0, regraded.stdout + regraded.stderr
    latest = rows(course)["second-late"]
    with open(course / "course.toml", "a", encoding="utf-8") as toml:
        toml.write('counts = "on-time"\n')  # in the quiz's [[plain]] entry, the file's last
    on_time = packlab(course, "grade", "submitted", "--out", "out")
    assert on_time.returncode == 0, on_time.stdout + on_time.stderr
    return {"course": course, "nbgrader": first, "book": book, "again": again,
            "stdout": done.stdout, "regraded": regraded.stdout,
            "counted": {"latest": latest, "on-time": rows(course)["second-late"]},
            "on-time run": on_time.stdout}


STUDENTS = [*ANSWERS, "blank", "manual", "deleted-test", "edited-test", "second-late"]


@pytest.mark.parametrize("student", [s for s in STUDENTS
                                     if s not in ("resubmit", "second-late")])
def test_packlab_scores_each_test_cell_as_nbgrader(graded, student):
    ours = packlab_grades(graded["course"] / "out", student)
    theirs = graded["nbgrader"][student]
    assert {t: ours["cells"].get(t) for t in TESTS} == theirs["cells"], \
        (student, ours["notes"])
    assert ours["cells"].get(MANUAL, 0) == theirs["manual_score"]  # 0: blank, or not yet graded
    assert ours["raw"] == pytest.approx(theirs["total"])


def test_the_class_covers_every_kind_of_score(graded):
    """The comparison is not vacuous: full, none, partial, a hidden failure, stderr."""
    theirs = graded["nbgrader"]
    assert theirs["right"]["cells"] == {"squares-visible": 2, "squares-hidden": 2,
                                        "squares-partial": 1}
    assert theirs["partial"]["cells"]["squares-partial"] == 0.75
    assert theirs["hidden-fails"]["cells"] == {"squares-visible": 2, "squares-hidden": 0,
                                               "squares-partial": 1}
    assert theirs["noisy"]["total"] == 0  # a test cell that writes to stderr scores 0
    assert theirs["wrong"]["total"] == theirs["syntax-error"]["total"] == 0
    assert theirs["edited-test"]["cells"]["squares-visible"] == 0


def test_manual_answers_wait_for_formgrader(graded):
    theirs, book = graded["nbgrader"], graded["book"]
    assert theirs["manual"]["manual"] and not theirs["blank"]["manual"]
    assert book["manual"]["manual"], "packlab's write to the gradebook kept the manual flag"
    assert not book["blank"]["manual"] and book["blank"]["manual_score"] == 0
    notes = " ".join(packlab_grades(graded["course"] / "out", "manual")["notes"])
    assert "`why-answer` (2 points) needs manual grading" in notes
    blank = " ".join(packlab_grades(graded["course"] / "out", "blank")["notes"])
    assert "`why-answer` (2 points) is blank as released: 0" in blank


def test_packlab_wrote_the_same_scores_into_the_gradebook(graded):
    for student, theirs in graded["nbgrader"].items():
        if student in ("resubmit", "second-late"):
            continue
        assert graded["book"][student]["cells"] == theirs["cells"], student


def test_a_rerun_grades_again_only_the_resubmissions(graded):
    said = " ".join(graded["regraded"].split())
    assert "Graded again: 2 (2 " in said, said
    assert "Graded again" not in " ".join(graded["on-time run"].split())  # counts: no regrade


def test_counts_picks_the_attempt_of_a_plain_quiz(graded):
    """An on-time hand-in, then a better one late: `latest` (the course's) counts the late
    one, `on-time` (set in the quiz's [[plain]] entry) the on-time one, through `packlab grade`."""
    latest, on_time = graded["counted"]["latest"], graded["counted"]["on-time"]
    assert latest["raw_score"] == "5" and float(latest["score"]) == pytest.approx(5 - 2.1)
    assert latest["late_days"] == "3"
    assert float(on_time["score"]) == 3, on_time  # the on-time attempt's 3, no penalty
    counted = packlab_grades(graded["course"] / "out", "second-late")["data"]["extra_data"]
    assert counted["counted"]["policy"] == "on-time" and counted["counted"]["chosen"] == 0
    assert [a["raw"] for a in counted["counted"]["attempts"]] == [3, 5]


def test_a_resubmission_is_graded_again_by_both(graded):
    ours = packlab_grades(graded["course"] / "out", "resubmit")
    assert graded["nbgrader"]["resubmit"]["total"] == 0
    assert {t: ours["cells"][t] for t in TESTS} == pytest.approx(graded["again"]["cells"])
    assert ours["raw"] == graded["again"]["total"] == 7 - 2  # the manual answer not yet graded


def rows(course: Path) -> dict[str, dict]:
    with open(course / "out" / "grades.csv", newline="", encoding="utf-8") as handle:
        return {r["student"]: r for r in csv.DictReader(handle) if r["assignment"] == QUIZ}


def test_late_policy_and_extension_apply_to_a_plain_assignment(graded):
    found = rows(graded["course"])
    assert found["late"]["late_days"] == "3" and found["late"]["raw_score"] == "5"
    assert float(found["late"]["score"]) == pytest.approx(5 - 3 * 0.1 * 7)
    assert found["extended"]["late_days"] in ("", "0") and found["extended"]["score"] == "5"
    assert found["extended"]["due"] == UNTIL


def test_grades_csv_says_the_trust_it_was_graded_at(graded):
    found = rows(graded["course"])
    assert "nbgrader" in found["right"]["reason"] and "trustworthy" in found["right"]["reason"]
    assert found["right"]["sandbox"] == "bubblewrap"
    assert found["syntax-error"]["reason"].startswith("cell 2 raised SyntaxError")
    assert found["syntax-error"]["reason"].endswith("only as trustworthy as nbgrader's")


def test_canvas_file_and_bundle_hold_the_quiz(graded, tmp_path):
    course = graded["course"]
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n" + "".join(f"{s},{s.title()},{s}@example.org\n"
                                                  for s in STUDENTS), encoding="utf-8")
    export = packlab(course, "export", "out", "--roster", str(roster), "--lms", "canvas",
                     "--to", str(tmp_path / "canvas.csv"))
    assert export.returncode == 0, export.stdout + export.stderr
    header, *lines = (tmp_path / "canvas.csv").read_text(encoding="utf-8").splitlines()
    assert QUIZ in header
    bundle = packlab(course, "bundle", "out", "--to", str(tmp_path / "bundles"))
    assert bundle.returncode == 0, bundle.stdout + bundle.stderr
    assert QUIZ in (tmp_path / "bundles" / "right" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("student", ["hidden-fails", "wrong", "blank", "syntax-error"])
def test_feedback_never_shows_hidden_test_code(graded, student):
    folder = graded["course"] / "out" / "students" / student / QUIZ
    for name in ("feedback.html", "results.json"):
        text = (folder / name).read_text(encoding="utf-8")
        for code in HIDDEN_CODE:
            assert code not in text, (student, name, code)
    page = (folder / "feedback.html").read_text(encoding="utf-8")
    autograded = graded["course"] / "autograded" / student / QUIZ / f"{QUIZ}.ipynb"
    assert not any(code in autograded.read_text(encoding="utf-8") for code in HIDDEN_CODE)
    if student == "hidden-fails":
        assert "a hidden test in test cell `squares-hidden` failed" in page


def test_feedback_shows_a_visible_test_s_failing_line_and_message(graded):
    page = (graded["course"] / "out" / "students" / "wrong" / QUIZ / "feedback.html").read_text(
        encoding="utf-8")
    assert "assert squares(3) == [0, 1, 4]" in page
    assert "AssertionError: squares(3) should be [0, 1, 4]" in page


def test_an_edited_or_deleted_test_cell_gains_nothing(graded):
    edited = packlab_grades(graded["course"] / "out", "edited-test")
    assert edited["cells"]["squares-visible"] == 0
    assert any("`squares-visible` had been edited" in n for n in edited["notes"])
    deleted = packlab_grades(graded["course"] / "out", "deleted-test")
    assert "squares-visible" not in deleted["cells"]  # left ungraded, as nbgrader leaves it
    assert graded["nbgrader"]["deleted-test"]["cells"]["squares-visible"] is None
    assert any("`squares-visible` was missing" in n and "ungraded" in n
               for n in deleted["notes"])


def test_the_summary_names_the_quiz_and_its_trust_level(graded):
    summary = (graded["course"] / "out" / "summary.md").read_text(encoding="utf-8")
    assert "| quiz1 |" in summary
    assert "Plain nbgrader assignment quiz1: graded at nbgrader's trust level" in summary
    assert "graded at nbgrader's trust level" in " ".join(graded["stdout"].split())
    assert os.path.exists(graded["course"] / "out" / "class.png")


def test_a_manual_grade_from_formgrader_counts_in_grades_csv(graded):
    row = rows(graded["course"])["manual"]
    assert row["manual"] == "1.5" and float(row["score"]) == 5 + 1.5, row
