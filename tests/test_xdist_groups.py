"""`make test` runs on every core with `--dist loadgroup`: tests that share a slow fixture or must
not overlap (the ordinary user's grading, the release, the student install) say so with
`xdist_group`. This checks the installed pytest and pytest-xdist still honour it: pytest 9 with
pytest-xdist 3.8 silently spread every group over all workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict

import as_user
import pytest
import scheduling
from scheduling import LONGEST

from packlab.manifest import ROOT

GROUPED = '''
import pytest

pytestmark = [pytest.mark.xdist_group("{group}")]


@pytest.mark.parametrize("n", range(6))
def test_in_the_group(n):
    pass
'''
LOOSE = '''
import pytest


@pytest.mark.parametrize("n", range(12))
def test_anywhere(n):
    pass
'''


def test_each_xdist_group_runs_on_one_worker(tmp_path):
    for group in ("first", "second"):
        (tmp_path / f"test_{group}.py").write_text(GROUPED.format(group=group))
    (tmp_path / "test_loose.py").write_text(LOOSE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
         "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = defaultdict(set)
    passed = re.findall(r"\[(gw\d+)\] .*PASSED \S*test_(first|second)\.py", done.stdout)
    for worker, module in passed:
        workers[module].add(worker)
    assert set(workers) == {"first", "second"}, done.stdout
    assert all(len(ran_on) == 1 for ran_on in workers.values()), dict(workers)


UNITS = """
import scheduling


def pytest_collection_finish(session):
    print("UNITS", *(scheduling.unit(item) for item in session.items))
"""


def collected_units(request, tmp_path) -> list[str]:
    """The unit of each test of the suite, in collection order: this session's own, when it
    collected every unit scheduling.LONGEST names (`make test` does: every worker collects the
    whole suite), else a collection of the whole tests/ folder in a pytest of its own."""
    units = [scheduling.unit(item) for item in request.session.items]
    if all(name in units for name in LONGEST):
        return units
    (tmp_path / "print_units.py").write_text(UNITS)
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                           "no:cacheprovider", "-p", "print_units", "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": f"{tmp_path}:{ROOT / 'tests'}"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return next(line.split()[1:] for line in done.stdout.splitlines()
                if line.startswith("UNITS "))


def test_the_longest_units_of_work_come_first(request, tmp_path):
    """`make test` hands out the units of work in collection order (--no-loadscope-reorder):
    every unit scheduling.LONGEST names is one the suite has, and they come first, in its order."""
    assert "--dist loadgroup --no-loadscope-reorder" in (ROOT / "Makefile").read_text()
    units = collected_units(request, tmp_path)
    assert [name for name in LONGEST if name not in units] == []
    rank = {name: place for place, name in enumerate(LONGEST)}
    ranks = [rank.get(name, len(rank)) for name in units]
    assert ranks == sorted(ranks), [name for name in dict.fromkeys(units)][:len(LONGEST) + 3]


def test_a_test_acting_as_the_ordinary_user_outside_its_group_fails(monkeypatch):
    """A test that runs processes as the ordinary user beside the ordinary-user group would be
    found as a leftover by that group's checks (a CI run of stop 44): it fails at once instead,
    saying which group to join."""
    assert as_user.running_in == "tests/test_xdist_groups.py"  # conftest's hook says where
    monkeypatch.setattr(as_user, "running_in", "counts_ordinary-user")
    with pytest.raises(pytest.fail.Exception, match=r"xdist_group\('ordinary-user'\)"):
        as_user.ordinary_user()
    with pytest.raises(pytest.fail.Exception, match="counts_ordinary-user"):
        as_user.leftover_processes()
    assert isinstance(as_user.leftover_processes(ordinary=False), list)

