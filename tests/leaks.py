"""The session-end check: a test run fails when any test left a process running.

At the start the test session's first process puts a mark of its own in the environment
(`MARK`), which everything the session starts inherits: xdist's workers, and the servers, hubs,
kernels, browsers, sandboxes and users' processes the tests start, daemons and double-forked
processes included (a process keeps the environment it was started with). When the session ends
(after xdist's workers are gone) every process still carrying the mark, or still below the
session's own process, is a leak: the run fails and names each one, and the check then stops
them so the machine is left clean. A process started with an environment of its own making, and
no longer below the session, is out of its sight.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid

import psutil
import pytest

MARK = "PACKLAB_TEST_SESSION"
GRACE = 5.0  # seconds a process that is already stopping gets to finish


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        os.environ[MARK] = uuid.uuid4().hex


def _marked(process: psutil.Process, mark: str) -> bool:
    try:
        return process.environ().get(MARK) == mark
    except psutil.Error:
        return False


def left_running() -> list[psutil.Process]:
    """The processes of this session still running, but this one (zombies are not counted)."""
    mark, me = os.environ.get(MARK), os.getpid()
    found = {p.pid: p for p in psutil.Process().children(recursive=True)}
    found.update({p.pid: p for p in psutil.process_iter() if p.pid != me and _marked(p, mark)})
    running = []
    for process in found.values():
        with contextlib.suppress(psutil.Error):
            if process.status() != psutil.STATUS_ZOMBIE and not _own_tracker(process, me):
                running.append(process)
    return running


def _own_tracker(process: psutil.Process, me: int) -> bool:
    """multiprocessing's resource tracker of this very process: it ends when this one does."""
    return process.ppid() == me and "multiprocessing.resource_tracker" in " ".join(
        process.cmdline())


def describe(process: psutil.Process) -> str:
    try:
        command = " ".join(process.cmdline())[:200] or process.name()
        return f"pid {process.pid} ({process.username()}): {command}"
    except psutil.Error:
        return f"pid {process.pid} (gone)"


@pytest.hookimpl(trylast=True)  # after xdist has shut its workers down
def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):
        return
    deadline = time.monotonic() + GRACE
    while (leaks := left_running()) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not leaks:
        return
    report = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [describe(process) for process in leaks]
    if report is not None:
        report.write_sep("=", "processes left running by the tests", red=True)
        for line in lines:
            report.write_line(line)
    for process in leaks:
        with contextlib.suppress(psutil.Error):
            process.send_signal(signal.SIGKILL)
    psutil.wait_procs(leaks, timeout=5)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
