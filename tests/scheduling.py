"""The order in which `make test`'s workers take their work: the longest first.

With `--dist loadgroup`, an xdist group (or else a module) is one unit of work and runs on one
worker. pytest-xdist hands the units out in the order it is given; by default it first sorts them
by their number of tests, which puts a group of eight slow tests (a real hub, a whole guide walk)
behind every module of quick ones: started last, it kept one worker busy alone while the others
had finished. `make test` turns that sort off (`--no-loadscope-reorder`) and this hook puts the
units that take longest first, longest first, so that the quick ones fill in around them. The
ranking is a measured one (book/speed.md, "The whole test suite"); a wrong rank costs time, never
a result, and tests/test_xdist_groups.py checks that each name is a unit the suite has.
"""

from __future__ import annotations

import as_user
import pytest

LONGEST = ("guides", "browser-lab", "ordinary-user", "book", "hub", "student-build", "plain-parity",
           "parity", "plain-nbgrader", "cluster", "gradebook", "room-hub", "must-raise", "slides",
           "term-truth", "feedback_route", "late", "resume", "demo", "formgrader", "lab",
           "misconceptions", "release", "similarity", "hidden_split", "unrunnable")


def unit(item: pytest.Item) -> str:
    """The unit of work `--dist loadgroup` makes of ``item``: its module, or, as pytest-xdist
    names it, the names of all its xdist groups joined."""
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return "_".join(sorted(names)) if names else item.nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(unit(item), len(rank)))  # stable: the rest as collected


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tell tests/as_user.py which unit of work the test about to run is in."""
    as_user.running_in = unit(item)
