"""A submission's whole footprint: the memory of all its sandbox's processes together.

The sandbox's resource limits hold per process (`Limits.memory_bytes` of address space each, up
to `Limits.processes` of them), so on their own they let one submission hold tens of GiB. A
`Guard` holds the sandbox's processes, together, to `Limits.footprint_bytes`, and ends the whole
sandbox when they reach it (the student is told "it used more than N MiB of memory across its
processes"). It works one of two ways, the stronger one wherever it can:

- ``cgroup``: as root, where cgroup v1's memory controller is mounted, the sandbox runs in a
  memory cgroup of its own with that limit. The kernel counts every page its processes are
  charged for (their own memory, shared memory, files in its scratch folders); one that reaches
  the limit waits (the cgroup's OOM killer is off) and the guard ends the sandbox.
- ``watchdog``: otherwise (an ordinary user has no cgroup of their own to divide), a thread of the
  grading process adds up, every `POLL_SECONDS`, the proportional set size (Pss: private pages in
  full, shared ones split between their users) of every process of the sandbox, found from its
  bubblewrap through /proc, and the space used in its scratch folders; at the bound it ends the
  sandbox. Memory no process maps and no folder holds is shut out by the sandbox itself: its
  seccomp filter refuses memfd_create, memfd_secret and System V shared memory
  (`autograder.run.isolation.seccomp_program`). The bound holds to within what the processes
  allocate in one poll.

`kind()` says which one this process uses; `packlab grade` says it before grading.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import threading
import time
from functools import cache
from pathlib import Path

POLL_SECONDS = 0.05
CGROUP_V1 = Path("/sys/fs/cgroup/memory")
PREFIX = "packlab-"  # the sandboxes' cgroups: packlab-<grading process's pid>-<number>
SCRATCH = ("tmp", "dev/shm", "work")  # the sandbox's private folders, below its root
_numbers = itertools.count()


def too_much(footprint_bytes: int) -> str:
    """What a student is told of a sandbox that reached the bound."""
    return f"it used more than {footprint_bytes >> 20} MiB of memory across its processes"


@cache
def _own_cgroup() -> Path | None:
    """This process's memory cgroup (v1), when this process may make cgroups below it."""
    if os.geteuid() != 0 or not (CGROUP_V1 / "memory.limit_in_bytes").is_file():
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            folder = CGROUP_V1 / path.lstrip("/")
            return folder if os.access(folder, os.W_OK) else None
    return None


def kind() -> str:
    """"cgroup" where this process can give each sandbox a memory cgroup, else "watchdog"."""
    return "cgroup" if _own_cgroup() is not None else "watchdog"


def problem() -> str | None:
    """Why no bound can be kept here (None: one can). Grading then refuses, as without a
    sandbox: a watchdog that cannot read /proc would count nothing, and say nothing."""
    if kind() == "cgroup":
        return None
    me = os.getpid()
    if pss(me) == 0 or not Path(f"/proc/{me}/task/{me}/children").is_file():
        return ("there is no memory cgroup to give each sandbox, and the memory of processes "
                "cannot be read from /proc here (smaps_rollup, task/*/children), so nothing "
                "would bound all of a submission's processes together")
    return None


def describe(footprint_bytes: int) -> str:
    """How the bound is kept here, in an instructor's words."""
    bound = f"{footprint_bytes >> 20} MiB"
    if kind() == "cgroup":
        return (f"All of a submission's processes together may hold {bound} of memory (a "
                "memory cgroup per sandbox).")
    return (f"All of a submission's processes together may hold {bound} of memory, kept by a "
            f"watchdog that adds up their memory every {POLL_SECONDS * 1000:g} ms (no memory "
            "cgroup here: that needs root and cgroup v1's memory controller), so a fast "
            "allocator may pass it by what it allocates in that time.")


