"""`make test` runs on every core with `--dist loadgroup`: tests that share a slow fixture or must
not overlap (the ordinary user's grading, the release, the student install) say so with
`xdist_group`. This checks the installed pytest and pytest-xdist still honour it: pytest 9 with
pytest-xdist 3.8 silently spread every group over all workers."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict

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
