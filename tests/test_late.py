"""Late work: nbgrader's timestamp.txt against the due date (course.toml's, or the gradebook's
first), and the late policy — shown in grades.csv, feedback.html and results.json.

The class is graded by the `packlab grade` command with a course.toml of the term's dates
(PACKLAB_COURSE_TOML); the gradebook's due date by nbgrader's own `Gradebook`.
"""

from __future__ import annotations

import csv
import html
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import COURSE, submit, with_answer

from autograder import outfolder
from autograder.cohort.classroom import grade_class
from autograder.run.isolation import Limits
from packlab.manifest import MANIFEST, load

# The module's fixtures are built once only if its tests share one xdist worker.
pytestmark = pytest.mark.xdist_group("late")

PACKLAB = Path(sys.executable).parent / "packlab"
FAST = Limits(call_seconds=1.0, setup_seconds=5.0)
TOTAL, PACK = COURSE.exercise("01"), COURSE.exercise("02")
DUE = datetime(2026, 11, 1, 17, 0, tzinfo=UTC)
CUTOFF = DUE + timedelta(days=3)
OLD_COLUMNS = ["student", "assignment", "score", "max_score", "status", "reason", "sandbox"]


def stamp(folder: Path, when: datetime | str | None) -> None:
    """Write timestamp.txt as nbgrader's exchange does ("%Y-%m-%d %H:%M:%S.%f %Z")."""
    if when is not None:
        text = when if isinstance(when, str) else when.strftime("%Y-%m-%d %H:%M:%S.%f %Z")
        (folder / "timestamp.txt").write_text(text)


def term_manifest(path: Path) -> Path:
    """course.toml with due dates: 01 loses 10 % a day, 02 gets 0 after a cutoff."""
    text = MANIFEST.read_text(encoding="utf-8")
    for name, lines in ((TOTAL.name, 'due = "2026-11-01T17:00:00+00:00"\n'
                                     "late_policy = { per_day = 0.1 }\n"),
                        (PACK.name, "due = 2026-11-01T17:00:00Z\n"
                                    'late_policy = { zero_after = "2026-11-04T17:00:00Z" }\n')):
        entry = f'name = "{name}"\n'
        assert entry in text
        text = text.replace(entry, entry + lines)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    base = tmp_path_factory.mktemp("term")
    submitted, out = base / "submitted", base / "out"
    right_total, right_pack = with_answer(TOTAL, None), with_answer(PACK, None)
    for student, when in (("early", DUE - timedelta(days=1)),
                          ("late2", DUE + timedelta(days=1, minutes=1)),
                          ("nostamp", None), ("garbage", "next tuesday-ish <b>"),
                          ("huge", "2026-11-09 " + "9" * 5000),
                          ("future", datetime(2031, 1, 1, tzinfo=UTC))):
        stamp(submit(submitted, student, TOTAL, right_total).parent, when)
    fifo = submit(submitted, "fifo", TOTAL, right_total).parent / "timestamp.txt"
    os.mkfifo(fifo)  # opening it to read would block the grader for ever
    linked = submit(submitted, "linked", TOTAL, right_total).parent / "timestamp.txt"
    (base / "elsewhere.txt").write_text("2026-10-01 09:00:00.000000 UTC")
    linked.symlink_to(base / "elsewhere.txt")  # never followed
    stamp(submit(submitted, "early", PACK, right_pack).parent, DUE)
    stamp(submit(submitted, "late2", PACK, right_pack).parent, CUTOFF + timedelta(seconds=1))
    env = {**os.environ, "PACKLAB_COURSE_TOML": str(term_manifest(base / "course.toml"))}
    done = subprocess.run([str(PACKLAB), "grade", str(submitted), "--out", str(out),
                           "--jobs", "2", "--call-seconds", "1", "--setup-seconds", "5"],
                          env=env, capture_output=True, text=True, timeout=300)
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {(r["student"], r["assignment"]): r for r in csv.DictReader(handle)}
    return out, rows, done


def results(out: Path, student: str, assignment: str) -> dict:
    return json.loads((outfolder.submission_folder(out, student, assignment)
                       / "results.json").read_text())


def page(out: Path, student: str, assignment: str) -> str:
    return html.unescape((outfolder.submission_folder(out, student, assignment)
                          / "feedback.html").read_text())


def test_the_old_columns_stay_first_and_new_ones_follow(term):
    out, rows, done = term
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    header = (out / "grades.csv").read_text().splitlines()[0].split(",")
    assert header[:len(OLD_COLUMNS)] == OLD_COLUMNS
    assert {"submitted_at", "due", "late_days", "late_penalty", "late_note"} <= set(header)


