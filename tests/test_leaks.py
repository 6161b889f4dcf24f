"""The session-end check (tests/leaks.py) finds real leaks: a run whose tests leave a process
behind fails and names it, with or without xdist, and the process is stopped; a clean run passes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).resolve().parent

LEAKY = """
import subprocess, sys

def test_a_server_never_stopped():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{mark}-server"])

def test_a_daemon_whose_parent_is_gone():
    subprocess.run(["bash", "-c", "(exec -a {mark}-daemon sleep 600 &) ; exit 0"], check=True)

"""
STOPPED = """
def test_a_process_stopped_properly():
    process = subprocess.Popen(["sleep", "600"])
    process.kill()
    process.wait()
"""


def run_session(folder: Path, source: str, *options: str) -> subprocess.CompletedProcess:
    """pytest on one test file in ``folder``, with the session-end check as its one plugin."""
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "test_inner.py").write_text(textwrap.dedent(source))
    env = {**os.environ, "PYTHONPATH": str(TESTS), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "xdist.plugin", "-p",
                           "leaks", "-p", "no:cacheprovider", *options, "test_inner.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def running_with(mark: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(mark in part for part in process.info["cmdline"] or ()):
            found.append(process)
    return found


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_left_process_fails_the_run_and_is_stopped(tmp_path, workers):
    mark = f"leak-{uuid.uuid4().hex[:12]}"
    done = run_session(tmp_path, LEAKY.format(mark=mark) + STOPPED, "-n", workers)
    try:
        assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
        assert "3 passed" in done.stdout
        assert "processes left running by the tests" in done.stdout
        named = [line for line in done.stdout.splitlines() if line.startswith("pid ")]
        assert len(named) == 2, done.stdout
        assert any(f"{mark}-server" in line for line in named)
        assert any(f"{mark}-daemon" in line for line in named)
        assert not running_with(mark)
    finally:
        for process in running_with(mark):
            process.kill()


def test_a_clean_run_passes(tmp_path):
    done = run_session(tmp_path, "import subprocess\n" + STOPPED, "-n", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "left running" not in done.stdout
