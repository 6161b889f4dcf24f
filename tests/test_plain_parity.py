"""Plain nbgrader assignments of every kind, graded by real `nbgrader autograde` and by
`packlab grade` on the same files: every test cell's score and every total must agree.

The assignments (tests/fixtures/plain_parity, written the way nbgrader's documentation and its
own test notebooks are): `science` (tests importing numpy and matplotlib, reading data.txt and
parts.json that sit beside the notebook, an image beside it, a task cell of 4 points and a test
that checks NBGRADER_EXECUTION), `loops` (an endless loop in one test cell, more test cells after
it; the course's nbgrader_config.py sets `c.Execute.timeout = 5`), `zero` (a notebook worth 0
points), `essay` (answers a person grades, nothing autograded) and `auto` (`### AUTOTEST` and
`### HASHED AUTOTEST` lines, expanded by nbgrader from the autotests.yml beside the notebook)
and `ps1`, two notebooks as nbgrader's documented ps1 (problem1: autograded tests, one with a
hidden block, and a task cell; problem2: an answer a person grades and no autograded test; the
image jupyter.png beside them; grade_ids `intro` and `explain` in both), handed in by one class,
one of whom left problem2 out.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from packlab.course.release import BIN, NBGRADER, nbgrader_env, release
from packlab.manifest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("plain-parity")]

FIXTURES = Path(__file__).parent / "fixtures" / "plain_parity"
ASSIGNMENTS = ("science", "loops", "zero", "essay", "auto", "ps1")
TIMEOUT = 5  # the course's per-cell timeout, in its nbgrader_config.py

SCIENCE_RIGHT = ("import numpy as np\n\ndef mean_of(path):\n"
                 "    return float(np.mean([float(x) for x in open(path).read().split()]))")
LOOPS_RIGHT = "def total(xs):\n    return sum(xs)"
SQUARES_RIGHT = ("def squares(n):\n    if n < 1:\n        raise ValueError(n)\n"
                 "    return [i * i for i in range(1, n + 1)]")
HANDED_IN = {
    ("science", "right"): {"mean-answer": SCIENCE_RIGHT},
    ("science", "off-by-one"): {"mean-answer": SCIENCE_RIGHT.replace("float(np.mean(",
                                                                      "1 + float(np.mean(")},
    ("science", "blank"): {},
    ("science", "leaker"): {  # raises the hidden block back, reversed, every way it can
        "mean-answer": "def mean_of(path):\n    raise AssertionError(In[-1][::-1])",
        "+": "print(In[-2][::-1])\nraise ValueError(In[-2][::-1])"},
    ("loops", "right"): {"total-answer": LOOPS_RIGHT},
    ("loops", "endless"): {"total-answer": "def total(xs):\n    xs = list(xs)\n"
                           "    while len(xs) == 3:\n        pass\n    return sum(xs)"},
    ("loops", "deleted-test"): {"total-answer": LOOPS_RIGHT, "total-range": None},
    ("zero", "right"): {"half-answer": "def half(x):\n    return x / 2"},
    ("zero", "blank"): {},
    ("essay", "right"): {"why-answer": "A smaller part may still fit.",
                         "left-answer": "def budget_left(budget, used):\n    return budget - used"},
    ("essay", "blank"): {},
    ("auto", "right"): {"answer-cell": "answer = 42"},
    ("auto", "off-by-one"): {"answer-cell": "answer = 43"},
    ("auto", "blank"): {},
    ("ps1", "blank"): {},
    ("ps1", "partly"): {"problem1/squares": SQUARES_RIGHT.replace("n < 1", "n == 0")},
    ("ps1", "right"): {"problem1/squares": SQUARES_RIGHT,
                       "problem2/explain": "(n + 1)² - n² = 2n + 1, which grows by 2."},
    ("ps1", "problem2-missing"): {"problem1/squares": SQUARES_RIGHT, "problem2.ipynb": None},
}
STUDENTS = sorted({s for _, s in HANDED_IN})


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def hand_in(course: Path, assignment: str, student: str, changes: dict) -> None:
    """The release (notebooks and the files beside them) with the answers of ``changes``, by
    cell as packlab names it (its grade_id, after its notebook's name in an assignment of
    several: "problem1/squares"; None: the cell deleted; "problem2.ipynb": None, the notebook
    left out), handed in as nbgrader's collect leaves it."""
    folder = course / "submitted" / student / assignment
    shutil.copytree(course / "exercises" / assignment, folder)
    paths = sorted(folder.glob("*.ipynb"))
    for path in paths:
        if path.name in changes:
            path.unlink()
            continue
        prefix = f"{path.stem}/" if len(paths) > 1 else ""
        nb = nbformat.read(path, as_version=4)
        kept = []
        for cell in nb.cells:
            change = changes.get(prefix + (grade_id(cell) or ""), "")
            if change is not None:
                cell.source = change or cell.source
                kept.append(cell)
        nb.cells = kept
        if "+" in changes:  # a cell of the student's own, at the end
            nb.cells.append(nbformat.v4.new_code_cell(changes["+"]))
        nbformat.write(nb, path)
    (folder / "timestamp.txt").write_text("2025-11-20 09:00:00.000000 UTC", encoding="utf-8")


