"""Which submission counts is the instructor's choice, and every submission stays readable.

01-total-tokens is due 2026-11-30 17:00 UTC, loses half its points a started day late, and
counts the on-time submission (its own `counts` in course.toml; the course's stays latest). ada
hands in the right answer on time, then a wrong one a day late; bo a wrong one on time, then the
right one a day late. After both rounds the on-time one counts for each; `packlab counts` then
makes bo's best and ada's latest count, and a typo in it is refused with the close id named.
Each student's feedback lists both submissions and which counts; `packlab history` shows them in
a table, a student folder named with rich markup printed as written.
"""

from __future__ import annotations

import csv
import html
import json
import os
import shutil
import subprocess
from pathlib import Path

import as_user
import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from packlab.manifest import MANIFEST

# One ordinary user: one test at a time. (A test marked with a second group would run in a
# group of both names, beside the other ordinary-user tests, and each would find the other's
# processes of that user left over.)
pytestmark = pytest.mark.xdist_group("ordinary-user")

TOTAL = COURSE.exercise("01")
PACKLAB = Path(os.environ.get("VIRTUAL_ENV", ".venv")) / "bin" / "packlab"
WRONG = "def total_tokens(parts):\n    return 0\n"
ON_TIME, LATE = "2026-11-30 09:00:00.000000 UTC", "2026-12-01 09:00:00.000000 UTC"
MARKUP = "[bold]eve"  # a student folder name rich would read as markup


def hand_in(submitted: Path, student: str, code: str | None, when: str) -> None:
    folder = submit(submitted, student, TOTAL, with_answer(TOTAL, code)).parent
    (folder / "timestamp.txt").write_text(when + "\n")


