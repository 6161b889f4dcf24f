"""What a report may name: the course's exercises, each one's checks and misconceptions (the
service refuses anything else, and the chart shows the course's own words, never a learner's)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from autograder.checks import unwritten
from autograder.checks.suite import common_misconceptions
from autograder.checks.suites import load as load_suite
from packlab.manifest import load as load_course

# Misconceptions any suite may name besides its own (autograder.checks.suite, .compare).
SHARED = {unwritten.KEY: "the function is not written yet",
          "nondeterministic": "the answer changes from one run to the next",
          "unnamed": "a wrong answer this install cannot name"}


@dataclass(frozen=True)
class Exercise:
    name: str
    checks: frozenset[str]
    misconceptions: dict[str, str]  # key -> the course's sentence


def _misconceptions(suite: str) -> dict[str, str]:
    texts = {key: wrong.text for key, wrong in common_misconceptions("").items()}
    texts.update({key: wrong.text for key, wrong in getattr(
        import_module(f"autograder.checks.suites.{suite}"), "MISCONCEPTIONS", {}).items()})
    return {**texts, **SHARED}


def catalogue() -> tuple[str, dict[str, Exercise]]:
    """The course's title and its exercises by name."""
    course = load_course()
    exercises = {}
    for exercise in course.exercises:
        suite = load_suite(exercise.suite)
        checks = frozenset(check.name for group in suite.groups for check in group.checks)
        exercises[exercise.name] = Exercise(exercise.name, checks, _misconceptions(exercise.suite))
    return course.title, exercises