def course_folder(folder: Path) -> Path:
    for name in ASSIGNMENTS:
        shutil.copytree(FIXTURES / name, folder / "solutions" / name)
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    (folder / "nbgrader_config.py").write_text(config + f"\nc.Execute.timeout = {TIMEOUT}\n",
                                               encoding="utf-8")
    shutil.copy(ROOT / "course.toml", folder)
    release("*", folder)  # one nbgrader process releases every assignment of solutions/
    for (assignment, student), changes in HANDED_IN.items():
        hand_in(folder, assignment, student, changes)
    return folder


def tracebacks(log: str) -> list[str]:
    """Each traceback nbgrader logged (the cause of a failed assignment: its last lines only
    say there was an error), up to its next log line."""
    return re.findall(r"Traceback \(most recent call last\).*?(?=\n\[\w+ *\||\Z)", log,
                      flags=re.DOTALL)


def run(course: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**nbgrader_env(), "PACKLAB_COURSE_TOML": str(course / "course.toml")}
    return subprocess.run(list(argv), cwd=course, env=env, capture_output=True, text=True,
                          timeout=1800)


def nbgrader_scores(course: Path) -> dict:
    """(assignment, student) -> each graded cell's auto score (None: not autograded) and the
    total, from nbgrader's gradebook; and each assignment's most."""
    from nbgrader.api import Gradebook

    found, most = {}, {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
        for name in ASSIGNMENTS:
            most[name] = gb.find_assignment(name).max_score
            for submission in gb.assignment_submissions(name):
                several = len(submission.notebooks) > 1
                cells = {(f"{nb.name}/" if several else "") + g.name: g.auto_score
                         for nb in submission.notebooks for g in nb.grades}
                found[name, submission.student.id] = {
                    "cells": cells, "total": sum(score or 0 for score in cells.values()),
                    "notebooks": {nb.name: sum(g.auto_score or 0 for g in nb.grades)
                                  for nb in submission.notebooks}}
    return found, most


def packlab_scores(out: Path, assignment: str, student: str, cells: list[str]) -> dict:
    data = json.loads((out / "students" / student / assignment / "results.json").read_text())
    scored = {g["group"]: t["score"] for g, t in
              zip(data["extra_data"]["groups"], data["tests"], strict=True)}
    return {"cells": {name: scored.get(name) for name in cells},
            "total": data["extra_data"]["raw_score"], "most": data["extra_data"]["max_score"],
            "data": data}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = course_folder(tmp_path_factory.mktemp("parity") / "course")
    done = run(course, str(NBGRADER), "autograde", "*", "--force",  # one process, every one
               "--Autograde.create_student=True")
    log = course.parent / "autograde.log"  # every assignment's: its tail may not hold the cause
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    assert done.returncode == 0, f"nbgrader autograde failed (whole log: {log}):\n" + \
        "\n".join(tracebacks(done.stderr)) + "\n...\n" + done.stderr[-1500:]
    theirs, most = nbgrader_scores(course)
    (course / "autograded").rename(course / "autograded-by-nbgrader")  # packlab writes its own
    done = run(course, str(BIN / "packlab"), "grade", "submitted", "--out", "out")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    feedback = {name: run(course, str(NBGRADER), "generate_feedback", name, "--force")
                for name in ("science", "ps1")}
    return {"course": course, "nbgrader": theirs, "most": most, "stdout": done.stdout,
            "feedback": feedback}


@pytest.mark.parametrize(("assignment", "student"), sorted(HANDED_IN))
def test_each_cell_and_total_as_nbgrader(graded, assignment, student):
    theirs = graded["nbgrader"][assignment, student]
    ours = packlab_scores(graded["course"] / "out", assignment, student, list(theirs["cells"]))
    for name, score in theirs["cells"].items():
        if ours["cells"][name] is not None:  # packlab left answers a person grades to them
            assert ours["cells"][name] == score, (name, ours["cells"], theirs["cells"])
    assert ours["total"] == theirs["total"], (ours["data"]["extra_data"]["notes"], theirs)
    assert ours["most"] == graded["most"][assignment]


def test_the_class_covers_what_the_issue_found(graded):
    theirs = graded["nbgrader"]
    assert theirs["science", "right"]["total"] == 6  # numpy, matplotlib, data.txt, parts.json
    assert theirs["loops", "endless"]["total"] == 4  # interrupted; the rest still ran
    assert theirs["loops", "deleted-test"]["cells"]["total-range"] is None  # left ungraded
    assert graded["most"]["science"] == 10  # its task's 4 points count
    assert graded["most"]["zero"] == 0
    assert theirs["auto", "blank"]["total"] == 0 and theirs["auto", "right"]["total"] == 3


def test_the_gradebook_is_written_for_every_assignment(graded):
    said = graded["stdout"]
    assert "Not written to nbgrader's gradebook" not in said, said
    assert "not written to the gradebook" not in said, said
    for name in ASSIGNMENTS:
        for student in ("right", "blank"):
            if (name, student) in HANDED_IN:
                for notebook in (FIXTURES / name).glob("*.ipynb"):
                    assert (graded["course"] / "autograded" / student / name /
                            notebook.name).is_file(), (name, student, notebook.name)


def test_files_beside_the_notebook_reach_the_feedback(graded):
    assert graded["feedback"]["science"].returncode == 0, \
        graded["feedback"]["science"].stderr[-2000:]
    folder = graded["course"] / "feedback" / "right" / "science"
    assert (folder / "jupyter.png").is_file() and (folder / "data.txt").is_file()


def test_each_notebook_scores_as_nbgrader_scores_it(graded):
    """ps1's notebooks one by one: nbgrader's per-notebook totals, problem2 left out scoring 0."""
    for student in ("blank", "partly", "right", "problem2-missing"):
        theirs = graded["nbgrader"]["ps1", student]
        data = packlab_scores(graded["course"] / "out", "ps1", student, [])["data"]
        ours = {name: sum(g["points"] for g in data["extra_data"]["groups"]
                          if g["group"].startswith(f"{name}/")) for name in theirs["notebooks"]}
        assert ours == theirs["notebooks"], (student, ours, theirs)
    assert graded["nbgrader"]["ps1", "partly"]["notebooks"] == {"problem1": 2, "problem2": 0}
    assert graded["nbgrader"]["ps1", "problem2-missing"]["notebooks"] == {"problem1": 3,
                                                                           "problem2": 0}
    missing = packlab_scores(graded["course"] / "out", "ps1", "problem2-missing", [])["data"]
    assert any("problem2.ipynb was not handed in" in n for n in missing["extra_data"]["notes"])


def test_the_autograded_folder_holds_what_nbgrader_s_holds(graded):
    """Every notebook handed in and the files beside them, as `nbgrader autograde` left them;
    `nbgrader generate_feedback` renders a page per notebook, the image carried."""
    course = graded["course"]
    for student in ("blank", "partly", "right", "problem2-missing"):
        listed = {folder: sorted(p.name for p in (course / folder / student / "ps1").iterdir())
                  for folder in ("autograded-by-nbgrader", "autograded")}
        assert listed["autograded"] == listed["autograded-by-nbgrader"], listed
    assert graded["feedback"]["ps1"].returncode == 0, graded["feedback"]["ps1"].stderr[-2000:]
    right = course / "feedback" / "right" / "ps1"
    assert {p.name for p in right.iterdir()} >= {"problem1.html", "problem2.html", "jupyter.png"}
    assert "correct_squares" in (right / "problem1.html").read_text(encoding="utf-8")
    missing = {p.name for p in (course / "feedback" / "problem2-missing" / "ps1").iterdir()}
    assert "problem1.html" in missing and "problem2.html" not in missing


def test_an_endless_loop_says_what_happened(graded):
    ours = packlab_scores(graded["course"] / "out", "loops", "endless", ["total-three"])
    said = {t["name"]: t["output"] for t in ours["data"]["tests"]}
    assert "ran past nbgrader's time limit for a cell" in said["total-three"], said
    assert "time limit" not in said["total-range"] and ours["total"] == 4


@pytest.mark.parametrize("student", ["off-by-one", "leaker"])
def test_the_hidden_test_s_text_reaches_no_page(graded, student):
    out = graded["course"] / "out" / "students" / student / "science"
    pages = [p for p in out.iterdir() if p.suffix in (".json", ".html", ".md", ".txt")]
    pages.append(graded["course"] / "autograded" / student / "science" / "science.ipynb")
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for secret in ("exactly 2.5", "5.2 yltcaxe", "2.5) < 1e-9", "9-e1 < )5.2"):
            assert secret not in text, (path, secret)
    assert len(pages) >= 3
