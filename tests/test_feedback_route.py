"""The term's whole feedback route, through a real nbgrader exchange folder.

The instructor releases 02-greedy-pack to the exchange; a student fetches it, writes an answer
(the break bug) and submits; the instructor collects, grades with `packlab grade`, puts the
roster into the gradebook, gives the student a manual grade in the gradebook, then runs
`nbgrader generate_feedback` and `nbgrader release_feedback`; the student's own
`nbgrader fetch_feedback` brings back a page with the gradebook's total. (`release_feedback`
used to fail: autograded/ lacked the timestamp.txt and submission_secret.txt it needs.)
"""

from __future__ import annotations

import csv
import html
import json
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE

from autograder.checks import gallery
from packlab.course.release import NBGRADER, nbgrader_env
from packlab.manifest import ROOT

EXERCISE = COURSE.exercise("02-greedy-pack")
STUDENT = pwd.getpwuid(__import__("os").getuid()).pw_name  # nbgrader's student id: the OS user
MANUAL = 1.5  # points a grader gives the student's properties cell in the gradebook

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("feedback_route"),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def run(*command: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(list(command), cwd=cwd, env={**nbgrader_env(), "COLUMNS": "500"},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), f"{command[:3]} failed:\n{done.stdout}\n{done.stderr}"
    return done


def nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = run(str(NBGRADER), *args, cwd=cwd)
    assert done.returncode == 0, f"nbgrader {args[0]} failed:\n{done.stderr[-4000:]}"
    return done


def packlab(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run(sys.executable, "-m", "packlab.course.cli", *args, cwd=cwd)


def gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab")


@pytest.fixture(scope="module")
def term(tmp_path_factory, released_greedy_pack) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("route")
    course, home, exchange, cache = (base / name for name in ("course", "home", "exchange",
                                                              "cache"))
    shutil.copytree(released_greedy_pack, course)  # nbgrader released 02-greedy-pack alone
    for folder in (home, exchange, cache):
        folder.mkdir()
    config = (ROOT / "nbgrader_config.py").read_text()
    (course / "nbgrader_config.py").write_text(config + f"\nc.Exchange.root = {str(exchange)!r}\n")
    nbgrader("release_assignment", EXERCISE.name, cwd=course)

    student = ["--CourseDirectory.course_id=packlab", f"--Exchange.root={exchange}",
               f"--Exchange.cache={cache}"]
    nbgrader("fetch_assignment", EXERCISE.name, *student, cwd=home)
    path = home / EXERCISE.name / f"{EXERCISE.name}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == EXERCISE.grade_id("answer"):
            cell.source = gallery.load("pack/break_at_first_miss").code
    nbformat.write(notebook, path)
    nbgrader("submit", EXERCISE.name, *student, cwd=home)
    nbgrader("collect", EXERCISE.name, cwd=course)
    return {"course": course, "home": home, "student": student}


def test_the_feedback_route_reaches_the_student_with_the_gradebooks_total(term):
    course, home = term["course"], term["home"]
    handed_in = course / "submitted" / STUDENT / EXERCISE.name
    assert (handed_in / "timestamp.txt").is_file()
    assert (handed_in / "submission_secret.txt").is_file()

    graded = packlab("grade", str(course / "submitted"), "--out", str(course / "graded"),
                     cwd=course.parent)
    assert "Not written" not in graded.stdout, graded.stdout
    autograded = course / "autograded" / STUDENT / EXERCISE.name
    for name in ("timestamp.txt", "submission_secret.txt"):  # as nbgrader autograde copies them
        assert (autograded / name).read_bytes() == (handed_in / name).read_bytes(), name

    with gradebook(course) as gb:  # a grader gives a manual score in formgrader
        gb.find_grade(EXERCISE.grade_id("properties"), EXERCISE.name, EXERCISE.name,
                      STUDENT).manual_score = MANUAL
        gb.db.commit()
    packlab("grade", str(course / "submitted"), "--out", str(course / "graded"),
            cwd=course.parent)
    with open(course / "graded" / "grades.csv", newline="", encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["assignment"] == EXERCISE.name)
    with gradebook(course) as gb:
        total = gb.find_submission(EXERCISE.name, STUDENT).score
    assert float(row["score"]) == total and float(row["manual"]) == MANUAL
    assert total == float(row["raw_score"]) + MANUAL

    nbgrader("generate_feedback", EXERCISE.name, cwd=course)
    nbgrader("release_feedback", EXERCISE.name, cwd=course)
    nbgrader("fetch_feedback", EXERCISE.name, *term["student"], cwd=home)
    pages = list((home / EXERCISE.name / "feedback").glob(f"*/{EXERCISE.name}.html"))
    assert len(pages) == 1, pages
    text = html.unescape(re.sub(r"<[^>]+>", "", pages[0].read_text(encoding="utf-8")))
    assert f"Score: {total:.1f} / {EXERCISE.max_score:.1f}" in text
    assert "no `break`" in text and "BEGIN HIDDEN TESTS" not in text
    results = json.loads((course / "graded" / "students" / STUDENT / EXERCISE.name /
                          "results.json").read_text())
    assert results["score"] == total


def test_the_roster_puts_names_and_emails_into_the_gradebook(term, tmp_path):
    course = term["course"]
    roster = tmp_path / "roster.csv"
    roster.write_text(f"id,name,email\n{STUDENT},Ada King Lovelace,ada@example.org\n"
                      "bo,Bo,bo@example.org\n")
    done = packlab("roster", str(roster), "--course", str(course), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "added 1 and updated 1 students' names and emails" in done.stdout, done.stdout
    with gradebook(course) as gb:
        listed = {s.id: (s.last_name, s.first_name, s.email) for s in gb.students}
    assert listed[STUDENT] == ("Lovelace", "Ada King", "ada@example.org")
    assert listed["bo"] == ("Bo", None, "bo@example.org")
    nbgrader("export", cwd=course)
    with open(course / "grades.csv", newline="", encoding="utf-8") as handle:
        exported = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert (exported[STUDENT]["last_name"], exported[STUDENT]["email"]) == \
        ("Lovelace", "ada@example.org")
