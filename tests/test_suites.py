"""The hidden test suites are honest: right answers pass, every known wrong answer is caught.

Each file of the mutant gallery (autograder/mutants/<suite>/<name>.py) is a wrong answer whose
first line names the misconception its feedback must point to.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path

import pytest

from autograder.suite import GroupResult, Suite, in_process_caller, run_group
from autograder.suites import load
from packlab.packers import greedy, report

GALLERY = Path(__file__).resolve().parents[1] / "autograder" / "mutants"
MUTANTS = sorted(GALLERY.glob("*/*.py"))
HEADER = "# misconception: "


def total_tokens(parts: list[dict]) -> int:
    return sum(part["tokens"] for part in parts)


CORRECT = {"total_tokens": total_tokens, "pack": greedy, "pack_report": report}


def run_all(suite: Suite, func: Callable) -> list[GroupResult]:
    caller = in_process_caller(func)
    return [run_group(group, caller) for group in suite.groups]


def intended_misconception(path: Path) -> str:
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert first_line.startswith(HEADER), f"{path.name} must start with {HEADER!r}"
    return first_line.removeprefix(HEADER).strip()


def mutant_function(path: Path, suite: Suite) -> Callable:
    """Run the mutant's source in a fresh namespace and take the suite's function from it."""
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace[suite.function]


def mutant_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_every_suite_has_mutants() -> None:
    assert {path.parent.name for path in MUTANTS} == set(CORRECT)


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_the_right_answer_passes_every_group(name: str) -> None:
    suite = load(name)
    assert [group.name for group in suite.groups] == ["visible", "edge-cases", "properties"]
    for result in run_all(suite, CORRECT[name]):
        assert result.ok, "\n".join(failure.message() for failure in result.failures)


@pytest.mark.parametrize("path", MUTANTS, ids=mutant_id)
def test_the_misconception_exists_in_its_suite(path: Path) -> None:
    module = import_module(f"autograder.suites.{path.parent.name}")
    assert intended_misconception(path) in module.MISCONCEPTIONS


@pytest.mark.parametrize("path", MUTANTS, ids=mutant_id)
def test_a_wrong_answer_loses_marks_for_its_misconception(path: Path) -> None:
    suite = load(path.parent.name)
    results = run_all(suite, mutant_function(path, suite))
    failures = [failure for result in results for failure in result.failures]
    assert failures, f"{mutant_id(path)} passed every group"
    named = {failure.misconception.key for failure in failures}
    assert intended_misconception(path) in named, "\n".join(f.message() for f in failures)


def test_the_break_bug_fails_every_group_so_its_starter_scores_zero() -> None:
    suite = load("pack")
    path = GALLERY / "pack" / "break_at_first_miss.py"
    for result in run_all(suite, mutant_function(path, suite)):
        assert not result.ok, f"the break bug passes the {result.group!r} group"
