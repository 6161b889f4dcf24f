"""Formgrader stays the one truth for the term, and every page says what happened to a score.

One throwaway nbgrader course for the module: 02-greedy-pack is due 2026-11-29 17:00 UTC and
loses 10 % of its points a started day late. ada hands in the reference answer two days late
(nbgrader's timestamp.txt), with an override of half a point; bo hands in the `break` bug on
time. `packlab grade` writes the gradebook. Then a grader works in formgrader, through its own
HTTP API on a real Jupyter server: a manual score on one of bo's test cells and a written comment
that holds markup. `packlab grade` runs again, as the guides ask after a manual-grading session:
the score, the empty queue and the comment must survive it, and the comment reach the feedback
page (escaped), results.json and `packlab bundle`. ada's page from `nbgrader generate_feedback`,
read in Chromium, must state her late penalty and override. A typo in `packlab extend` is
refused with the close id named, and adds nobody to the gradebook.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import COURSE, submit, with_answer

from autograder.checks import gallery
from packlab.course.release import NBGRADER, nbgrader_env
from packlab.manifest import MANIFEST

EXERCISE = COURSE.exercise("02-greedy-pack")
LATE_STAMP = "2026-12-01 09:15:00.000000 UTC"  # two started days after the due date
ON_TIME = "2026-11-29 09:00:00.000000 UTC"
COMMENT = "Good fix <script>alert('hi')</script> & see me on Friday"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("term-truth"),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]


def run(*args: str, cwd: Path, toml: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "packlab.course.cli", *args], cwd=cwd,
                          env={**nbgrader_env(), "COLUMNS": "500",
                               "PACKLAB_COURSE_TOML": str(toml)},
                          capture_output=True, text=True, timeout=600)


def gradebook(course: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab")


def rows(path: Path) -> dict[str, dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {r["student"]: r for r in csv.DictReader(handle)
                if r["assignment"] == EXERCISE.name}


def grade(course: Path) -> subprocess.CompletedProcess:
    done = run("grade", str(course / "submitted"), "--out", str(course / "graded"),
               "--overrides", str(course / "overrides.csv"), cwd=course.parent,
               toml=course.parent / "course.toml")
    assert "Not written" not in done.stdout, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory, released_greedy_pack) -> Path:
    root = tmp_path_factory.mktemp("term-truth")
    course = root / "course"
    shutil.copytree(released_greedy_pack, course)
    entry = f'name = "{EXERCISE.name}"\n'
    (root / "course.toml").write_text(MANIFEST.read_text(encoding="utf-8").replace(
        entry, entry + 'due = "2026-11-29T17:00:00+00:00"\nlate_policy = { per_day = 0.1 }\n'),
        encoding="utf-8")
    submitted = course / "submitted"
    submit(submitted, "ada", EXERCISE, with_answer(EXERCISE, None))
    (submitted / "ada" / EXERCISE.name / "timestamp.txt").write_text(LATE_STAMP + "\n")
    submit(submitted, "bo", EXERCISE,
           with_answer(EXERCISE, gallery.load("pack/break_at_first_miss").code))
    (submitted / "bo" / EXERCISE.name / "timestamp.txt").write_text(ON_TIME + "\n")
    (course / "overrides.csv").write_text("student,assignment,points,score,reason\n"
                                          f"ada,{EXERCISE.name},0.5,,Explained it in class\n")
    grade(course)
    return course


def api(base: str, token: str, path: str, body: dict | None = None):
    """One call to formgrader's HTTP API (PUT with a JSON body, else GET)."""
    request = urllib.request.Request(
        f"{base}/formgrader/api/{path}", method="PUT" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - our own server
        return json.loads(answer.read())


def test_a_formgrader_session_survives_a_rerun_and_its_comment_reaches_the_bundle(course):
    from browser import chromium, require_browser
    from test_browser_formgrader import formgrader

    require_browser()

    failing = next(t["group"] for t in json.loads(
        (course / "graded" / "students" / "bo" / EXERCISE.name / "results.json").read_text()
    )["extra_data"]["groups"] if not t["passed"])
    cell = EXERCISE.grade_id(failing)
    with gradebook(course) as gb:
        notebook_id = gb.find_submission_notebook(EXERCISE.name, EXERCISE.name, "bo").id
        auto = gb.find_grade(cell, EXERCISE.name, EXERCISE.name, "bo").auto_score
    manual = EXERCISE.points[failing]  # the grader gives the cell its full points

    with formgrader(course) as url:
        base, token = url.split("/formgrader/")[0], url.rpartition("token=")[2]
        grades = api(base, token, f"grades?submission_id={notebook_id}")
        grade_id = next(g["id"] for g in grades if g["name"] == cell)
        done = api(base, token, f"grade/{grade_id}", {"manual_score": manual})
        assert done["needs_manual_grade"] is False
        comments = api(base, token, f"comments?submission_id={notebook_id}")
        api(base, token, f"comment/{comments[0]['id']}", {"manual_comment": COMMENT})

        grade(course)  # as the guides ask after each manual-grading session

        after = {g["name"]: g for g in api(base, token, f"grades?submission_id={notebook_id}")}
        assert after[cell]["manual_score"] == manual
        assert after[cell]["needs_manual_grade"] is False  # the queue stays empty
        assert not any(g["needs_manual_grade"] for g in after.values())

    bo = rows(course / "graded" / "grades.csv")["bo"]
    assert float(bo["manual"]) == manual - auto
    folder = course / "graded" / "students" / "bo" / EXERCISE.name
    results = json.loads((folder / "results.json").read_text())
    assert results["extra_data"]["marks"]["comments"] == [COMMENT]
    assert f"Comment from your instructor: {COMMENT}" in results["output"]
    page = (folder / "feedback.html").read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page

    bundles = course / "bundles"
    done = run("bundle", str(course / "graded"), "--to", str(bundles), cwd=course.parent,
               toml=course.parent / "course.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    bundled = bundles / "bo" / EXERCISE.name
    assert "&lt;script&gt;alert" in (bundled / "feedback.html").read_text()
    with chromium() as context:  # bo opens the page in his bundle: the comment, as text
        tab = context.new_page()
        alerts: list[str] = []
        tab.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
        tab.goto((bundled / "feedback.html").as_uri())
        assert f"Comment from your instructor: {COMMENT}" in tab.locator("body").inner_text()
    assert alerts == []
    assert json.loads((bundled / "results.json").read_text())["extra_data"]["marks"][
        "comments"] == [COMMENT]


def test_nbgrader_feedback_states_the_late_penalty_and_the_override_in_a_browser(course):
    from browser import chromium, require_browser

    require_browser()
    done = subprocess.run([str(NBGRADER), "generate_feedback", EXERCISE.name, "--student", "ada",
                           "--force"], cwd=course, env=nbgrader_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    page = course / "feedback" / "ada" / EXERCISE.name / f"{EXERCISE.name}.html"
    with chromium() as context:
        tab = context.new_page()
        tab.goto(page.as_uri())
        text = tab.locator("body").inner_text()
    top = EXERCISE.max_score
    penalty = round(0.1 * top * 2, 2)
    assert f"{penalty:g} points off" in text or f"{penalty:g} point off" in text, text[:3000]
    assert "2 days late" in text
    assert "Adjustment by your instructor: +0.5 points. Reason: Explained it in class" in text
    assert f"The tests gave {top:g} / {top:g}; after these, {top - penalty + 0.5:g} / {top:g}" \
        in text
    assert EXERCISE.grade_id(next(iter(EXERCISE.points))) in text  # where nbgrader counts it


def test_a_typo_in_extend_is_refused_with_the_close_id_named(course, tmp_path):
    copy = tmp_path / "course"
    shutil.copytree(course, copy, ignore=shutil.ignore_patterns("bundles", "feedback", "graded",
                                                                "autograded"))
    toml = course.parent / "course.toml"
    with gradebook(copy) as gb:
        before = {s.id for s in gb.students}
    done = run("extend", "02", "adaa", "--until", "2026-12-03T17:00Z", "--course", str(copy),
               cwd=tmp_path, toml=toml)
    assert done.returncode == 2, done.stdout
    assert "did you mean 'ada'" in done.stdout and "--new" in done.stdout
    with gradebook(copy) as gb:
        assert {s.id for s in gb.students} == before
    done = run("extend", "02", "dee", "--new", "--until", "2026-12-03T17:00Z", "--course",
               str(copy), cwd=tmp_path, toml=toml)
    assert done.returncode == 0, done.stdout
    with gradebook(copy) as gb:
        assert {s.id for s in gb.students} == before | {"dee"}


def test_nbgrader_export_gives_the_raw_score_before_the_late_penalty_and_override(course):
    """`nbgrader export` (with packlab's exporter, set in nbgrader_config.py): ada's raw_score
    is what her tests gave, her score the total after the late penalty and the override."""
    done = subprocess.run([str(NBGRADER), "export", "--to", "export.csv"], cwd=course,
                          env=nbgrader_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with (course / "export.csv").open(newline="", encoding="utf-8") as handle:
        ada = {r["student_id"]: r for r in csv.DictReader(handle)}["ada"]
    top = EXERCISE.max_score
    graded = rows(course / "graded" / "grades.csv")["ada"]
    assert float(ada["raw_score"]) == float(graded["raw_score"]) == top
    assert float(ada["score"]) == float(graded["score"]) == top - round(0.1 * top * 2, 2) + 0.5


def test_an_unknown_id_is_named_with_its_close_matches_or_none():
    from autograder.term.gradebook import unknown_student

    assert "did you mean 'grace'?" in unknown_student("grase", {"grace", "ada"})
    assert "no id is close to it" in unknown_student("nobody", {"grace", "ada"})
