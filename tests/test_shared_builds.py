"""The slow artefacts (executed lessons, the book, a released course) are built once per test
session however many xdist workers ask for them (conftest.built_once), and the book is built
from executed lessons only when every one of them is there."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from packlab.course import book

SESSION = '''
import importlib.util
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname({conftest!r}))  # the helpers conftest imports (leaks)
spec = importlib.util.spec_from_file_location("shared", {conftest!r})
shared = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shared)


def build(folder):
    with open({counter!r}, "a") as counter:
        counter.write(os.environ.get("PYTEST_XDIST_WORKER", "master") + "\\n")
    time.sleep(2)  # long enough for the other worker to ask while this one builds
    (folder / "made").write_text("once")


@pytest.fixture(scope="session")
def made(tmp_path_factory, worker_id):
    return shared.built_once(tmp_path_factory, worker_id, "made", build)


@pytest.mark.parametrize("n", range(8))
def test_reads_the_build(made, n):
    assert (made / "made").read_text() == "once"
'''


def test_two_workers_share_one_build(tmp_path):
    counter = tmp_path / "builds.txt"
    session = tmp_path / "session"
    session.mkdir()
    (session / "test_made.py").write_text(SESSION.format(
        conftest=str(Path(__file__).with_name("conftest.py")), counter=str(counter)))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider",
         "-p", "no:randomly", str(session)],
        cwd=session, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = set(re.findall(r"\[(gw\d+)\] .*PASSED", done.stdout))
    assert workers == {"gw0", "gw1"}, done.stdout  # both workers read it...
    assert len(counter.read_text().splitlines()) == 1  # ...and one of them built it


def test_the_book_refuses_executed_lessons_that_are_missing(tmp_path):
    (tmp_path / "executed").mkdir()
    with pytest.raises(book.BookError, match=r"01-\S+\.ipynb has no executed copy in"):
        book.build(tmp_path / "out", executed=tmp_path / "executed")
