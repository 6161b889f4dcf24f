"""How a sandbox process is confined: limits, its own user, no network, the course's files hidden.

Everything here happens between fork and exec of the worker (`confine`) or after it ends
(`kill_everything`). What the operating system does not allow is skipped, never faked: as an
ordinary user the worker still gets resource limits and its own process group; as root it also
runs as a user of its own, in its own network namespace (no network) and mount namespace (the
course folder and the submissions hidden under empty, locked folders).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packlab.course import ROOT

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
FIRST_UID = 200_000  # sandbox users: FIRST_UID + the grading process's pid, unique while it runs


@dataclass(frozen=True)
class Limits:
    """What one submission's code may use. Shown, with defaults, in `packlab grade --help`."""

    call_seconds: float = 2.0
    setup_seconds: float = 20.0
    submission_seconds: float = 120.0
    cpu_seconds: int = 30
    memory_bytes: int = 1 << 30
    processes: int = 64
    file_bytes: int = 16 << 20
    open_files: int = 64
    restarts: int = 3


@dataclass(frozen=True)
class Plan:
    """What confinement this machine allows; worked out once per process."""

    interpreter: str
    uid: int | None  # None: no user of its own (not root, or no interpreter it can run)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _try_namespaces(hidden: tuple[str, ...]) -> None:
    """No network; hide the course and submissions. Each step is skipped if the OS refuses."""
    libc = _libc()
    libc.unshare(CLONE_NEWNET)
    if hidden and libc.unshare(CLONE_NEWNS) == 0 and \
            libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0:
        for path in hidden:
            libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       b"size=16k,mode=000")


def confine(limits: Limits, plan: Plan, hidden: tuple[str, ...]) -> None:
    """Runs in the child between fork and exec (as root when the grader is root)."""
    grader = os.getppid()
    if plan.uid is not None:
        _try_namespaces(hidden)
    for which, value in (
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(which, (value, value))
    if plan.uid is not None:
        os.setgroups([])
        os.setgid(plan.uid)
        os.setuid(plan.uid)
    # Die with the grading process, even if it is killed outright (set after setuid, which
    # clears it); and do not start at all if it is already gone.
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != grader:
        os._exit(1)


def _runs_as(interpreter: str, uid: int) -> bool:
    """Can a sandbox user start this interpreter? (Not if it lives in root's home folder.)"""
    try:
        done = subprocess.run([interpreter, "-I", "-c", "pass"], capture_output=True,
                              timeout=20, user=uid, group=uid, extra_groups=[])
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _under(path: str, folders: tuple[str, ...]) -> bool:
    """Is this file (or what its symlink points to) inside one of ``folders``?"""
    candidates = (Path(path).absolute(), Path(path).resolve())
    return any(c.is_relative_to(folder) for c in candidates for folder in folders)


def plan() -> Plan:
    """The interpreter and the user for this process's sandboxes (each process has its own)."""
    return _plan_for(os.getpid())  # a forked grading process must not share its parent's user


@cache
def _plan_for(pid: int) -> Plan:
    if os.geteuid() != 0:
        return Plan(sys.executable, None)
    # Orphans of a sandbox are re-parented to us, so we can reap them (see kill_everything).
    _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    uid = FIRST_UID + pid
    # The worker needs the standard library only, so any Python 3.11+ the sandbox user can run
    # will do, as long as it does not live in the course folder (hidden from the sandbox).
    for interpreter in (sys.executable, shutil.which("python3", path="/usr/bin:/bin")):
        if interpreter and not _under(interpreter, (str(ROOT),)) and _runs_as(interpreter, uid):
            return Plan(interpreter, uid)
    return Plan(sys.executable, None)


def _processes_of(uid: int) -> dict[int, bool]:
    """pid -> is it a zombie, for every process of this user."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            found[int(entry.name)] = fields.get("State", "").split()[:1] == ["Z"]
    return found


def _reap(pid: int) -> None:
    """Collect a dead process we adopted (as subreaper), so it leaves the process table."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def kill_everything(group: int, uid: int | None) -> None:
    """Kill the worker's process group and, with a user of its own, every process of that user."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    if uid is not None:
        _kill_user(uid)


def _kill_user(uid: int) -> None:
    """Kill (and reap, where we adopted them) every process of this sandbox user."""
    for _ in range(200):  # forks racing the killer: repeat until none is left
        processes = _processes_of(uid)
        for pid, zombie in processes.items():
            if zombie:
                _reap(pid)
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if all(processes.values()):  # none left alive (zombies not ours are init's to reap)
            return
        time.sleep(0.005)


def sweep_orphans() -> int:
    """Kill what sandboxes of grading processes that no longer exist left behind (as root).

    A grader killed outright takes its workers with it (PR_SET_PDEATHSIG), but not processes
    the student's code forked; the next run clears them. Returns how many were killed.
    """
    if os.geteuid() != 0:
        return 0
    users = set()
    for entry in Path("/proc").iterdir():
        try:
            uid = entry.stat().st_uid if entry.name.isdigit() else -1
        except OSError:
            continue
        if uid >= FIRST_UID and not Path(f"/proc/{uid - FIRST_UID}").exists():
            users.add(uid)
    killed = 0
    for uid in users:
        killed += len(_processes_of(uid))
        _kill_user(uid)
    for folder in Path(tempfile.gettempdir()).glob("packlab-sandbox-*"):
        with contextlib.suppress(OSError):
            owner = folder.stat().st_uid
            if owner >= FIRST_UID and not Path(f"/proc/{owner - FIRST_UID}").exists():
                shutil.rmtree(folder, ignore_errors=True)
    return killed
