"""The grader: solutions score full marks, releases zero, mutants lose marks for the right reason,
and a class with broken submissions is still graded in full."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
from conftest import EXERCISES, submit, with_answer

from autograder.checks import gallery
from autograder.cohort import misconceptions, report
from autograder.cohort.classroom import grade_class
from autograder.run.engine import grade_notebook
from autograder.run.isolation import Limits
from autograder.term import bundle, lms
from packlab.course.cli import main
from packlab.manifest import ROOT

FAST = Limits(call_seconds=1.0, setup_seconds=5.0)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_solution_scores_full_marks(tmp_path, exercise):
    path = submit(tmp_path, "ref", exercise, with_answer(exercise, None))
    result = grade_notebook(path, exercise, "ref")
    assert result.error is None
    assert result.score == exercise.max_score, [f.message() for g in result.groups
                                                for f in g.failures]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_release_scores_zero(exercise):
    result = grade_notebook(exercise.release, exercise, "new")
    assert result.error is None
    assert (result.score, len(result.groups)) == (0, len(exercise.points))


MUTANTS = [(exercise, mutant) for exercise in EXERCISES for mutant in gallery.every()
           if mutant.suite == exercise.suite and exercise.starter != mutant.key]


@pytest.mark.parametrize("exercise,mutant", MUTANTS,
                         ids=[f"{e.name}:{m.name}" for e, m in MUTANTS])
def test_mutant_loses_marks_with_its_misconception(tmp_path, exercise, mutant):
    path = submit(tmp_path, mutant.name, exercise, with_answer(exercise, mutant.code))
    result = grade_notebook(path, exercise, mutant.name, FAST)
    assert result.score < exercise.max_score, f"{mutant.key} got full marks"
    keys = {f.misconception.key for g in result.groups for f in g.failures}
    assert mutant.misconception in keys, f"{mutant.key}: feedback named {keys}"
    # The class summary counts this learner under the mistake's own idea alone.
    counted = {entry["key"] for entry in misconceptions.found(result)} - misconceptions.GENERIC
    assert counted == {mutant.misconception}, f"{mutant.key}: counted under {counted}"


def test_a_class_with_broken_submissions_is_graded_in_full(tmp_path):
    first, second = EXERCISES[0], EXERCISES[1]
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", first, with_answer(first, None))
    submit(submitted, "ada", second, with_answer(second, None))
    submit(submitted, "bo", first, with_answer(first, "def total_tokens(parts):\n"
                                                      "    while True:\n        pass\n"))
    submit(submitted, "cy", first, "{ this is not a notebook")
    submit(submitted, "cy", second, with_answer(second, "import os\nos._exit(0)\n"))
    (submitted / "dee" / "99-not-ours").mkdir(parents=True)

    rows = grade_class(submitted, out, jobs=2, limits=FAST)
    table = {(r["student"], r["assignment"]): r for r in rows}
    # 4 students × the 2 assignments of the course handed in, every pair has a row; dee's
    # folder that is not an assignment is one row of dee's, not work for the class
    assert len(rows) == 4 * 2 + 1
    assert table["ada", first.name]["score"] == first.max_score
    assert table["ada", second.name]["score"] == second.max_score
    assert table["bo", first.name]["score"] == 0
    assert table["bo", second.name]["reason"] == "no submission"
    assert "not valid notebook JSON" in table["cy", first.name]["reason"]
    assert table["cy", second.name]["score"] == 0
    assert "not an assignment" in table["dee", "99-not-ours"]["reason"]

    with open(out / "grades.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == len(rows)
    _per_group_columns_add_up(out, [("ada", first), ("ada", second), ("bo", first)], tmp_path)
    loop = json.loads((out / "students" / "bo" / first.name / "results.json").read_text())
    assert "endless loop" in loop["tests"][0]["output"]
    page = (out / "students" / "bo" / first.name / "feedback.html").read_text()
    assert "did not return within" in page and "run_tests" not in page


def _per_group_columns_add_up(out, graded, tmp_path):
    """grades.csv: the fixed columns first, then each test group's points (item analysis),
    which add up to the score; the LMS export and the bundles read it as before."""
    with open(out / "grades.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    groups = ["points_visible", "points_edge-cases", "points_properties"]
    assert list(table[0]) == [*report.GRADES_FIELDS, *groups]
    by_key = {(row["student"], row["assignment"]): row for row in table}
    for student, exercise in graded:
        row = by_key[student, exercise.name]
        tests = json.loads((out / "students" / student / exercise.name / "results.json"
                            ).read_text())["tests"]
        assert [float(row[g]) for g in groups] == [t["score"] for t in tests]
        assert sum(float(row[g]) for g in groups) == float(row["score"])
    assert all(row[g] == "" for row in table if row["status"] != "graded" for g in groups)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada,ada@uni.example\nbo,Bo,bo@uni.example\n")
    header = next(csv.reader(lms.export(out, roster, "moodle").text.splitlines()))
    assert not any(g in cell for g in groups for cell in header)
    bundled = bundle.bundle(out, tmp_path / "bundles")
    assert any("ada" in str(path) for path in bundled.written)


def test_rerun_resumes_and_force_regrades(tmp_path):
    exercise = EXERCISES[0]
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", exercise, with_answer(exercise, None))
    first = grade_class(submitted, out, jobs=1, limits=FAST)
    results = out / "students" / "ada" / exercise.name / "results.json"
    results.write_text(results.read_text().replace('"score": 3', '"score": 2', 1))
    assert grade_class(submitted, out, jobs=1, limits=FAST)[0]["score"] == 2  # kept, not redone
    again = grade_class(submitted, out, jobs=1, force=True, limits=FAST)
    assert [row.pop("regraded") for row in again] == ["asked to regrade"]
    assert [row.pop("regraded") for row in first] == [""]
    assert again == first


def test_grading_a_class_of_packlabs_exercises_loads_no_nbgrader(tmp_path):
    """nbgrader costs `packlab grade` a second of CPU to import: a class of packlab's own
    exercises, handed in without an exchange or timestamps, is graded without it (nbgrader's
    settings read for an exchange included)."""
    exercise = EXERCISES[0]
    submit(tmp_path / "sub", "ada", exercise, with_answer(exercise, None))
    argv = ["grade", str(tmp_path / "sub"), "--out", str(tmp_path / "out")]
    code = ("import sys\nfrom packlab.course.cli import main\n"
            f"code = main({argv!r})\n"
            "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'nbgrader'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout[-2000:]


def test_grade_command_reports_and_exits(tmp_path, capsys):
    exercise = EXERCISES[0]
    submit(tmp_path / "sub", "ada", exercise, with_answer(exercise, None))
    assert main(["grade", str(tmp_path / "sub"), "--out", str(tmp_path / "out")]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "Graded 1 of 1" in printed
    # after the progress bar, each slow step says what it does before it starts
    steps = ["Reading the results of 1 submission", "Writing grades.csv, summary.md",
             "Graded 1 of 1"]
    assert [printed.index(step) for step in steps] == sorted(printed.index(s) for s in steps)
    submit(tmp_path / "sub", "bo", exercise, "")
    assert main(["grade", str(tmp_path / "sub"), "--out", str(tmp_path / "out")]) == 1
    assert "not graded: bo" in capsys.readouterr().out
