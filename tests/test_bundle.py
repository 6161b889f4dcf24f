"""Feedback bundles: one folder or zip per student, hostile names kept in their place."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from autograder import outfolder
from autograder.cohort import report
from autograder.run.engine import Result
from autograder.term import bundle
from packlab.course import cli

EVIL_STUDENT = "<img src=x onerror=alert(1)>"
EVIL_ASSIGNMENT = "a&b' onclick='alert(1)"  # allowed everywhere as a folder name
RESULTS = [
    Result("ada", "01-window", score=5, max_score=5),
    Result("ada", "02-greedy-pack", score=7, max_score=10),
    Result("ada", "x:y", error="`x:y` is not an assignment of this course"),
    Result(EVIL_STUDENT, EVIL_ASSIGNMENT, error="`a&b' onclick='alert(1)` is not an assignment"),
    Result(EVIL_STUDENT, "01-window", score=2, max_score=5),
]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """OUT as `packlab grade` leaves it, plus a symlink planted among a student's folders."""
    out = tmp_path_factory.mktemp("graded")
    for result in RESULTS:
        report.write_submission(out, result)
    report.write_grades(out, [{"student": r.student, "assignment": r.assignment,
                               "score": r.score, "max_score": r.max_score,
                               "status": "not graded" if r.error else "graded",
                               "reason": r.error or ""} for r in RESULTS])
    os.symlink("/etc", out / outfolder.STUDENTS / "ada" / "etc")
    return out


def test_folders_hold_every_feedback_page_and_an_index(out, tmp_path):
    result = bundle.bundle(out, tmp_path)
    assert sorted(p.name for p in result.written) == sorted(["ada", EVIL_STUDENT])
    ada = tmp_path / "ada"
    for assignment in ("01-window", "02-greedy-pack"):
        for name in bundle.FILES:
            source = outfolder.submission_folder(out, "ada", assignment) / name
            assert (ada / assignment / name).read_bytes() == source.read_bytes()
    assert not (ada / "etc").exists()  # a symlink in OUT is not followed
    index = (ada / "index.html").read_text(encoding="utf-8")
    assert "<td>5 / 5</td>" in index and "<td>7 / 10</td>" in index
    assert result.problems == ["ada / x:y: not bundled (its name cannot be a folder on every "
                               "system)"]


def test_hostile_names_stay_one_folder_and_are_escaped(out, tmp_path):
    bundle.bundle(out, tmp_path)
    folder = tmp_path / EVIL_STUDENT
    assert sorted(os.listdir(tmp_path)) == sorted(["ada", EVIL_STUDENT])
    assert (folder / EVIL_ASSIGNMENT / "feedback.html").is_file()
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert "<img" not in index and "onclick='" not in index
    assert "&lt;img src=x onerror=alert(1)&gt;" in index
    assert "href='./a%26b%27%20onclick%3D%27alert%281%29/feedback.html'" in index
    assert "<td>2 / 5</td>" in index and "not graded: " in index


def test_zips_hold_the_same_files(out, tmp_path):
    result = bundle.bundle(out, tmp_path, zipped=True)
    assert sorted(p.name for p in result.written) == sorted(["ada.zip", f"{EVIL_STUDENT}.zip"])
    with zipfile.ZipFile(tmp_path / "ada.zip") as archive:
        names = sorted(archive.namelist())
        assert names == sorted(["index.html"] + [f"{a}/{f}" for a in ("01-window",
                                                 "02-greedy-pack") for f in bundle.FILES])
        page = outfolder.submission_folder(out, "ada", "01-window") / "feedback.html"
        assert archive.read("01-window/feedback.html") == page.read_bytes()
    with zipfile.ZipFile(tmp_path / f"{EVIL_STUDENT}.zip") as archive:
        assert all(".." not in n and not n.startswith("/") for n in archive.namelist())
        assert f"{EVIL_ASSIGNMENT}/results.json" in archive.namelist()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temp files left"


def test_bundle_command(out, tmp_path, capsys):
    assert cli.main(["bundle", str(out), "--to", str(tmp_path / "b"), "--zip"]) == 1
    printed = capsys.readouterr().out
    assert "Left out: ada / x:y" in printed and "Wrote 2 bundle(s)" in printed
    assert cli.main(["bundle", str(tmp_path / "nothing"), "--to", str(tmp_path / "c")]) == 2


def test_graded_outputs_stay_out_of_git():
    root = Path(__file__).resolve().parent.parent
    for path in ("graded/grades.csv", "graded/bundles/ada.zip", "roster.csv",
                 "similarity/similarity.html", "similarity/similarity.csv"):
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=root).returncode == 0, path


def test_look_alike_names_get_no_bundle_and_take_nothing(tmp_path):
    """`ada` + a no-break space and a fake `02-greedy-pack` + a zero-width space are not
    bundled (no bundle can pass for a classmate's); two grades.csv rows for one submission
    are reported, and neither score is shown for it."""
    out = tmp_path / "out"
    results = [Result("ada", "02-greedy-pack", score=7, max_score=10),
               Result("ada", "02-greedy-pack\u200b", error="not an assignment"),
               Result("ada\u00a0", "02-greedy-pack", score=0, max_score=10),
               Result("bo", "02-greedy-pack", score=3, max_score=10)]
    for result in results:
        report.write_submission(out, result)
    rows = [{"student": r.student, "assignment": r.assignment, "score": r.score,
             "max_score": r.max_score, "status": "not graded" if r.error else "graded",
             "reason": r.error or ""} for r in results]
    report.write_grades(out, [*rows, {**rows[-1], "score": 9}])
    made = bundle.bundle(out, tmp_path / "b")
    assert sorted(p.name for p in made.written) == ["ada", "bo"]
    assert "<td>7 / 10</td>" in (tmp_path / "b" / "ada" / "index.html").read_text()
    assert not (tmp_path / "b" / "ada" / "02-greedy-pack\u200b").exists()
    assert "bo / 02-greedy-pack: grades.csv has more than one row for it, so its score is " \
        "left out of the student's index" in made.problems
    assert "grades.csv has more than one row for it" in \
        (tmp_path / "b" / "bo" / "index.html").read_text()
    assert any(line.startswith("ada\u00a0: no bundle (its name has characters that cannot be "
                               "seen (U+00A0 NO-BREAK SPACE)") for line in made.problems)
    assert "ada / 02-greedy-pack\u200b: not bundled (its name has characters that cannot be " \
        "seen (U+200B ZERO WIDTH SPACE))" in made.problems