def test_a_penalty_per_day_late_counts_started_days(term):
    out, rows, _ = term
    row = rows["late2", TOTAL.name]
    assert (row["score"], row["raw_score"], row["late_days"], row["late_penalty"]) == \
        ("2.4", "3", "2", "0.6")  # 1 day and 1 minute late: 2 days, 10 % of 3 points each
    assert row["submitted_at"] == "2026-11-02T17:01:00+00:00"
    assert row["due"] == "2026-11-01T17:00:00+00:00"
    data = results(out, "late2", TOTAL.name)
    assert data["score"] == 2.4 and data["extra_data"]["raw_score"] == 3
    assert data["extra_data"]["late"]["penalty"] == 0.6
    text = page(out, "late2", TOTAL.name)
    for said in ("Score: 2.4 / 3", "Handed in: 2026-11-02 17:01:00 UTC.",
                 "Due: 2026-11-01 17:00:00 UTC (from course.toml).",
                 "2 days late: 0.6 points off (10 % of the points per day late"):
        assert said in text, said


def test_on_time_costs_nothing(term):
    _, rows, _ = term
    row = rows["early", TOTAL.name]
    assert (row["score"], row["late_days"], row["late_penalty"], row["late_note"]) == \
        ("3", "0", "0", "on time")


@pytest.mark.parametrize("student,note,flag", [
    ("nostamp", "no timestamp.txt in the submission, so it is not counted late", "missing"),
    ("garbage", "timestamp.txt does not hold a date nbgrader can read, so it is not counted late",
     "unreadable"),
    ("huge", "timestamp.txt is larger than 1,000 bytes (5,011 bytes), so it is not counted late",
     "unreadable"),
    ("future", "timestamp.txt holds a time in the future (2031-01-01T00:00:00+00:00), so it is "
     "not counted late", "in the future"),
    ("fifo", "timestamp.txt is a FIFO (named pipe); only regular files are read, so it is not "
     "counted late", "unreadable"),
    ("linked", "timestamp.txt is a symbolic link; only regular files are read, so it is not "
     "counted late", "unreadable")])
def test_a_timestamp_that_cannot_be_trusted_is_flagged_and_counts_as_the_policy_says(
        term, student, note, flag):
    """course.toml's default `missing_timestamp = "on-time"`: no penalty, but flagged."""
    out, rows, done = term
    row = rows[student, TOTAL.name]
    assert (row["score"], row["late_penalty"], row["late_days"], row["submitted_at"]) == \
        ("3", "0", "", "")
    assert row["late_note"] == note
    assert row["timestamp_flag"] == flag
    said = " ".join(done.stdout.split())
    assert "6 submissions with a due date had no timestamp.txt to trust" in said, said
    assert f"{student} / {TOTAL.name} ({flag})" in said
    assert "no timestamp.txt to trust" in (out / "summary.md").read_text()
    text = page(out, student, TOTAL.name)
    assert f"Lateness: {note}." in text
    assert "<b>" not in text and "99999" not in text  # the file's text is never shown


def test_a_trusted_timestamp_is_not_flagged(term):
    _, rows, _ = term
    assert rows["early", TOTAL.name]["timestamp_flag"] == rows["late2", TOTAL.name][
        "timestamp_flag"] == ""


@pytest.mark.parametrize("policy,penalty,days,note", [
    ("on-time", 0, None, "no timestamp.txt in the submission, so it is not counted late"),
    ("when-graded", 0, 3, "no timestamp.txt in the submission, so it is counted as handed in "
     "when graded (2026-11-04T12:00:00+00:00); 3 days late (no penalty)"),
    ("zero", 3, None, "no timestamp.txt in the submission, so the score is 0 (the course's "
     "late policy)")])
def test_missing_timestamp_counts_as_the_late_policy_says(tmp_path, policy, penalty, days, note):
    from autograder.term import late
    from packlab.manifest import LatePolicy

    graded = DUE + timedelta(days=2, hours=19)
    lateness = late.assess(tmp_path, DUE, late.FROM_COURSE,
                           LatePolicy(missing_timestamp=policy), 3, 3, graded)
    assert (lateness.penalty, lateness.late_days, lateness.note, lateness.flag) == \
        (penalty, days, note, "missing")
    # Without a due date there is nothing to flag.
    assert late.assess(tmp_path, None, "", LatePolicy(missing_timestamp=policy), 3, 3,
                       graded).flag == ""


def test_missing_timestamp_must_be_one_the_policy_knows(tmp_path):
    path = tmp_path / "course.toml"
    path.write_text(MANIFEST.read_text(encoding="utf-8").replace(
        'late_policy = "none"', 'late_policy = { missing_timestamp = "whenever" }', 1),
        encoding="utf-8")
    with pytest.raises(ValueError, match="missing_timestamp is one of 'on-time', 'when-graded'"):
        load(path)