class Guard:
    """Keeps one sandbox (one worker process and all it starts) within ``footprint_bytes``.

    `join` runs in the child before bubblewrap starts (it enters the cgroup), `watch` once it
    has, `stop` before the sandbox is ended and `release` after. ``exceeded`` says whether the
    guard ended the sandbox."""

    def __init__(self, footprint_bytes: int, sandboxed: bool = True):
        self.limit = footprint_bytes
        self.sandboxed = sandboxed
        self.exceeded = False
        self._cgroup = _new_cgroup(footprint_bytes)
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen | None = None

    @property
    def kind(self) -> str:
        return "cgroup" if self._cgroup is not None else "watchdog"

    def join(self) -> None:
        """In the new process, before it runs anything else: enter the sandbox's cgroup."""
        if self._cgroup is not None:
            (self._cgroup / "cgroup.procs").write_text(str(os.getpid()))

    def watch(self, process: subprocess.Popen) -> None:
        self._process = process
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"packlab-footprint-{process.pid}")
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def release(self) -> None:
        """Remove the cgroup, once the sandbox has ended (its last processes may take a moment
        to leave it)."""
        if self._cgroup is None:
            return
        for _ in range(100):
            self._kill_cgroup()
            try:
                self._cgroup.rmdir()
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.02)
                continue
            break
        self._cgroup = None

    def _run(self) -> None:
        while not self._stopped.wait(POLL_SECONDS):
            if self._over():
                self.exceeded = True
                self._end()
                return

    def _over(self) -> bool:
        if self._cgroup is not None:
            return _cgroup_full(self._cgroup)
        pids = tree(self._process.pid)
        return footprint(pids, self.sandboxed) > self.limit

    def _end(self) -> None:
        """End the whole sandbox: its PID 1 (the kernel ends the PID namespace with it) and its
        bubblewrap, and, with a cgroup, every process in it (those waiting for memory too)."""
        first = init_of(self._process) if self.sandboxed else None
        if first is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(first, signal.SIGKILL)
            os.close(first)
        with contextlib.suppress(OSError):
            self._process.send_signal(signal.SIGKILL)
        if self._cgroup is not None:
            self._kill_cgroup()

    def _kill_cgroup(self) -> None:
        with contextlib.suppress(OSError):
            for pid in (self._cgroup / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)


def _new_cgroup(limit: int) -> Path | None:
    """A memory cgroup of ``limit`` bytes, its OOM killer off, for one sandbox (None where this
    process cannot make one)."""
    own = _own_cgroup()
    if own is None:
        return None
    _remove_stale(own)
    folder = own / f"{PREFIX}{os.getpid()}-{next(_numbers)}"
    folder.mkdir()
    (folder / "memory.limit_in_bytes").write_text(str(limit))
    swap = folder / "memory.memsw.limit_in_bytes"
    if swap.is_file():  # memory and swap together: no way round the limit through swap
        swap.write_text(str(limit))
    (folder / "memory.oom_control").write_text("1")
    return folder


def _remove_stale(own: Path) -> None:
    """Remove the cgroups of grading processes that have ended (killed, say) without removing
    their own."""
    for folder in own.glob(f"{PREFIX}*-*"):
        grader = folder.name.removeprefix(PREFIX).split("-")[0]
        if grader.isdigit() and not Path(f"/proc/{grader}").exists():
            with contextlib.suppress(OSError):
                folder.rmdir()


def _cgroup_full(folder: Path) -> bool:
    """Has a process of the cgroup reached its limit (and waits, or was killed, for memory)?"""
    try:
        state = dict(line.split() for line in
                     (folder / "memory.oom_control").read_text().splitlines())
    except OSError:
        return False
    return state.get("under_oom") == "1" or int(state.get("oom_kill", "0")) > 0


# --- the watchdog: the sandbox's processes, and what they hold ---------------------------------

def init_of(bubblewrap: subprocess.Popen) -> int | None:
    """A pidfd of bubblewrap's child, the sandbox's PID 1, or None when there is none (any more;
    or bubblewrap was reaped, and its pid may be another process's)."""
    if bubblewrap.returncode is not None:
        return None
    children = Path(f"/proc/{bubblewrap.pid}/task/{bubblewrap.pid}/children")
    with contextlib.suppress(OSError, ValueError, IndexError):
        return os.pidfd_open(int(children.read_text().split()[0]))
    return None


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc; a process that has ended is left out).
    In a sandbox, a process whose parent ended is adopted by the sandbox's own init, so a
    daemon is still below its bubblewrap."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            threads = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for thread in threads:
            with contextlib.suppress(OSError):
                queue += map(int, Path(f"/proc/{current}/task/{thread}/children")
                             .read_text().split())
    return found


def pss(pid: int) -> int:
    """A process's proportional set size, in bytes (0 once it has ended)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return 0


def scratch_used(pid: int) -> int:
    """The bytes in use in the sandbox's private folders, seen through the root of ``pid``, a
    process inside it; none while that root is still this machine's (bubblewrap setting the
    sandbox up), whose /tmp and /work are the machine's disk."""
    try:
        root, own = os.stat(f"/proc/{pid}/root"), os.stat("/")
    except OSError:
        return 0
    if (root.st_dev, root.st_ino) == (own.st_dev, own.st_ino):
        return 0
    used = 0
    for folder in SCRATCH:
        with contextlib.suppress(OSError):
            stats = os.statvfs(f"/proc/{pid}/root/{folder}")
            used += (stats.f_blocks - stats.f_bfree) * stats.f_frsize
    return used


def footprint(pids: list[int], sandboxed: bool = True) -> int:
    """The memory ``pids`` (a sandbox's processes, its bubblewrap first) hold together."""
    total = sum(map(pss, pids))
    if sandboxed and len(pids) > 1:
        total += scratch_used(pids[1])  # the sandbox's init: its root is the sandbox's
    return total
