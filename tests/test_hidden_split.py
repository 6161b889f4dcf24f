"""The hidden test groups live in `autograder.checks.hidden`, apart from the visible ones, so a
student install can leave them out; without them nothing grades on part of the tests, silently."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest
from conftest import EXERCISES, submit, with_answer

from autograder.checks.suite import Group
from autograder.checks.suites import load

# The module's fixtures are built once only if its tests share one xdist worker.
pytestmark = pytest.mark.xdist_group("hidden_split")

ROOT = Path(__file__).resolve().parents[1]
SUITES = sorted(p.stem for p in (ROOT / "autograder" / "checks" / "suites").glob("[a-z]*.py"))
PACK = next(e for e in EXERCISES if e.name == "02-greedy-pack")


def checks_of(groups: tuple[Group, ...]) -> list[tuple[str, str, bool, list[str]]]:
    return [(g.name, g.description, g.visible, [c.name for c in g.checks]) for g in groups]


@pytest.mark.parametrize("name", SUITES)
def test_a_suite_module_holds_its_visible_groups_only(name):
    module = import_module(f"autograder.checks.suites.{name}")
    assert module.SUITE.groups and all(group.visible for group in module.SUITE.groups)
    hidden_here = [key for key, value in vars(module).items()
                   if isinstance(value, Group) and not value.visible]
    assert not hidden_here, \
        f"autograder/checks/suites/{name}.py defines hidden groups: {hidden_here}"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_the_hidden_groups_come_from_the_hidden_package(exercise):
    hidden = import_module(f"autograder.checks.hidden.{exercise.suite}").GROUPS
    assert hidden and not any(group.visible for group in hidden)
    merged = load(exercise.suite).groups
    assert checks_of(tuple(g for g in merged if not g.visible)) == checks_of(hidden)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_the_merged_suite_is_what_course_toml_scores(exercise):
    suite = load(exercise.suite)
    assert [group.name for group in suite.groups] == list(exercise.points)
    assert suite.missing == ()


# Run in a child process whose imports cannot reach autograder.checks.hidden, as in the student
# install.
STUDENT_INSTALL = r"""
import io, json, sys
from contextlib import redirect_stdout

class NoHiddenTests:
    def find_spec(self, name, path=None, target=None):
        if name == "autograder.checks.hidden" or name.startswith("autograder.checks.hidden."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoHiddenTests())

from autograder.run.engine import grade_notebook
from autograder.checks.suites import load
from packlab.course.check import run_tests
from packlab.course.cli import main
from packlab.manifest import load as load_course
from packlab.packing.packers import greedy


def pack(parts, budget):  # the course's greedy, answering as exercise 02 asks: a list of ids
    return list(greedy(parts, budget).taken)


notebook, suites = sys.argv[1], sys.argv[2:]
exercise = load_course().exercise("02-greedy-pack")
seen = {"suites": {n: [[g.name for g in load(n).groups], list(load(n).missing)] for n in suites}}
every = grade_notebook(notebook, exercise, "ref")
visible = grade_notebook(notebook, exercise, "ref", groups=("visible",))
seen["every"] = [every.error, every.score, len(every.groups)]
seen["visible"] = [visible.error, visible.score, [g.name for g in visible.groups]]
try:
    with redirect_stdout(io.StringIO()):
        run_tests("02-greedy-pack", pack, "edge-cases")
    seen["run_tests"] = "no error"
except Exception as exc:
    seen["run_tests"] = f"{type(exc).__name__}: {exc}"
out = io.StringIO()
with redirect_stdout(out):
    run_tests("02-greedy-pack", pack, "visible")
seen["visible_cell"] = out.getvalue()
out = io.StringIO()
with redirect_stdout(out):
    seen["check_exit"] = main(["check", "--all", notebook])
seen["check_said"] = out.getvalue()
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def student_install(tmp_path_factory) -> dict:
    """What the suites, the grader, a test cell and `packlab check --all` do without the
    hidden package (the reference answer of exercise 02 graded)."""
    notebook = submit(tmp_path_factory.mktemp("submitted"), "ref", PACK, with_answer(PACK, None))
    done = subprocess.run([sys.executable, "-c", STUDENT_INSTALL, str(notebook), *SUITES],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_without_the_hidden_package_a_suite_is_its_visible_group_and_says_so(student_install):
    for name, (groups, missing) in student_install["suites"].items():
        steps = [group.removesuffix("-visible") for group in groups]
        if steps == ["visible"]:
            assert missing == ["edge-cases", "properties"], name
        else:  # an exercise in graded steps: each step's visible group, its hidden one missing
            assert all(group.endswith("-visible") for group in groups), name
            assert missing == [f"{step}-hidden" for step in steps], name


def test_without_the_hidden_package_the_grader_refuses_to_grade_everything(student_install):
    error, score, graded = student_install["every"]
    assert error == ("the hidden tests are not installed here (this is the student install); "
                     "grade with the instructor's install")
    assert (score, graded) == (0, 0)


def test_without_the_hidden_package_the_visible_group_still_grades(student_install):
    assert student_install["visible"] == [None, PACK.points["visible"], ["visible"]]


def test_without_the_hidden_package_a_hidden_test_cell_says_so(student_install):
    assert student_install["run_tests"] == (
        "HiddenTestsNotInstalled: The hidden tests (edge-cases) are not part of this install: "
        "they run when your notebook is graded.")


def test_without_the_hidden_package_the_visible_cell_says_what_grading_decides(student_install):
    said = student_install["visible_cell"].strip().splitlines()
    assert said[-1] == ("Here: 1 / 1 point. The hidden tests decide the other 4 points of 5 when "
                        "your notebook is graded.")
    assert "Hidden edge cases" not in "\n".join(said)


def test_without_the_hidden_package_check_all_says_so_and_runs_the_visible_checks(
        student_install):
    said = student_install["check_said"]
    assert student_install["check_exit"] == 0, said
    assert ("The hidden tests (edge-cases, properties) are not part of this install: they run "
            "when your notebook is graded. Checking the visible tests only.") in said
    assert said.count("✓") == len(load("pack").group("visible").checks)
    assert "Every check passed. Next: the hidden tests run when it is graded." in said
    assert "--all" not in said.split("Every check passed")[1]
