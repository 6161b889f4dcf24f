"""`make test` runs on every core with `--dist loadgroup`: tests that share a slow fixture or must
not overlap (the ordinary user's grading, the release, the student install) say so with
`xdist_group`. This checks the installed pytest and pytest-xdist still honour it: pytest 9 with
pytest-xdist 3.8 silently spread every group over all workers."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict

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


def test_the_longest_units_of_work_come_first():
    """`make test` hands out the units of work in collection order (--no-loadscope-reorder):
    every unit scheduling.LONGEST names is one the suite has, and they come first, in its order."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                           "no:cacheprovider", "tests"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    makefile = (ROOT / "Makefile").read_text()
    assert "--dist loadgroup --no-loadscope-reorder" in makefile
    order = [line for line in done.stdout.splitlines() if "::" in line]
    grouped = {name: _units_named(name) for name in LONGEST}
    assert all(grouped.values()), [name for name, files in grouped.items() if not files]
    firsts = [next(i for i, nodeid in enumerate(order) if nodeid.split("::")[0] in files)
              for files in grouped.values()]
    assert firsts == sorted(firsts), dict(zip(LONGEST, firsts, strict=True))
    rest = next(i for i, nodeid in enumerate(order)
                if not any(nodeid.split("::")[0] in files for files in grouped.values()))
    assert max(firsts) < rest


def _units_named(name: str) -> set[str]:
    """The test modules whose xdist group is ``name``."""
    mark = re.compile(rf"xdist_group\(\s*(name=)?[\"']{re.escape(name)}[\"']")
    return {f"tests/{path.name}" for path in (ROOT / "tests").glob("test_*.py")
            if mark.search(path.read_text())}
