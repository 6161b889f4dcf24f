"""`packlab grade` writes its sandboxed scores into nbgrader's own gradebook.

One throwaway nbgrader course for the module: nbgrader releases 02-greedy-pack; ada hands in the
reference answer (with nbgrader's timestamp.txt) and also 01-total-tokens, which this course never
released; bo hands in the `break` bug, after a grader already gave one of his cells a manual
score; cy hands in a file that is not a notebook. `packlab grade` runs sandboxed from outside the
course folder. Then real `nbgrader export` must give grades.csv's totals, and real `nbgrader
generate_feedback` must render the feedback from what packlab wrote.
"""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COURSE, submit, with_answer

from autograder import gallery
from packlab.course.manifest import ROOT
from packlab.course.release import NBGRADER, nbgrader_env, release

EXERCISE = COURSE.exercise("02-greedy-pack")
UNRELEASED = COURSE.exercise("01-total-tokens")
STAMP = "2026-11-30 09:15:00.000000 UTC"
MANUAL = ("pack-edge-cases", 1.5)  # a grader's score for one of bo's cells, set before grading

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
def course(tmp_path_factory) -> Path:
    """The course folder, graded by `packlab grade` (its output in course/grade.log)."""
    course = tmp_path_factory.mktemp("gradebook") / "course"
    course.mkdir()
    shutil.copytree(ROOT / "solutions" / EXERCISE.name, course / "solutions" / EXERCISE.name)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    release(EXERCISE.name, course)

    submitted = course / "submitted"
    submit(submitted, "ada", EXERCISE, with_answer(EXERCISE, None))
    (submitted / "ada" / EXERCISE.name / "timestamp.txt").write_text(STAMP + "\n")
    submit(submitted, "ada", UNRELEASED, with_answer(UNRELEASED, None))
    submit(submitted, "bo", EXERCISE,
           with_answer(EXERCISE, gallery.load("pack/break_at_first_miss").code))
    submit(submitted, "cy", EXERCISE, "{ this is not a notebook")

    with gradebook(course) as gb:  # a grader got to bo first
        gb.update_or_create_student("bo")
        gb.update_or_create_submission(EXERCISE.name, "bo")
        gb.find_grade(MANUAL[0], EXERCISE.name, EXERCISE.name, "bo").manual_score = MANUAL[1]
        gb.db.commit()

    done = packlab("grade", str(submitted), "--out", str(course / "graded"), "--jobs", "2",
                   cwd=course.parent)
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
            if student != "bo":
                assert submission.score == float(ours[student, EXERCISE.name]["score"])
        assert gb.find_submission(EXERCISE.name, "ada").score == EXERCISE.max_score
        assert gb.find_submission(EXERCISE.name, "ada").timestamp.isoformat().startswith(
            "2026-11-30T09:15:00")
        assert gb.find_submission(EXERCISE.name, "bo").timestamp is None
        # The grader's score stands (and is flagged for review); ours is the auto score.
        edge = gb.find_grade(MANUAL[0], EXERCISE.name, EXERCISE.name, "bo")
        assert (edge.manual_score, edge.score) == (MANUAL[1], MANUAL[1])
        assert edge.auto_score == 0 < MANUAL[1]

    log = (course / "grade.log").read_text()
    assert re.search(rf"Gradebook {re.escape(str(course / 'gradebook.db'))} \(course packlab\): "
                     r"wrote 9 test cell scores for 3 submissions \(1 with the time in their "
                     r"timestamp\.txt\), and added 2 students\.", log), log
    assert "Wrote 3 autograded notebooks for `nbgrader generate_feedback`." in log
    assert f"left out: {UNRELEASED.name} (run `nbgrader generate_assignment" in log, log


def test_nbgrader_export_gives_the_totals_of_grades_csv(course):
    nbgrader("export", cwd=course)
    exported = {r["student_id"]: r for r in csv_rows(course / "grades.csv")
                if r["assignment"] == EXERCISE.name}
    ours = {r["student"]: r for r in csv_rows(course / "graded" / "grades.csv")
            if r["assignment"] == EXERCISE.name}
    assert set(exported) == set(ours) == {"ada", "bo", "cy"}
    for student in ("ada", "cy"):
        assert float(exported[student]["score"]) == float(ours[student]["score"]), student
        assert float(exported[student]["max_score"]) == float(ours[student]["max_score"])
    assert exported["ada"]["timestamp"].startswith("2026-11-30 09:15:00")
    # bo's total is ours with the grader's score in place of ours for that cell.
    assert float(exported["bo"]["score"]) == float(ours["bo"]["score"]) + MANUAL[1]


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
    bo_total = sum(bo_points.values()) - bo_points[MANUAL[0]] + MANUAL[1]
    assert f"Score: {EXERCISE.max_score:.1f} / {EXERCISE.max_score:.1f}" in pages["ada"]
    assert f"Score: {bo_total:.1f} / {EXERCISE.max_score:.1f}" in pages["bo"]
    bo = pages["bo"]
    assert "the call:" in bo and "expected:" in bo and "03-the-early-stop-trap" in bo
    assert "break" in bo  # the student's own code is in its answer cell
    assert "BEGIN HIDDEN TESTS" not in bo and 'pack, "edge-cases")' not in bo
    assert "Score: 0.0 / 5.0" in pages["cy"] and "Not graded:" in pages["cy"]


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


def test_the_autograded_notebook_keeps_the_courses_cells_and_the_students_code():
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell

    from autograder.autograded import MAX_SOURCE, merged

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

    cells = merged(released, handed_in)
    ids = [grade_id(c) for c in cells]
    assert ids.count(visible) == 1 and ids[-1] == EXERCISE.grade_id("properties")  # restored
    by_id = {grade_id(c): c for c in cells}
    assert by_id[visible].source == next(c.source for c in released if grade_id(c) == visible)
    assert by_id[EXERCISE.grade_id("answer")].source == mine
    own = [c for c in cells if grade_id(c) is None]
    assert len(own) == 1 and own[0].source.startswith("helper = 1")
    assert len(own[0].source) < MAX_SOURCE + 100 and "more characters were cut" in own[0].source
    assert not any("<script>" in c.source for c in cells)


def test_the_late_penalty_is_what_grades_csv_took_off():
    from autograder.gradebook import late_penalty

    def data(raw, penalty):
        return {"score": max(0, raw - penalty),
                "extra_data": {"raw_score": raw, "late": {"penalty": penalty}}}

    assert late_penalty(data(4, 1.25)) == 1.25
    assert late_penalty(data(2, 5)) == 2  # never below zero, as grades.csv
    assert late_penalty({"score": 3, "extra_data": {}}) == 0
    assert late_penalty({}) == 0


@pytest.mark.parametrize("student", ["a,b", 'say "hi"', "two\nlines", "=1+2", "+1", "-rf", "@x",
                                     "\tx"])
def test_ids_nbgrader_export_would_write_unquoted_stay_out_of_the_gradebook(student):
    from autograder.gradebook import exportable

    assert not exportable(student)


@pytest.mark.parametrize("student", ["s001", "Ada Lovelace", "zoë", "a-b", "x=1"])
def test_ordinary_ids_go_into_the_gradebook(student):
    from autograder.gradebook import exportable

    assert exportable(student)