def packlab(*args: str, env: dict) -> subprocess.CompletedProcess:
    import sys

    return subprocess.run([sys.executable, "-m", "packlab.course.cli", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def scores(out: Path) -> dict[str, float]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {r["student"]: float(r["score"]) for r in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    base = tmp_path_factory.mktemp("counts")
    submitted, out = base / "submitted", base / "out"
    entry = f'name = "{TOTAL.name}"\n'
    toml = base / "course.toml"
    toml.write_text(MANIFEST.read_text(encoding="utf-8").replace(entry, entry + (
        'due = "2026-11-30T17:00:00+00:00"\nlate_policy = { per_day = 0.5 }\n'
        'counts = "on-time"\n')), encoding="utf-8")
    env = {**os.environ, "PACKLAB_COURSE_TOML": str(toml), "COLUMNS": "200"}
    hand_in(submitted, "ada", None, ON_TIME)
    hand_in(submitted, "bo", WRONG, ON_TIME)
    hand_in(submitted, MARKUP, None, ON_TIME)
    grade = ("grade", str(submitted), "--out", str(out), "--jobs", "2")
    assert packlab(*grade, env=env).returncode == 0
    hand_in(submitted, "ada", WRONG, LATE)  # nbgrader's collect --update
    hand_in(submitted, "bo", None, LATE)
    done = packlab(*grade, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return out, env, grade


def page(out: Path, student: str) -> str:
    return html.unescape((outfolder.submission_folder(out, student, TOTAL.name)
                          / "feedback.html").read_text())


def test_the_on_time_submission_counts_when_the_exercise_says_so(term):
    out, _, _ = term
    top = TOTAL.max_score
    assert scores(out) == {"ada": top, "bo": 0, MARKUP: top}
    ada = page(out, "ada")
    assert "You handed in 2 times; the one that counts is the latest one handed in on time" in ada
    assert f"Submission 1: handed in 2026-11-30 09:00:00 UTC; tests {top} / {top} ← counts." \
        in ada
    assert f"Submission 2: handed in 2026-12-01 09:00:00 UTC; tests 0 / {top}." in ada
    data = json.loads((outfolder.submission_folder(out, "bo", TOTAL.name)
                       / "results.json").read_text())
    counted = data["extra_data"]["counted"]
    assert (counted["policy"], counted["chosen"], len(counted["attempts"])) == ("on-time", 0, 2)
    assert counted["attempts"][1]["penalty"] == top / 2
    assert "You handed in" not in page(out, MARKUP)  # one submission: no history to show


def test_packlab_counts_sets_it_per_student_and_refuses_a_typo(term):
    out, env, grade = term
    said = packlab("counts", str(out), "boo", TOTAL.name, "best", env=env)
    assert said.returncode == 2 and "Did you mean 'bo'?" in said.stdout, said.stdout
    assert not (out / "counts.json").exists()
    for student, policy in (("bo", "best"), ("ada", "latest")):
        said = packlab("counts", str(out), student, TOTAL.name, policy, env=env)
        assert said.returncode == 0, said.stdout
    done = packlab(*grade, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    top = TOTAL.max_score
    assert scores(out) == {"ada": 0, "bo": top / 2, MARKUP: top}
    assert f"tests {top} / {top}, late penalty {top / 2:g} ← counts." in page(out, "bo")

    shown = packlab("history", str(out), env=env)
    assert shown.returncode == 0, shown.stdout
    lines = [" ".join(line.split()) for line in shown.stdout.splitlines()]
    assert any(line.startswith(f"│ {MARKUP} ") for line in lines), shown.stdout  # as written
    assert any(line.startswith("│ bo") and "│ 2 │" in line and "✓ (best)" in line
               for line in lines), shown.stdout
    assert sum("│ ada" in line for line in lines) == 2

    for student in ("bo", "ada"):  # back to course.toml's choice
        assert packlab("counts", str(out), student, TOTAL.name, "course",
                       env=env).returncode == 0
    assert packlab(*grade, env=env).returncode == 0
    assert scores(out) == {"ada": top, "bo": 0, MARKUP: top}


# Issue 37: cy hands in a wrong answer on time, then the right one days late whose timestamp.txt
# claims an hour before the first. Graded by the user running the tests and by an ordinary user.
BACKDATED = "2026-11-30 08:00:00.000000 UTC"
AS_USER = ("import os, sys\nos.environ['PACKLAB_COURSE_TOML'] = sys.argv.pop(1)\n"
           "os.environ['COLUMNS'] = '200'\n"
           "from packlab.course.cli import main\nraise SystemExit(main())\n")


@pytest.fixture(scope="module", params=["invoking user", "ordinary user"])
def backdated(request, tmp_path_factory):
    """OUT after both of cy's rounds, and what `packlab history` printed."""
    ordinary = request.param == "ordinary user"
    base = as_user.folder() if ordinary else tmp_path_factory.mktemp("backdated")
    submitted, out, toml = base / "submitted", base / "out", base / "course.toml"
    entry = f'name = "{TOTAL.name}"\n'
    toml.write_text(MANIFEST.read_text(encoding="utf-8").replace(entry, entry + (
        'due = "2026-11-30T17:00:00+00:00"\nlate_policy = { per_day = 0.5 }\n'
        'counts = "on-time"\n')), encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess:
        if not ordinary:
            return packlab(*args, env={**os.environ, "PACKLAB_COURSE_TOML": str(toml),
                                       "COLUMNS": "200"})
        as_user.give(base)
        return as_user.run_as_user(AS_USER, str(toml), *args)

    try:
        hand_in(submitted, "cy", WRONG, ON_TIME)
        for _ in range(2):
            done = run("grade", str(submitted), "--out", str(out), "--jobs", "1")
            assert done.returncode == 0, done.stdout + done.stderr
            hand_in(submitted, "cy", None, BACKDATED)
        yield out, run("history", str(out)).stdout
    finally:
        if ordinary:
            shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
def test_a_backdated_resubmission_is_flagged_and_not_taken_as_on_time(backdated):
    out, history = backdated
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        (row,) = [r for r in csv.DictReader(handle) if r["student"] == "cy"]
    assert (row["score"], row["timestamp_flag"]) == ("0", "backdated"), row  # the on-time one
    cy = page(out, "cy")
    assert "its timestamp.txt claims 2026-11-30T08:00:00+00:00, before the time the " \
        "submission it replaced gave (2026-11-30T09:00:00+00:00), so it is counted as handed " \
        "in when graded" in cy, cy
    assert f"Submission 1: handed in 2026-11-30 09:00:00 UTC; tests 0 / {TOTAL.max_score} " \
        "← counts." in cy
    assert "Submission 2: handed in 2026-11-30 08:00:00 UTC (so its timestamp.txt says, " \
        "before the submission it replaced: not believed" in cy
    lines = [" ".join(line.split()) for line in history.splitlines()]
    assert any("2026-11-30T08:00:00+00:00 BACKDATED" in line for line in lines), history
    assert any("2026-11-30T09:00:00+00:00 │" in line and "✓ (on-time)" in line
               for line in lines), history
    summary = " ".join((out / "summary.md").read_text(encoding="utf-8").split())
    assert "1 resubmission claimed an earlier time than an attempt already collected" in summary
    assert "no timestamp.txt to trust" not in summary, summary


def test_an_honest_resubmission_is_not_flagged():
    """A later timestamp is believed; the earliest claim of two is not backdated."""
    from datetime import UTC, datetime

    from autograder.term import late

    policy = COURSE.exercise("01").late_policy
    due = datetime(2026, 11, 30, 17, tzinfo=UTC)
    claim = datetime(2026, 11, 30, 9, tzinfo=UTC)
    with pytest.MonkeyPatch.context() as patch:
        for when, flag in ((claim, ""), (datetime(2026, 11, 30, 10, tzinfo=UTC), ""),
                           (datetime(2026, 11, 30, 8, tzinfo=UTC), late.BACKDATED)):
            patch.setattr(late, "submitted_at", lambda *_, when=when: (when, ""))
            said = late.assess(Path("."), due, "", policy, 5, 5, due.replace(day=3, month=12),
                               claimed_before=claim)
            assert said.flag == flag
            assert (said.late_days == 0) is (flag == ""), said


PACK = COURSE.exercise("02")


def test_free_late_days_are_used_before_the_late_policy(tmp_path):
    """Each student has one free late day (course.toml's free_late_days), used by their first
    late submission in the order of the due dates: ada's day late on 01 costs nothing and her
    day late on 02 half its points; bo, on time for 01, spends it on 02's two days late."""
    entry = f'name = "{TOTAL.name}"\n'
    toml = tmp_path / "course.toml"
    text = MANIFEST.read_text(encoding="utf-8").replace(
        entry, entry + 'due = "2026-11-25T17:00:00+00:00"\n').replace(
        f'name = "{PACK.name}"\n', f'name = "{PACK.name}"\ndue = "2026-11-28T17:00:00+00:00"\n')
    text = text.replace('late_policy = "none"\n', "late_policy = { per_day = 0.5 }\n", 1)
    toml.write_text(text.replace("free_late_days = 0\n", "free_late_days = 1\n", 1),
                    encoding="utf-8")
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    for student, exercise, day in (("ada", TOTAL, 26), ("bo", TOTAL, 25), ("ada", PACK, 29),
                                   ("bo", PACK, 30)):
        folder = submit(submitted, student, exercise, with_answer(exercise, None)).parent
        (folder / "timestamp.txt").write_text(f"2026-11-{day} 09:00:00.000000 UTC\n")
    env = {**os.environ, "PACKLAB_COURSE_TOML": str(toml)}
    done = packlab("grade", str(submitted), "--out", str(out), "--jobs", "2", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {(r["student"], r["assignment"][:2]): r for r in csv.DictReader(handle)}
    got = {key: (float(r["score"]), r["late_days"], r["free_late_days"], float(r["late_penalty"]))
           for key, r in rows.items()}
    half = PACK.max_score / 2
    assert got == {("ada", "01"): (TOTAL.max_score, "1", "1", 0),
                   ("ada", "02"): (half, "1", "0", half),
                   ("bo", "01"): (TOTAL.max_score, "0", "0", 0),
                   ("bo", "02"): (half, "2", "1", half)}
    said = html.unescape((outfolder.submission_folder(out, "ada", TOTAL.name)
                          / "feedback.html").read_text())
    assert "1 day late, 1 of your free late days used (0 days left), so no penalty" in said
    said = html.unescape((outfolder.submission_folder(out, "bo", PACK.name)
                          / "feedback.html").read_text())
    assert "2 days late, 1 of your free late days used (0 days left); 1 day late: " \
        f"{half:g} points off" in said


def test_a_capped_adjustment_reads_the_same_on_the_page_as_in_grades_csv():
    """+1 on 4.5 of 5 can only give 0.5: the page says +0.5 (and that +1 was given), as the
    adjustment column does."""
    from autograder.cohort.classroom import grades_row
    from autograder.cohort.report import gradescope
    from autograder.run.engine import Result
    from autograder.term.corrections import Corrections, lines
    from autograder.term.late import Lateness
    from autograder.term.overrides import Override

    fixes = Corrections(Lateness(penalty=0.5, late_days=1), Override("office hours", points=1))
    said = lines(5, 5, fixes)
    assert "Adjustment by your instructor: +0.5 points (+1 point given; a score stays within 0 " \
        "and the maximum). Reason: office hours" in said
    result = Result(student="ada", assignment=PACK.name, score=5, max_score=5, groups=[])
    row = grades_row(gradescope(result, fixes))
    assert (row["adjustment"], row["score"]) == (0.5, 5)


def test_which_submission_counts_under_each_policy():
    from autograder.term.counts import Attempt, choose

    on_time_low = Attempt(raw=2, late_days=0)
    late_high = Attempt(raw=5, penalty=1, late_days=1)
    late_low = Attempt(raw=1, late_days=2, penalty=1)
    tried = (on_time_low, late_high, late_low)
    assert [choose(p, tried) for p in ("latest", "on-time", "best")] == [2, 0, 1]
    assert choose("on-time", (late_high,)) == 0  # none on time: the latest
    assert choose("best", (Attempt(raw=3, late_days=0), Attempt(raw=3, late_days=0))) == 1


def test_comments_are_kept_bounded_and_read_back_as_text_only():
    from autograder.term.corrections import COMMENT_CHARS, COMMENTS, Marks, comments

    kept = comments(["x" * (COMMENT_CHARS + 50), "  fine  "])
    assert len(kept[0]) < COMMENT_CHARS + 10 and kept[1] == "fine"
    assert Marks(comments=kept)  # a comment alone is something a grader gave
    stored = {"manual": 0, "extra_credit": 0, "comments": ["ok", 3, None] + ["y"] * 40}
    back = Marks.from_dict(stored)
    assert back.comments[0] == "ok" and len(back.comments) == COMMENTS
    assert Marks.from_dict({"comments": "not a list"}) is None
