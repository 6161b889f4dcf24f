"""No detail of the grading machine reaches a student, whatever their code read (issue 37).

A cell that reads ``/proc/*/cmdline`` sees bubblewrap's command line, the interpreter's folder
and the worker's source. `autograder.run.machine.hidden` takes them out of every text made from
what a student's code raised, printed or returned. Its rules are tried here on their own; the
course's exercises are tried through the attack gallery (reads_the_machine, tests/test_attacks.py)
and a plain nbgrader assignment here, graded by `packlab grade` as the user running the tests
(root in CI) and as an ordinary user.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from as_user import folder, give, run_as_user

from autograder import worker
from autograder.run import isolation, machine
from autograder.run.isolation import Limits
from packlab.manifest import ROOT

pytestmark = pytest.mark.xdist_group("ordinary-user")  # one ordinary user: one test at a time

WORKER_SOURCE = Path(worker.__file__).read_text(encoding="utf-8")
# What must never be shown: the sandbox's options, the interpreter's folder, the worker's source.
DETAILS = ("bwrap", "--unshare", "--ro-bind", "--seccomp", "--die-with-parent", isolation.STAGE,
           WORKER_SOURCE[3:40], "def _run_cells(", *isolation.host_paths())


def command_line() -> list[str]:
    plan = isolation.plan(True, Limits())
    return [*plan.argv(9), *isolation.PYTHON_FLAGS, "-c", WORKER_SOURCE, "5", "6"]


def shown(text: str) -> list[str]:
    return [detail for detail in DETAILS if detail in text]


@pytest.mark.parametrize("form", [
    lambda words: "\0".join(words),  # read as text
    lambda words: repr("\0".join(words).encode()),  # read as bytes, raised
    lambda words: repr(words),  # split on NULs, raised as a list
    lambda words: " ".join(words),
    lambda words: json.dumps("\0".join(words)),
], ids=["text", "bytes", "list", "spaces", "json"])
def test_a_command_line_read_from_proc_is_hidden_in_every_form(form):
    text = form(command_line())
    assert shown(text), "the test shows nothing to hide"
    for cut in (len(text), 500, 200):  # the worker keeps 500 characters of a message
        said = machine.hidden(f"cell 3 raised RuntimeError: {text[:cut]}")
        assert shown(said) == [], said
        assert said.startswith("cell 3 raised RuntimeError: ")
    assert len(machine.hidden(text)) < 200  # of about 15,000: the words of its messages stay


def test_paths_of_the_machine_are_hidden_even_cut_short():
    prefix = isolation.host_paths()[0]
    said = machine.hidden(f"FileNotFoundError: {prefix}/lib/python3/x.py and {prefix[:12]} …")
    assert prefix not in said and prefix[:12] not in said, said
    assert said.startswith("FileNotFoundError: …/lib/python3/x.py and …")


@pytest.mark.parametrize("honest", [
    "ValueError: budget must be at least 0, got -3",
    "KeyError: 'tokens'",
    "IndexError: list index out of range",
    "TypeError: pack() takes 2 positional arguments but 3 were given",
    "[{'id': 'sys', 'tokens': 100}, {'id': 'doc', 'tokens': 250}] " * 10,
    "AssertionError: the student's code returned a list of plain data, not a dict " * 3,
    "/home/ada/notes.txt and /usr/lib/python3 --verbose -c 'print(1)'",
])
def test_an_honest_message_is_left_as_it_is(honest):
    """(A message holding 24 characters in a row of the worker's own text would lose them.)"""
    assert machine.hidden(honest) == honest


# A plain nbgrader assignment (tests/fixtures/plain/quiz1) whose answer reads the machine: its
# answer cell prints and raises what it read, and its `squares` raises it in the test cells.
QUIZ = "quiz1"
FIXTURE = Path(__file__).parent / "fixtures" / "plain" / QUIZ
READS = (ROOT / "autograder" / "checks" / "attacks" / "reads_the_machine.py").read_text()
HOSTILE = READS.split("def pack")[0] + (
    "def squares(n):\n    raise RuntimeError(machine())\n\n\n"
    "print(machine())\nraise RuntimeError(machine())\n")


def hostile_notebook() -> nbformat.NotebookNode:
    nb = nbformat.read(FIXTURE / f"{QUIZ}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "squares-answer":
            cell.source = HOSTILE
        if "### BEGIN HIDDEN TESTS" in cell.source:  # as released
            cell.source = cell.source.split("### BEGIN HIDDEN TESTS")[0]
    return nb


def the_course(base: Path) -> Path:
    """A course of the quiz alone, with eve's hostile submission; its course.toml's path."""
    shutil.copytree(FIXTURE, base / "solutions" / QUIZ)
    shutil.copy(ROOT / "course.toml", base / "course.toml")
    handed = base / "submitted" / "eve" / QUIZ
    handed.mkdir(parents=True)
    nbformat.write(hostile_notebook(), handed / f"{QUIZ}.ipynb")
    return base / "course.toml"


GRADE = ("import os, sys\nos.environ['PACKLAB_COURSE_TOML'] = sys.argv.pop(1)\n"
         "from packlab.course.cli import main\nraise SystemExit(main())\n")


@pytest.fixture(scope="module", params=["invoking user", "ordinary user"])
def graded(request, tmp_path_factory):
    """The class graded with `packlab grade` by each user: OUT."""
    base = folder() if request.param == "ordinary user" else tmp_path_factory.mktemp("machine")
    try:
        toml = the_course(base)
        args = (str(toml), "grade", str(base / "submitted"), "--out", str(base / "out"),
                "--jobs", "1")
        if request.param == "ordinary user":
            give(base)
            done = run_as_user(GRADE, *args)
            said = done.stdout + done.stderr
        else:
            import subprocess
            import sys

            done = subprocess.run([sys.executable, "-c", GRADE, *args], capture_output=True,
                                  text=True, timeout=600)
            said = done.stdout + done.stderr
        assert done.returncode == 0, said[-3000:]
        yield base / "out", said
    finally:
        if request.param == "ordinary user":
            shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
def test_a_plain_assignment_shows_no_machine_detail_anywhere(graded):
    """feedback.html, results.json, grades.csv, the records: every file of OUT, and what
    `packlab grade` printed, after a cell raised and printed /proc's command lines and the
    answer raised them in every test cell."""
    out, said = graded
    page = (out / "students" / "eve" / QUIZ / "feedback.html").read_text(encoding="utf-8")
    assert "cell 2 raised RuntimeError: " in page and "…" in page  # details hidden
    assert "RuntimeError" in (out / "students" / "eve" / QUIZ / "results.json").read_text()
    assert shown(said) == []
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert shown(text) == [], f"{path.relative_to(out)}: {shown(text)}"
