"""`packlab grade` writes its sandboxed scores into nbgrader's own gradebook.

One throwaway nbgrader course for the module: nbgrader releases 02-greedy-pack; ada hands in the
reference answer (with nbgrader's timestamp.txt) and also 01-total-tokens, which this course never
released; bo hands in the `break` bug, after a grader already gave one of his cells a manual
score and another extra credit; cy hands in a file that is not a notebook, and has extra credit
from formgrader too. The instructor's overrides take a point from ada and give bo half of one.
`packlab grade` runs sandboxed from outside the course folder. Then real `nbgrader export` must
give grades.csv's totals, and real `nbgrader generate_feedback` must render the feedback from
what packlab wrote.
"""

from __future__ import annotations

import contextlib
import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, submit, with_answer
from hypothesis import given
from hypothesis import strategies as st
from test_escaping import formula_cells

from autograder.checks import gallery
from packlab.course.release import NBGRADER, nbgrader_env

EXERCISE = COURSE.exercise("02-greedy-pack")
UNRELEASED = COURSE.exercise("01-total-tokens")
STAMP = "2026-11-30 09:15:00.000000 UTC"
MANUAL = ("pack-edge-cases", 1.5)  # a grader's score for one of bo's cells, set before grading
FIRST = EXERCISE.grade_id("visible")  # where packlab writes an override, as extra credit
OVERRIDES = ("student,assignment,points,score,reason\n"
             f"ada,{EXERCISE.name},-1,,Copied the handout's example <b>without</b> credit\n"
             f"bo,{EXERCISE.name},0.5,,Explained the fix in office hours\n")
FORMGRADER = {"bo": 2.0, "cy": 1.0}  # extra credit a grader typed into FIRST before grading

# One course folder for the module: its tests run in one worker under `--dist loadgroup`.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("gradebook"),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]  # nbgrader's own


def packlab(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "packlab.course.cli", *args], cwd=cwd,
                          env={**nbgrader_env(), "COLUMNS": "500"}, capture_output=True,
                          text=True, timeout=600)


def nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([str(NBGRADER), *args], cwd=cwd, env=nbgrader_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"nbgrader {args[0]} failed:\n{done.stderr[-4000:]}"
    return done


def gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab")


def csv_rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def course(tmp_path_factory, released_greedy_pack) -> Path:
    """The course folder, graded by `packlab grade` (its output in course/grade.log)."""
    course = tmp_path_factory.mktemp("gradebook") / "course"
    shutil.copytree(released_greedy_pack, course)  # nbgrader released 02-greedy-pack alone

    submitted = course / "submitted"
    submit(submitted, "ada", EXERCISE, with_answer(EXERCISE, None))
    (submitted / "ada" / EXERCISE.name / "timestamp.txt").write_text(STAMP + "\n")
    submit(submitted, "ada", UNRELEASED, with_answer(UNRELEASED, None))
    submit(submitted, "bo", EXERCISE,
           with_answer(EXERCISE, gallery.load("pack/break_at_first_miss").code))
    submit(submitted, "cy", EXERCISE, "{ this is not a notebook")

    with gradebook(course) as gb:  # a grader got to bo and cy first
        for student, extra in FORMGRADER.items():
            gb.update_or_create_student(student)
            gb.update_or_create_submission(EXERCISE.name, student)
            gb.find_grade(FIRST, EXERCISE.name, EXERCISE.name, student).extra_credit = extra
        gb.find_grade(MANUAL[0], EXERCISE.name, EXERCISE.name, "bo").manual_score = MANUAL[1]
        gb.db.commit()

    (course / "overrides.csv").write_text(OVERRIDES)
    done = packlab("grade", str(submitted), "--out", str(course / "graded"), "--jobs", "2",
                   "--overrides", str(course / "overrides.csv"), cwd=course.parent)
    (course / "grade.log").write_text(done.stdout + done.stderr)
    assert "Not written" not in done.stdout, done.stdout
    return course


def group_points(course: Path, student: str) -> dict[str, float]:
    """grade_id -> points, from the results.json packlab wrote."""
    data = json.loads((course / "graded" / "students" / student / EXERCISE.name /
                       "results.json").read_text())
    return {EXERCISE.grade_id(g["group"]): t["score"]
            for g, t in zip(data["extra_data"]["groups"], data["tests"], strict=True)}


def test_the_gradebook_holds_packlabs_scores(course):
    ours = {(r["student"], r["assignment"]): r for r in csv_rows(course / "graded" / "grades.csv")}
    assert ours["cy", EXERCISE.name]["status"] == "not graded"
    assert "not valid notebook JSON" in ours["cy", EXERCISE.name]["reason"]
    with gradebook(course) as gb:
        for student in ("ada", "bo", "cy"):
            submission = gb.find_submission(EXERCISE.name, student)
            assert submission.max_score == EXERCISE.max_score
            points = group_points(course, student) if student != "cy" else {}
            for group in EXERCISE.points:
                grade_id = EXERCISE.grade_id(group)
                grade = gb.find_grade(grade_id, EXERCISE.name, EXERCISE.name, student)
                assert grade.auto_score == points.get(grade_id, 0), (student, grade_id)
                assert grade.needs_manual_grade == ((student, grade_id) == ("bo", MANUAL[0]))
            # formgrader's total is grades.csv's: manual grades and extra credit included
            assert submission.score == float(ours[student, EXERCISE.name]["score"]), student
            assert submission.late_submission_penalty == 0, student
        assert gb.find_submission(EXERCISE.name, "ada").score == EXERCISE.max_score - 1
        assert gb.find_submission(EXERCISE.name, "ada").timestamp.isoformat().startswith(
            "2026-11-30T09:15:00")
        assert gb.find_submission(EXERCISE.name, "bo").timestamp is None
        # The grader's score stands (and is flagged for review); ours is the auto score.
        edge = gb.find_grade(MANUAL[0], EXERCISE.name, EXERCISE.name, "bo")
        assert (edge.manual_score, edge.score) == (MANUAL[1], MANUAL[1])
        assert edge.auto_score == 0 < MANUAL[1]
        # The overrides are extra credit on the first test cell, beside a grader's own there.
        extra = {student: gb.find_grade(FIRST, EXERCISE.name, EXERCISE.name, student).extra_credit
                 for student in ("ada", "bo", "cy")}
        assert extra == {"ada": -1, "bo": FORMGRADER["bo"] + 0.5, "cy": FORMGRADER["cy"]}
    # grades.csv says what graders gave in the gradebook.
    bo, cy = ours["bo", EXERCISE.name], ours["cy", EXERCISE.name]
    assert (bo["manual"], bo["extra_credit"], bo["adjustment"]) == ("1.5", "2", "0.5")
    assert float(bo["score"]) == float(bo["raw_score"]) + 0.5 + MANUAL[1] + FORMGRADER["bo"]
    assert (cy["score"], cy["extra_credit"], cy["manual"]) == ("1", "1", "0")

    log = (course / "grade.log").read_text()
    assert re.search(rf"Gradebook {re.escape(str(course / 'gradebook.db'))} \(course packlab\): "
                     r"wrote 9 test cell scores for 3 submissions \(1 with the time in their "
                     r"timestamp\.txt\), and added 1 student\.", log), log
    assert "Wrote 2 corrections (late penalties and overrides) as extra credit on the " \
        "submission's first test cell" in log, log
    said = " ".join(log.split())
    assert ("Counted in grades.csv, the feedback and the exports, what graders gave in the "
            f"gradebook: bo/{EXERCISE.name}: Graded by hand by your instructor: manual grading "
            f"+1.5 points, extra credit +2 points.; cy/{EXERCISE.name}: Graded by hand by your "
            "instructor: extra credit +1 point.") in said, said
    assert "Wrote 3 autograded notebooks for `nbgrader generate_feedback`." in log
    assert f"left out: {UNRELEASED.name} (run `nbgrader generate_assignment" in log, log


def test_every_autograded_notebook_packlab_wrote_is_valid(course):
    """They are written without nbformat's own check (it only logs): they must pass it."""
    written = sorted((course / "autograded").rglob("*.ipynb"))
    assert len(written) == 3
    for path in written:
        nbformat.validate(nbformat.read(path, as_version=4))

def test_nbgrader_export_gives_the_totals_of_grades_csv(course):
    nbgrader("export", cwd=course)
    exported = {r["student_id"]: r for r in csv_rows(course / "grades.csv")
                if r["assignment"] == EXERCISE.name}
    ours = {r["student"]: r for r in csv_rows(course / "graded" / "grades.csv")
            if r["assignment"] == EXERCISE.name}
    assert set(exported) == set(ours) == {"ada", "bo", "cy"}
    for student in ("ada", "bo", "cy"):  # overrides, manual grades and extra credit included
        assert float(exported[student]["score"]) == float(ours[student]["score"]), student
        assert float(exported[student]["max_score"]) == float(ours[student]["max_score"])
    assert float(ours["ada"]["score"]) == EXERCISE.max_score - 1
    assert exported["ada"]["timestamp"].startswith("2026-11-30 09:15:00")


def test_bundles_and_lms_files_give_the_gradebooks_totals(course, tmp_path):
    ours = {r["student"]: r for r in csv_rows(course / "graded" / "grades.csv")
            if r["assignment"] == EXERCISE.name}
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada Lovelace,ada@example.org\n"
                      "bo,Bo Diddley,bo@example.org\ncy,Cy Twombly,cy@example.org\n")
    for lms in ("canvas", "moodle"):
        done = packlab("export", str(course / "graded"), "--roster", str(roster), "--lms", lms,
                       "--to", str(tmp_path / f"{lms}.csv"), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        rows = list(csv.reader((tmp_path / f"{lms}.csv").open(newline="")))
        column = rows[0].index(EXERCISE.name)
        cells = {row[1 if lms == "moodle" else 0]: row[column] for row in rows[1:]}
        key = {"canvas": {"ada": "Ada Lovelace", "bo": "Bo Diddley", "cy": "Cy Twombly"},
               "moodle": {"ada": "ada", "bo": "bo", "cy": "cy"}}[lms]
        for student in ("ada", "bo", "cy"):
            assert float(cells[key[student]]) == float(ours[student]["score"]), (lms, student)
    done = packlab("bundle", str(course / "graded"), "--to", str(tmp_path / "bundles"),
                   cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for student in ("bo", "cy"):
        index = (tmp_path / "bundles" / student / "index.html").read_text()
        assert f"{ours[student]['score']} / {EXERCISE.max_score}" in index, student
        data = json.loads((tmp_path / "bundles" / student / EXERCISE.name /
                           "results.json").read_text())
        assert data["score"] == float(ours[student]["score"])


def test_nbgrader_generate_feedback_renders_what_packlab_wrote(course):
    for student in ("ada", "bo", "cy"):
        notebook = course / "autograded" / student / EXERCISE.name / f"{EXERCISE.name}.ipynb"
        assert notebook.is_file(), student
    nbgrader("generate_feedback", EXERCISE.name, "--force", cwd=course)
    pages = {}
    for student in ("ada", "bo", "cy"):
        page = course / "feedback" / student / EXERCISE.name / f"{EXERCISE.name}.html"
        pages[student] = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
    bo_points = group_points(course, "bo")
    bo_total = sum(bo_points.values()) - bo_points[MANUAL[0]] + MANUAL[1] + 0.5 \
        + FORMGRADER["bo"]
    assert f"Score: {EXERCISE.max_score - 1:.1f} / {EXERCISE.max_score:.1f}" in pages["ada"]
    assert f"Score: {bo_total:.1f} / {EXERCISE.max_score:.1f}" in pages["bo"]
    # The override's reason is on the page, the student's words shown, not run as HTML.
    assert ("Adjustment by your instructor: -1 point. Reason: Copied the handout's example "
            "<b>without</b> credit") in pages["ada"], pages["ada"][:3000]
    assert "Adjustment by your instructor: +0.5 points. Reason: Explained the fix in office " \
        "hours" in pages["bo"]
    bo = pages["bo"]
    assert "the call:" in bo and "expected:" in bo and "03-the-early-stop-trap" in bo
    assert "break" in bo  # the student's own code is in its answer cell
    assert "BEGIN HIDDEN TESTS" not in bo and 'pack, "edge-cases")' not in bo
    cy = f"Score: {FORMGRADER['cy']:.1f} / 5.0"  # nothing from the tests; formgrader's extra
    assert cy in pages["cy"] and "Not graded:" in pages["cy"]


def test_a_changed_override_replaces_its_extra_credit_and_a_removed_one_is_named(course,
                                                                                 tmp_path):
    """On a copy of the graded course: ada's override now sets her score, bo's row is gone."""
    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    (copy / "overrides.csv").write_text("student,assignment,points,score,reason\n"
                                        f"ada,{EXERCISE.name},,3,Second look at the example\n")
    done = packlab("grade", str(copy / "submitted"), "--out", str(copy / "graded"),
                   "--overrides", str(copy / "overrides.csv"), cwd=tmp_path)
    with gradebook(copy) as gb:
        assert gb.find_submission(EXERCISE.name, "ada").score == 3
        # bo's override is gone; the extra credit a grader gave him stays
        assert gb.find_grade(FIRST, EXERCISE.name, EXERCISE.name, "bo").extra_credit == \
            FORMGRADER["bo"]
        bo = gb.find_submission(EXERCISE.name, "bo").score
    nbgrader("export", cwd=copy)
    exported = {r["student_id"]: r for r in csv_rows(copy / "grades.csv")
                if r["assignment"] == EXERCISE.name}
    ours = {r["student"]: r for r in csv_rows(copy / "graded" / "grades.csv")
            if r["assignment"] == EXERCISE.name}
    assert float(exported["ada"]["score"]) == float(ours["ada"]["score"]) == 3
    assert float(exported["bo"]["score"]) == float(ours["bo"]["score"]) == bo
    assert ours["bo"]["adjustment"] == "" and "Counted in grades.csv" in done.stdout


def test_hostile_folder_names_stay_out_of_the_gradebook_and_never_stop_it(course, tmp_path):
    """On a copy of the graded course, four more students hand in 02: bad\\xff (a folder name
    from a cp1252 zip, which SQLite cannot store), `semi;=1+1;x`, ada + a no-break space, and
    dee. dee's scores are written; the other three are left out, each with its reason; and
    `nbgrader export` then writes no cell that starts a formula, in any locale."""
    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    submitted = copy / "submitted"
    right = with_answer(EXERCISE, None)
    for student in ("semi;=1+1;x", "ada\u00a0", "dee"):
        submit(submitted, student, EXERCISE, right)
    undecodable = os.path.join(os.fsencode(submitted), b"bad\xff", os.fsencode(EXERCISE.name))
    os.makedirs(undecodable)
    nbformat.write(right, os.fsdecode(os.path.join(undecodable,
                                                   os.fsencode(f"{EXERCISE.name}.ipynb"))))
    done = packlab("grade", str(submitted), "--out", str(copy / "graded"), cwd=tmp_path)
    said = " ".join(done.stdout.split())
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    with gradebook(copy) as gb:
        assert {student.id for student in gb.students} == {"ada", "bo", "cy", "dee"}
        assert gb.find_submission(EXERCISE.name, "dee").score == EXERCISE.max_score
        assert gb.find_submission(EXERCISE.name, "ada").score == EXERCISE.max_score - 1
    for shown, why in (("'semi;=1+1;x'", "`nbgrader export` writes ids unquoted"),
                       ("'bad\\udcff'", "its name is not UTF-8"),
                       ("'ada\\xa0'", "its name has characters that cannot be seen")):
        assert f"student folder {shown} left out of the gradebook: {why}" in said, said
    nbgrader("export", cwd=copy)
    exported = (copy / "grades.csv").read_text(encoding="utf-8")
    assert formula_cells(exported) == [] and ",dee," in exported


def test_an_override_on_a_late_submission_shows_the_same_total_in_formgrader(course, tmp_path):
    """ada handed in after 02's cutoff (score 0), then her override gives her 4: formgrader
    used to show 9 / 5 (auto 5 + extra credit 4, the late penalty of 5 not shown)."""
    from packlab.manifest import MANIFEST

    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    entry = f'name = "{EXERCISE.name}"\n'
    toml = MANIFEST.read_text(encoding="utf-8").replace(entry, entry + (
        'due = "2026-11-29T17:00:00+00:00"\n'
        'late_policy = { zero_after = "2026-11-30T09:00:00+00:00" }\n'))
    (tmp_path / "course.toml").write_text(toml, encoding="utf-8")
    (copy / "overrides.csv").write_text("student,assignment,points,score,reason\n"
                                        f"ada,{EXERCISE.name},,4,Her laptop died\n")
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "grade",
                           str(copy / "submitted"), "--out", str(copy / "graded"),
                           "--overrides", str(copy / "overrides.csv")], cwd=tmp_path,
                          env={**nbgrader_env(), "COLUMNS": "500",
                               "PACKLAB_COURSE_TOML": str(tmp_path / "course.toml")},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "Not written" not in done.stdout, done.stdout  # cy's file
    ada = {r["student"]: r for r in csv_rows(copy / "graded" / "grades.csv")
           if r["assignment"] == EXERCISE.name}["ada"]
    assert (ada["raw_score"], ada["late_penalty"], ada["adjustment"], ada["score"]) == \
        ("5", "5", "4", "4")
    with gradebook(copy) as gb:
        submission = gb.find_submission(EXERCISE.name, "ada")
        assert (submission.score, submission.late_submission_penalty) == (4, 0)
    nbgrader("export", cwd=copy)
    exported = {r["student_id"]: r for r in csv_rows(copy / "grades.csv")
                if r["assignment"] == EXERCISE.name}
    assert float(exported["ada"]["score"]) == 4


def test_a_manual_grade_given_after_grading_shows_on_the_next_run(course, tmp_path):
    """A grader scores ada's cell in formgrader (through nbgrader's API here); a plain rerun
    grades nothing again but grades.csv and her feedback show the gradebook's total."""
    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    with gradebook(copy) as gb:
        gb.find_grade(EXERCISE.grade_id("properties"), EXERCISE.name, EXERCISE.name,
                      "ada").manual_score = 1
        gb.db.commit()
    done = packlab("grade", str(copy / "submitted"), "--out", str(copy / "graded"),
                   cwd=tmp_path)
    assert "Not written" not in done.stdout, done.stdout + done.stderr
    ada = {r["student"]: r for r in csv_rows(copy / "graded" / "grades.csv")
           if r["assignment"] == EXERCISE.name}["ada"]
    points = EXERCISE.points["properties"]
    assert (ada["score"], ada["manual"]) == (str(EXERCISE.max_score - 1 - points + 1),
                                             str(1 - points))
    page = (copy / "graded" / "students" / "ada" / EXERCISE.name / "feedback.html").read_text()
    assert f"manual grading {1 - points:+g} point" in html.unescape(page)
    with gradebook(copy) as gb:
        assert gb.find_submission(EXERCISE.name, "ada").score == float(ada["score"])


def test_an_explicit_gradebook_url_from_outside_the_course(course, tmp_path):
    submitted = tmp_path / "elsewhere"
    submit(submitted, "dee", EXERCISE, with_answer(EXERCISE, None))
    url = f"sqlite:///{course / 'gradebook.db'}"
    done = packlab("grade", str(submitted), "--out", str(tmp_path / "out"), "--gradebook", url,
                   cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote 3 test cell scores for 1 submission (0 with" in done.stdout, done.stdout
    assert "autograded notebooks" not in done.stdout  # no course folder to put them in
    with gradebook(course) as gb:
        assert gb.find_submission(EXERCISE.name, "dee").score == EXERCISE.max_score

    missing = packlab("grade", str(submitted), "--out", str(tmp_path / "out"), "--gradebook",
                      f"sqlite:///{tmp_path / 'typo.db'}", cwd=tmp_path)
    assert missing.returncode == 1
    assert "Not written to nbgrader's gradebook: there is no gradebook at" in missing.stdout
    assert not (tmp_path / "typo.db").exists()


def students_committed(db: Path) -> set[str]:
    """The students another connection sees in the gradebook file: what is committed."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as connection:
        return {row[0] for row in connection.execute("SELECT id FROM student")}


def test_one_transaction_commits_once_and_a_rollback_loses_only_what_came_after(tmp_path,
                                                                               monkeypatch):
    """nbgrader's own commits inside `one_transaction` are savepoints: nothing is committed
    until it ends, a rollback undoes only what came after the last of them, and an error out
    of it commits nothing."""
    from nbgrader.api import Gradebook, Student

    from autograder.term.gradebook import one_transaction

    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook runs alembic
    db = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{db}", course_id="packlab") as gb:
        with one_transaction(gb):
            gb.update_or_create_student("ada")  # nbgrader commits here
            assert students_committed(db) == set()
            gb.db.add(Student(id="bo"))
            gb.db.rollback()
            gb.update_or_create_student("cy")
        assert students_committed(db) == {"ada", "cy"}
        with pytest.raises(RuntimeError), one_transaction(gb):
            gb.update_or_create_student("dee")
            raise RuntimeError
    assert students_committed(db) == {"ada", "cy"}


def test_a_row_that_fails_loses_no_other_row(course, tmp_path, monkeypatch):
    """All rows go in one transaction, yet a database error on bo's row (after nbgrader created
    his submission) undoes only his scores: ada's and cy's are written, and bo's row is named."""
    from sqlalchemy.exc import SQLAlchemyError

    from autograder.term import gradebook as book

    copy = tmp_path / "course"
    shutil.copytree(course, copy)
    with gradebook(copy) as gb:
        for student in ("ada", "bo", "cy"):
            gb.remove_student(student)
    for written in (copy / "graded").glob("students/*/*/gradebook.json"):
        written.unlink()  # the extra credit packlab wrote went with the students
    scored = book._score

    def fails_for_bo(grade, auto: float) -> None:
        if grade.notebook.assignment.student.id == "bo":
            raise SQLAlchemyError("the disk said no")
        scored(grade, auto)

    monkeypatch.setattr(book, "_score", fails_for_bo)
    rows = csv_rows(copy / "graded" / "grades.csv")
    written = book.record(book.find(copy / "submitted"), copy / "submitted", copy / "graded",
                          rows)
    assert written.problems == [f"'bo'/{EXERCISE.name}: not written to the gradebook "
                                "(SQLAlchemyError); every other row was."]
    with gradebook(copy) as gb:
        assert gb.find_submission(EXERCISE.name, "ada").score == EXERCISE.max_score - 1
        cy = gb.find_submission(EXERCISE.name, "cy").notebooks[0].grades
        assert {grade.auto_score for grade in cy} == {0}  # not a notebook: 0 in every cell
        grades = gb.find_submission(EXERCISE.name, "bo").notebooks[0].grades
        assert {grade.auto_score for grade in grades} == {None}


def test_the_autograded_notebook_keeps_the_courses_cells_and_the_students_code():
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell

    from autograder.run.submission import Cell
    from autograder.term.autograded import MAX_SOURCE, merged

    def grade_id(cell):
        return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")

    released = nbformat.read(EXERCISE.release, as_version=4).cells
    mine = "def pack(parts, budget):\n    return []\n"
    handed_in = with_answer(EXERCISE, mine).cells
    visible = EXERCISE.grade_id("visible")
    test_cell = next(c for c in handed_in if grade_id(c) == visible)
    test_cell.source = "print('All 7 checks passed.')"  # edited, then duplicated
    handed_in.append(nbformat.from_dict(dict(test_cell)))
    handed_in.append(new_code_cell("helper = 1\n" + "#" * (2 * MAX_SOURCE)))
    handed_in.append(new_markdown_cell("<script>alert(1)</script>"))
    handed_in = [c for c in handed_in if grade_id(c) != EXERCISE.grade_id("properties")]

    cells = merged(released, [Cell(position, c.cell_type, c.source, grade_id(c))
                              for position, c in enumerate(handed_in, 1)])
    ids = [grade_id(c) for c in cells]
    assert ids.count(visible) == 1 and ids[-1] == EXERCISE.grade_id("properties")  # restored
    by_id = {grade_id(c): c for c in cells}
    assert by_id[visible].source == next(c.source for c in released if grade_id(c) == visible)
    assert by_id[EXERCISE.grade_id("answer")].source == mine
    own = [c for c in cells if grade_id(c) is None]
    assert len(own) == 1 and own[0].source.startswith("helper = 1")
    assert len(own[0].source) < MAX_SOURCE + 100 and "more characters were cut" in own[0].source
    assert not any("<script>" in c.source for c in cells)


def test_the_correction_is_what_the_late_penalty_and_override_changed():
    from autograder.term.gradebook import correction

    def data(raw, corrected):
        return {"score": corrected, "extra_data": {"raw_score": raw, "corrected_score": corrected}}

    assert correction(data(4, 2.75)) == -1.25
    assert correction(data(5, 4)) == -1  # late 5 points, then an override of score 4
    assert correction({"score": 3, "extra_data": {}}) == 0
    assert correction({}) == 0


@given(raw=st.integers(0, 10).map(lambda x: x / 2), penalty=st.integers(0, 30).map(lambda x: x / 4),
       points=st.none() | st.integers(-20, 20).map(lambda x: x / 2),
       score=st.integers(0, 10).map(lambda x: x / 2), maximum=st.sampled_from([5, 6]),
       manual=st.integers(-4, 4).map(lambda x: x / 2),
       extra=st.integers(-4, 4).map(lambda x: x / 2))
def test_formgrader_and_nbgrader_export_total_the_corrections_as_grades_csv_does(
        raw, penalty, points, score, maximum, manual, extra):
    """With packlab's correction as extra credit and no late penalty of nbgrader's, formgrader's
    total (the cells' scores + extra credit) and `nbgrader export`'s (that, at least 0) are
    grades.csv's final score, before and after a grader's manual score and extra credit."""
    from autograder.cohort.classroom import grades_row
    from autograder.term.corrections import Corrections, Marks, scored
    from autograder.term.gradebook import correction
    from autograder.term.late import Lateness
    from autograder.term.overrides import Override

    raw = min(raw, maximum)
    override = Override("why", points=points) if points is not None else Override("why",
                                                                                  score=score)
    for marks in (None, Marks(manual, extra)):
        fixed = scored(raw, maximum, Corrections(Lateness(penalty=penalty), override, marks))
        data = {"score": fixed.final, "extra_data": {
            "student": "ada", "assignment": EXERCISE.name, "max_score": maximum, "error": None,
            "raw_score": raw, "corrected_score": fixed.corrected, "late": {"penalty": penalty},
            "adjustment": override.to_dict(), "marks": marks.to_dict() if marks else None}}
        row = grades_row(data)
        formgrader = raw + correction(data) + (manual + extra if marks else 0)
        assert row["score"] == fixed.final == pytest.approx(max(0.0, formgrader))
        if fixed.corrected >= 0 and not marks:
            assert formgrader == pytest.approx(fixed.final)  # never "9 / 5"


@pytest.mark.parametrize("student", ["a,b", 'say "hi"', "two\nlines", "=1+2", "+1", "-rf", "@x",
                                     "\tx"])
def test_ids_nbgrader_export_would_write_unquoted_stay_out_of_the_gradebook(student):
    from autograder.term.gradebook import exportable

    assert not exportable(student)


@pytest.mark.parametrize("student", ["s001", "Ada Lovelace", "zoë", "a-b", "x=1"])
def test_ordinary_ids_go_into_the_gradebook(student):
    from autograder.term.gradebook import exportable

    assert exportable(student)
