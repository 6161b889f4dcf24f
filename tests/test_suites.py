"""The hidden test suites hold together: each suite's own reference passes it, and every mutant of
the gallery names a misconception its suite knows. (That each mutant really loses marks through
the real grader is in test_grading.py.)"""

from __future__ import annotations

from importlib import import_module

import pytest
from conftest import EXERCISES

from autograder.checks import gallery
from autograder.checks.suite import in_process_caller, run_group
from autograder.checks.suites import load

SUITES = sorted({exercise.suite for exercise in EXERCISES})
MUTANTS = gallery.every()


@pytest.mark.parametrize("name", SUITES)
def test_every_suite_has_a_gallery_of_mutants(name: str) -> None:
    assert len([m for m in MUTANTS if m.suite == name]) >= 5


@pytest.mark.parametrize("name", SUITES)
def test_the_reference_passes_every_group(name: str) -> None:
    suite = load(name)
    points = next(e.points for e in EXERCISES if e.suite == name)
    assert [group.name for group in suite.groups] == list(points)
    caller = in_process_caller(suite.reference)
    for group in suite.groups:
        result = run_group(group, caller)
        assert result.ok, "\n".join(failure.message() for failure in result.failures)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.key)
def test_the_misconception_exists_in_its_suite(mutant: gallery.Mutant) -> None:
    assert mutant.suite in SUITES, f"{mutant.key}: no exercise uses the suite {mutant.suite!r}"
    module = import_module(f"autograder.checks.suites.{mutant.suite}")
    assert mutant.misconception in module.MISCONCEPTIONS
    assert mutant.description, f"{mutant.key}: say in one line what this wrong answer does"
