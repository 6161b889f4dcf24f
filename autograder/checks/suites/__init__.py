"""One test suite per exercise function: ``load("pack")`` is ``autograder.checks.suites.pack.SUITE``
(its visible groups) and ``autograder.checks.hidden.pack.GROUPS`` (its hidden groups), in the order
course.toml gives their points (an exercise in steps: each step's visible group, then its hidden
one), each check saying "not written yet" of an answer that still raises NotImplementedError.

The student install has no ``autograder.checks.hidden``: there ``load`` gives the visible group only
and names the hidden groups it lacks in `Suite.missing`.
"""

from dataclasses import replace
from functools import cache
from importlib import import_module

from autograder.checks import hidden_installed
from autograder.checks.suite import Group, Suite
from autograder.checks.unwritten import explain
from packlab.manifest import load as load_course

NOT_INSTALLED = ("the hidden tests are not installed here (this is the student install); grade "
                 "with the instructor's install")


@cache
def load(name: str) -> Suite:
    suite = import_module(f"autograder.checks.suites.{name}").SUITE
    order = _course_groups(name)
    rank = {group: position for position, group in enumerate(order)}
    groups = sorted(suite.groups + _hidden_groups(name),
                    key=lambda group: rank.get(group.name, len(order)))
    named = {group.name for group in groups}
    missing = tuple(group for group in order if group not in named)
    return replace(suite, missing=missing, groups=tuple(
        replace(group, checks=tuple(explain(check, suite.function) for check in group.checks))
        for group in groups))


def _hidden_groups(name: str) -> tuple[Group, ...]:
    """The suite's hidden groups, or none when the hidden package is not installed."""
    if not hidden_installed():
        return ()
    return import_module(f"autograder.checks.hidden.{name}").GROUPS


def _course_groups(name: str) -> list[str]:
    """The test groups that course.toml gives points to, for the exercises using this suite."""
    return list(dict.fromkeys(group for exercise in load_course().exercises
                              if exercise.suite == name for group in exercise.points))
