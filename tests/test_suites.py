"""The hidden test suites hold together: the course's own packers pass them, and every mutant of
the gallery names a misconception its suite knows. (That each mutant really loses marks through
the real grader is in test_grading.py.)"""

from __future__ import annotations

from importlib import import_module

import pytest

from autograder import gallery
from autograder.suite import in_process_caller, run_group
from autograder.suites import load
from packlab.packers import greedy, report


def total_tokens(parts: list[dict]) -> int:
    return sum(part["tokens"] for part in parts)


CORRECT = {"total_tokens": total_tokens, "pack": greedy, "pack_report": report}
MUTANTS = gallery.every()


def test_every_suite_has_mutants() -> None:
    assert {mutant.suite for mutant in MUTANTS} == set(CORRECT)


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_the_right_answer_passes_every_group(name: str) -> None:
    suite = load(name)
    assert [group.name for group in suite.groups] == ["visible", "edge-cases", "properties"]
    caller = in_process_caller(CORRECT[name])
    for group in suite.groups:
        result = run_group(group, caller)
        assert result.ok, "\n".join(failure.message() for failure in result.failures)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.key)
def test_the_misconception_exists_in_its_suite(mutant: gallery.Mutant) -> None:
    module = import_module(f"autograder.suites.{mutant.suite}")
    assert mutant.misconception in module.MISCONCEPTIONS
    assert mutant.description, f"{mutant.key}: say in one line what this wrong answer does"
