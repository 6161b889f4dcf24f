"""The session-end check: a test run fails when any test left a process running.

At the start the test session's first process makes itself the "child subreaper" of everything it
starts (Linux's PR_SET_CHILD_SUBREAPER): a process whose parent exits is handed to it, not to
init, so a server, hub, kernel, browser, sandbox or user's process a test started and lost track
of (double-forked, a daemon, its parent killed) stays in the session's own process tree. When the
session ends (after xdist's workers are gone) every process still in that tree is a leak: the run
fails and names each one, and the check then stops them so the machine is left clean.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time

import psutil
import pytest

PR_SET_CHILD_SUBREAPER = 36
GRACE = 5.0  # seconds a process that is already stopping gets to finish


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def left_running() -> list[psutil.Process]:
    """This process's descendants that are still running (zombies are reaped, not counted)."""
    running = []
    for process in psutil.Process().children(recursive=True):
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                running.append(process)
            elif process.ppid() == os.getpid():  # an orphan handed to us, now exited
                os.waitpid(process.pid, os.WNOHANG)
        except (psutil.NoSuchProcess, ChildProcessError):
            pass
    return running


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
    left_running()  # reap them
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