def test_a_students_extension_in_the_gradebook_moves_their_due_date(tmp_path, monkeypatch):
    """nbgrader's own extensions (`Gradebook.grant_extension`): ada has three more days."""
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", f"{PACKLAB.parent}{os.pathsep}{os.environ['PATH']}")  # alembic
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    for student in ("ada", "bo"):
        stamp(submit(submitted, student, TOTAL, with_answer(TOTAL, None)).parent,
              DUE + timedelta(days=2))
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gradebook:
        gradebook.add_assignment(TOTAL.name, duedate=DUE.replace(tzinfo=None))
        gradebook.add_student("ada")
        gradebook.add_submission(TOTAL.name, "ada")
        gradebook.grant_extension(TOTAL.name, "ada", days=3)
    rows = {r["student"]: r for r in grade_class(submitted, out, jobs=1, limits=FAST,
                                                  gradebook=url)}
    assert (rows["ada"]["due"], rows["ada"]["late_days"]) == ("2026-11-04T17:00:00+00:00", 0)
    assert (rows["bo"]["due"], rows["bo"]["late_days"]) == ("2026-11-01T17:00:00+00:00", 2)
    assert "(from nbgrader's gradebook, with an extension)" in page(out, "ada", TOTAL.name)


def test_after_the_cutoff_the_score_is_zero(term):
    out, rows, _ = term
    late, early = rows["late2", PACK.name], rows["early", PACK.name]
    assert (late["score"], late["raw_score"], late["late_days"]) == ("0", "5", "4")
    assert "after the cutoff (2026-11-04T17:00:00+00:00)" in late["late_note"]
    assert (early["score"], early["late_note"]) == ("5", "on time")  # due to the second
    assert results(out, "late2", PACK.name)["score"] == 0


def test_a_bad_late_policy_is_named(tmp_path):
    path = tmp_path / "course.toml"
    path.write_text(MANIFEST.read_text(encoding="utf-8").replace(
        'late_policy = "none"', "late_policy = { per_day = 10 }", 1), encoding="utf-8")
    with pytest.raises(ValueError, match="per_day is the share of the points"):
        load(path)


def test_the_gradebooks_due_date_comes_first(tmp_path, monkeypatch):
    """nbgrader's gradebook has 01 due two days before this hand-in; course.toml has no date."""
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", f"{PACKLAB.parent}{os.pathsep}{os.environ['PATH']}")  # alembic

    submitted, out = tmp_path / "submitted", tmp_path / "out"
    stamp(submit(submitted, "ada", TOTAL, with_answer(TOTAL, None)).parent,
          DUE + timedelta(days=2))
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gradebook:
        gradebook.add_assignment(TOTAL.name, duedate=DUE.replace(tzinfo=None))
    (row,) = grade_class(submitted, out, jobs=1, limits=FAST, gradebook=url)
    assert (row["due"], row["late_days"], row["score"]) == \
        ("2026-11-01T17:00:00+00:00", 2, TOTAL.max_score)  # the course's policy: no penalty
    assert "Due: 2026-11-01 17:00:00 UTC (from nbgrader's gradebook)." in page(out, "ada",
                                                                                TOTAL.name)
    assert row["late_note"] == "2 days late (no penalty)"


def test_packlab_extend_gives_one_student_a_later_due_date(tmp_path, released_course):
    """`packlab extend`: ada and bo both hand in 01 two days late (10 % a day); ada has until
    the third day. Her row and her gradebook total lose nothing, bo's lose 20 %."""
    import shutil

    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    # The session's release (nbgrader generate_assignment "*"): the gradebook knows 01.
    shutil.copytree(released_course, course)
    for student in ("ada", "bo"):
        stamp(submit(course / "submitted", student, TOTAL, with_answer(TOTAL, None)).parent,
              DUE + timedelta(days=2))
    env = {**os.environ, "PACKLAB_COURSE_TOML": str(term_manifest(tmp_path / "course.toml")),
           "PATH": f"{PACKLAB.parent}{os.pathsep}{os.environ['PATH']}"}  # alembic

    def packlab(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(PACKLAB), *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)

    refused = packlab("extend", "01", "ada", "--until", "2026-10-30", "--course", str(course))
    assert refused.returncode == 2 and "is not after the due date" in refused.stdout
    done = packlab("extend", "01", "ada", "--until", "2026-11-04T17:00Z", "--course", str(course))
    assert done.returncode == 0, done.stdout + done.stderr
    said = " ".join(done.stdout.split())  # the terminal's line breaks fall by the path's length
    assert "ada has until 2026-11-04T17:00:00+00:00 for 01-total-tokens" in said, done.stdout
    graded = packlab("grade", str(course / "submitted"), "--out", str(course / "graded"),
                     "--call-seconds", "1", "--setup-seconds", "5")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    with open(course / "graded" / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {r["student"]: r for r in csv.DictReader(handle)}
    assert [rows["ada"][k] for k in ("due", "late_days", "late_penalty", "score")] == \
        ["2026-11-04T17:00:00+00:00", "0", "0", "3"]
    assert [rows["bo"][k] for k in ("due", "late_days", "late_penalty", "score")] == \
        ["2026-11-01T17:00:00+00:00", "2", "0.6", "2.4"]  # 3 points, less 2 × 10 %
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
        ada, bo = (gb.find_submission(TOTAL.name, s) for s in ("ada", "bo"))
        assert (ada.extension, ada.score, bo.extension) == \
            (timedelta(days=3), TOTAL.max_score, None)
        assert bo.score == pytest.approx(TOTAL.max_score * 0.8)
