"""Where the test session writes its scratch files: in memory (/dev/shm) when it has room.

The suite writes a great many small files (course copies, git checkouts, venvs, gradebooks,
browser profiles), and on a virtual disk each costs far more than in memory: creating a folder
and writing a file in it took 0.98 ms in /tmp against 0.044 ms in /dev/shm on the 2-core test
machine, and five test modules ran in 74.7 s instead of 81.9 s. So the session's first process
makes a folder there, mode 1777 like /tmp (the tests' ordinary user and the hub's learners write
in it too), points TMPDIR at it for everything the session starts, and removes it at the end.
It says so in the run's header. An explicit TMPDIR is kept, as is /tmp when /dev/shm is missing,
is not a tmpfs, or has less than ``ROOM`` free (a container's 64 MB /dev/shm).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

MEMORY = Path("/dev/shm")
ROOM = 2 << 30  # bytes free it needs there (a whole run peaked at 795 MiB)
OWN = "PACKLAB_TEST_SCRATCH"  # the folder this session made (and removes)
_said = pytest.StashKey[str]()  # the header's line: where the scratch files are, and why


def _tmpfs(folder: Path) -> bool:
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    return any(line.split()[1:3] == [str(folder), "tmpfs"] for line in mounts)


def _why_not() -> str | None:
    if os.environ.get("TMPDIR"):
        return f"TMPDIR is set ({os.environ['TMPDIR']})"
    if not _tmpfs(MEMORY):
        return f"{MEMORY} is not a tmpfs here"
    free = shutil.disk_usage(MEMORY).free
    if free < ROOM:
        return f"{MEMORY} has {free >> 20} MiB free, less than {ROOM >> 20} MiB"
    return None


def configure(config: pytest.Config) -> None:
    """In the session's first process: TMPDIR in memory, when it may be (conftest calls it)."""
    if hasattr(config, "workerinput") or OWN in os.environ:
        return  # a worker: it inherits the controller's TMPDIR
    why = _why_not()
    if why is None:
        folder = Path(tempfile.mkdtemp(prefix="packlab-tests-", dir=MEMORY))
        folder.chmod(0o1777)
        os.environ["TMPDIR"] = os.environ[OWN] = str(folder)
        tempfile.tempdir = None  # read TMPDIR again
    config.stash[_said] = (f"scratch files: {tempfile.gettempdir()}"
                           + (f" (not in memory: {why})" if why else " (in memory)"))



def pytest_report_header(config: pytest.Config) -> str | None:
    return config.stash.get(_said, None)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or _said not in config.stash:
        return
    made = os.environ.pop(OWN, None)
    if made:
        shutil.rmtree(made, ignore_errors=True)
        os.environ.pop("TMPDIR", None)
        tempfile.tempdir = None
