"""A submission's processes together are held to one memory bound (autograder/run/footprint.py).

tests/test_attacks.py grades the memory bombs as root (a memory cgroup) and as an ordinary user
(the watchdog); these tests look at the watchdog's counting itself, and at grading refusing
where it could count nothing.
"""

from __future__ import annotations

import subprocess

import pytest

from autograder.run import footprint, isolation
from autograder.run.isolation import Limits
from autograder.run.sandbox import Sandbox

LIMITS = Limits(call_seconds=30, call_cpu_seconds=20, setup_seconds=30, submission_seconds=60)
MIB = 1 << 20

HOLDERS = r'''
import os, time

def hold(children, mib):
    """Fork children that each hold ``mib`` MiB (touched), and wait until they do."""
    ready, told = os.pipe()
    for _ in range(children):
        if os.fork() == 0:
            held = b"x" * (mib << 20)
            os.write(told, b"!")
            time.sleep(60)
            os._exit(len(held) and 0)
    for _ in range(children):
        os.read(ready, 1)
    return children
'''


@pytest.fixture
def watchdog(monkeypatch):
    """The watchdog, as an ordinary user has it, even where a cgroup could be made."""
    monkeypatch.setattr(footprint, "_own_cgroup", lambda: None)


def test_the_watchdog_counts_every_process_of_the_sandbox(watchdog):
    with Sandbox([HOLDERS], LIMITS) as box:
        assert box.call("hold", [3, 100]).value == 3
        pids = footprint.tree(box._process.pid)
        counted = footprint.footprint(pids)
        assert box._guard.kind == "watchdog" and not box._guard.exceeded
    # bubblewrap, its init, the worker and three children holding 100 MiB each
    assert len(pids) == 6, pids
    assert 300 * MIB <= counted < 400 * MIB, counted / MIB


def test_a_sandbox_being_set_up_holds_nothing_of_the_machines_disk():
    """While bubblewrap sets a sandbox up, its init's root is still this machine's, whose /tmp
    and /work are the machine's disk (gigabytes in use): the watchdog counted them as the
    sandbox's scratch and ended a student's sandbox for "more than 1024 MiB" it never held.
    Five sandboxes, each watched as fast as the watchdog can look, from start to end."""
    plan = isolation.plan(True, LIMITS)
    looks, worst = 0, 0
    for _ in range(5):
        with isolation.seccomp_pipe(plan) as seccomp:
            process = subprocess.Popen([*plan.argv(seccomp), *isolation.PYTHON_FLAGS, "-c",
                                        "pass"], pass_fds=(seccomp,) if seccomp else (),
                                       preexec_fn=plan.preexec, start_new_session=True)
        while process.poll() is None:
            pids = footprint.tree(process.pid)
            looks += len(pids) > 1
            worst = max(worst, footprint.footprint(pids))
    assert looks > 0  # the sandboxes were seen with their init
    assert worst < 64 * MIB, f"{worst // MIB} MiB counted for a sandbox running `pass`"


def test_files_in_the_private_folders_count(watchdog):
    write = ("def write(files):\n    for n in range(files):\n"
             "        open(f'/dev/shm/f{n}', 'wb').write(b'x' * (10 << 20))\n")
    with Sandbox([write], LIMITS) as box:
        box.call("write", [4])
        counted = footprint.footprint(footprint.tree(box._process.pid))
    assert counted >= 40 * MIB


def test_grading_refuses_when_no_bound_could_be_kept(watchdog, monkeypatch):
    assert footprint.problem() is None  # this machine's /proc can be read
    monkeypatch.setattr(footprint, "pss", lambda pid: 0)  # as behind a /proc that hides it
    said = footprint.problem()
    assert said and "nothing would bound" in said


def test_the_seccomp_filter_refuses_memory_no_process_maps():
    code = ("import os, ctypes\n"
            "def memfd():\n"
            "    try:\n        os.memfd_create('x')\n    except OSError as e:\n"
            "        return e.errno\n"
            "def shm():\n"
            "    libc = ctypes.CDLL(None, use_errno=True)\n"
            "    return [libc.shmget(0, 1 << 20, 0o1600), ctypes.get_errno()]\n")
    with Sandbox([code], LIMITS) as box:
        assert box.call("memfd", []).value == 1  # EPERM
        assert box.call("shm", []).value == [-1, 1]
    assert len(isolation.seccomp_program()) % 8 == 0
