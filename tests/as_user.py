"""Run the grader as an instructor without root would: an ordinary user the tests create.

CI runs as root, and instructors grade as ordinary users; the grader's attack tests run both
ways in the same run. As root, `ordinary_user()` creates a system user (``useradd``) once and
`run_as_user` starts Python as that user, with the course's virtual environment on its path. The
interpreter must be one that user can run: the venv's own lives under /root on a pyenv machine
(mode 0700), so Debian's /usr/bin/python3.X of the same version is used there.

Where the OS makes this impossible (no root, no useradd, no such interpreter) the test skips and
says why; with ``CI=true`` it fails instead.

There is one ordinary user, and the attack tests check that none of its processes outlives a
run, so every test that acts as it must run in turn with the others: in the xdist group
``ordinary-user`` alone. `ordinary_user()` fails a test that is not (conftest's hook tells this
module which unit of work the running test is in).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from functools import cache
from pathlib import Path

import pytest

from autograder.run.isolation import FIRST_UID

USER = "packlab-grader"
GROUP = "ordinary-user"  # the xdist group of every test that acts as USER
running_in: str | None = None  # the unit of work of the test being run (tests/scheduling.py)
ROOT = Path(__file__).resolve().parents[1]
PURELIB = sysconfig.get_paths()["purelib"]  # the venv's site-packages (the editable install)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def impossible(reason: str) -> None:
    """Skip, saying why the OS forbids it; under CI=true, fail."""
    if in_ci():
        pytest.fail(f"cannot run as an ordinary user: {reason} (CI=true: no skipping)",
                    pytrace=False)
    pytest.skip(f"cannot run as an ordinary user here: {reason}")


@cache
def _user() -> tuple[int, int] | str:
    if os.geteuid() != 0:
        return "the tests are not running as root, so they cannot create a user"
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        done = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                               "/usr/sbin/nologin", USER], capture_output=True, text=True)
        if done.returncode != 0 and "already exists" not in done.stderr:
            return f"useradd failed: {done.stderr.strip()}"
        entry = pwd.getpwnam(USER)
    return entry.pw_uid, entry.pw_gid


def _runs_as(python: str, uid: int, gid: int) -> bool:
    try:
        done = subprocess.run([python, "-c", "pass"], user=uid, group=gid, extra_groups=[],
                              capture_output=True)
    except OSError:
        return False
    return done.returncode == 0


@cache
def _python() -> str | None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    uid, gid = ordinary_user()
    for candidate in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        if Path(candidate).is_file() and _runs_as(candidate, uid, gid):
            return candidate
    return None


def _in_turn() -> None:
    """Fail a test that acts as, or looks for, the ordinary user outside its xdist group."""
    if running_in not in (None, GROUP):
        pytest.fail(f"this test acts as the ordinary user {USER} but runs in the unit of work "
                    f"{running_in!r}: mark it pytest.mark.xdist_group({GROUP!r}) and no other "
                    "group, or it runs beside the tests that check that none of that user's "
                    "processes is left over", pytrace=False)


def ordinary_user() -> tuple[int, int]:
    """(uid, gid) of the tests' ordinary user; skips (or fails in CI) where there can be none."""
    _in_turn()
    found = _user()
    if isinstance(found, str):
        impossible(found)
    return found


def python() -> str:
    """An interpreter of this Python version that the ordinary user can run."""
    ordinary_user()
    found = _python()
    if found is None:
        impossible(f"no python{sys.version_info.major}.{sys.version_info.minor} that "
                   f"{USER} may run (the venv's lives where it cannot read)")
    return found


def folder() -> Path:
    """A new folder the ordinary user owns (pytest's own tmp folders are root's, mode 0700)."""
    uid, gid = ordinary_user()
    made = Path(tempfile.mkdtemp(prefix="packlab-as-user-"))
    os.chown(made, uid, gid)
    return made


def give(path: Path) -> None:
    """Hand a tree over to the ordinary user (a link itself, never what it points to)."""
    uid, gid = ordinary_user()
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)
    os.chown(path, uid, gid)


def _bootstrap(args: list[str]) -> str:
    """The first line of the user's Python: the venv's packages importable, ``args`` its argv."""
    return f"import site, sys; site.addsitedir({PURELIB!r}); sys.argv[1:] = {args!r}\n"


@cache
def _examples_stored() -> None:
    """The property checks' examples stored for the ordinary user's interpreter, owned by that
    user (mode 0600), as its first `packlab grade` leaves them on an instructor's own checkout.
    Root's store is root's alone, and its key holds the Python version (the user's interpreter
    is Debian's, not the venv's), so without this every grading process of the user drew them
    again: 25 CPU-s more for one test module than the same test as root."""
    uid, gid = ordinary_user()
    code = ("from autograder.checks import example_cache\n"
            "example_cache.prepare()\nprint(example_cache.path())")
    done = subprocess.run([python(), "-c", _bootstrap([]) + code], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    os.chown(done.stdout.strip().splitlines()[-1], uid, gid)


def run_as_user(code: str, *args: str, cwd: Path | None = None,
                timeout: float = 600) -> subprocess.CompletedProcess:
    """Run Python ``code`` (with ``sys.argv[1:] = args``) as the ordinary user, the course
    importable as in its venv."""
    uid, gid = ordinary_user()
    _examples_stored()
    bootstrap = _bootstrap(list(args))
    home = Path(tempfile.mkdtemp(prefix="packlab-home-"))
    os.chown(home, uid, gid)
    try:
        return subprocess.run(
            [python(), "-c", bootstrap + code], user=uid, group=gid, extra_groups=[],
            cwd=cwd or home, capture_output=True, text=True, timeout=timeout,
            env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home),
                 "MPLCONFIGDIR": str(home / "mpl"), "LANG": "C.UTF-8"})
    finally:
        shutil.rmtree(home, ignore_errors=True)


def leftover_processes(ordinary: bool = True) -> list[str]:
    """Processes that outlived grading: running as a sandbox's outside user (root's graders)
    whose grading process has ended, or (``ordinary``: in the ordinary-user group only) as the
    tests' ordinary user once its run is over."""
    if ordinary:
        _in_turn()
    try:
        user = pwd.getpwnam(USER).pw_uid if ordinary else None
    except KeyError:
        user = None
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = dict(line.split(":\t", 1) for line in
                          (entry / "status").read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        uid = int(status.get("Uid", "0").split()[0])
        if status.get("State", "").startswith("Z"):
            continue
        outside = uid >= FIRST_UID and not Path(f"/proc/{uid - FIRST_UID}").exists()
        if outside or uid == os.getpid() + FIRST_UID or (user is not None and uid == user):
            left.append(f"{entry.name} (uid {uid}): {status.get('Name', '').strip()}")
    return left
