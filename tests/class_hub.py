"""The class's JupyterHub for tests: the hub `make hub` serves (hub/jupyterhub_config.py, PAM
logins, servers run as their own accounts), on free loopback ports, for accounts made here.

    from class_hub import class_hub
    with class_hub(learners=2) as hub:     # root only (skips, or fails under CI=true)
        hub.base                       # http://127.0.0.1:PORT
        hub.learners[0].name, .password
        hub.instructor.name, .password
        hub.api("/users")              # the REST API, as the hub's admin token
        hub.restart()                  # the hub stopped and served again (servers kept)

In a new folder of /var/tmp (mode 0755) it copies the course folder (the files git knows), puts
the roster where the guide says (roster.csv), runs the ```bash blocks of docs/jupyterhub.md
there as root, as the guide gives them (the one line that names the instructor,
`INSTRUCTOR=...`, names the test's account), starts the hub with `packlab hub serve` (what
`make hub` runs; it writes the hub's home: student install, environments, exchange) over HTTPS
with a self-signed certificate made by openssl, as the guide's settings name it, and waits for
/hub/api/. On leaving it stops everything with `packlab hub stop --everything` (the hub, then
the servers and the proxy, which outlive the hub, and the hub's login profile), fails if any
process of the class or its login profile is left after it, and removes the accounts with their
homes.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest
from as_user import impossible
from browser import free_port, wait_for_http

from packlab.course.hub.serve import STOP_SECONDS

ROOT = Path(__file__).resolve().parents[1]
PACKLAB = Path(sys.executable).with_name("packlab")
GUIDE = ROOT / "docs" / "jupyterhub.md"
SHELL = "set -euo pipefail\n"
NAMED = re.compile(r"^INSTRUCTOR=\S+", re.MULTILINE)  # the guide's line naming the instructor


@dataclass
class Person:
    name: str
    password: str


@dataclass
class ClassHub:
    base: str
    home: Path
    course: Path
    log: Path
    learners: list[Person]
    instructor: Person
    token: str
    process: subprocess.Popen = field(repr=False)
    tls: ssl.SSLContext = field(repr=False)  # trusts the hub's self-signed certificate
    env: dict[str, str] = field(repr=False, default_factory=dict)
    seen: set[int] = field(repr=False, default_factory=set)  # pids of the class's processes
    profile: Path = field(repr=False, default=Path("/nonexistent"))  # its login profile

    def packlab(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        """`packlab ARGS` as root on this hub (its settings in the environment)."""
        return subprocess.run([str(PACKLAB), *args], env=self.env, cwd=self.course, text=True,
                              capture_output=True, timeout=timeout)

    def serve(self, seconds: float = 180) -> None:
        """`packlab hub serve` (what `make hub` runs), until /hub/api/ answers."""
        with open(self.log, "ab") as out:
            # As a background job or under nohup: SIGINT ignored, what it must stop from too.
            self.process = subprocess.Popen(["bash", "-c", 'trap "" INT; exec "$@"', "bash",
                                             str(PACKLAB), "hub", "serve"], env=self.env,
                                            cwd=self.course, stdout=out,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        wait_for_http(f"{self.base}/hub/api/", self.process, seconds, self.log,
                      context=self.tls)

    def stop(self, seconds: float = STOP_SECONDS + 30) -> None:
        """Stop the hub as Ctrl-C in `make hub`'s terminal does; fails, saying what the hub was
        doing, unless it stopped of itself (exit code 0)."""
        self.remember()
        self.process.send_signal(signal.SIGINT)
        try:
            code = self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`packlab hub serve` had not stopped {seconds} s after Ctrl-C\n"
                        f"{self.doing()}")
        if code != 0:
            pytest.fail(f"`packlab hub serve` stopped with exit code {code}\n{self.doing()}")

    def doing(self) -> str:
        """What the hub's processes are doing: each one's state, JupyterHub's stacks (it writes
        them to its log on SIGUSR1) and the end of the log."""
        lines = []
        with contextlib.suppress(psutil.Error):
            top = psutil.Process(self.process.pid)
            for process in [top, *top.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    lines.append(f"{process.pid} {process.status()} "
                                 f"{' '.join(process.cmdline())[:120]}")
                    if process.name() == "jupyterhub" or "/jupyterhub" in " ".join(
                            process.cmdline()[:2]):
                        process.send_signal(signal.SIGUSR1)
            time.sleep(3)
        log = self.log.read_text(errors="replace").splitlines()[-400:]
        return "\n".join(["processes under `packlab hub serve`:", *lines,
                          "the end of the hub's log:", *log])

    def restart(self, seconds: float = 180) -> None:
        self.stop()
        self.serve(seconds)

    def remember(self) -> None:
        """Note every process of the class now running, to check that none is left at the end."""
        with contextlib.suppress(psutil.Error):
            self.seen.update(p.pid for p in psutil.Process(self.process.pid).children(True))
        self.seen.add(self.process.pid)

    def api(self, path: str, method: str = "GET", body: dict | None = None,
            base: str = "/hub/api"):
        """The hub's REST API (/hub/api/...), or a server's (``base``: /user/NAME/api), as the
        service token the tests gave it."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base}{base}{path}", data=data, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30, context=self.tls) as answer:
            text = answer.read()
        return json.loads(text) if text else None


def guide_commands() -> list[str]:
    """The ```bash blocks of docs/jupyterhub.md, in order: what an instructor types."""
    from markdown_it import MarkdownIt

    text = GUIDE.read_text(encoding="utf-8")
    return [token.content for token in MarkdownIt("commonmark").parse(text)
            if token.type == "fence" and token.info.strip() == "bash"]


def run_guide(course: Path, instructor: str) -> None:
    """The guide's ```bash blocks, in order, as root in ``course``; ``instructor`` is the
    name its `INSTRUCTOR=` line gives."""
    blocks = guide_commands()
    assert not any(re.search(r"\bsudo\b", block) for block in blocks), "Debian has no sudo"
    assert sum(len(NAMED.findall(block)) for block in blocks) == 1, "name the instructor once"
    for block in blocks:
        done = subprocess.run(["bash", "-c", SHELL + NAMED.sub(f"INSTRUCTOR={instructor}", block)],
                              cwd=course, text=True, capture_output=True, timeout=600,
                              env={k: v for k, v in os.environ.items() if k != "INSTRUCTOR"})
        assert done.returncode == 0, f"{block}\n{done.stdout}{done.stderr}"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made by openssl."""
    cert, key = folder / "hub.crt", folder / "hub.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=120)
    key.chmod(0o600)
    return cert, key


def _copy_course(course: Path) -> None:
    """The instructors' checkout: the course's files as git knows them (no venv, no builds)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, course / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _stop_everything(hub: ClassHub, names: list[str]) -> list[str]:
    """`packlab hub stop --everything`; the class's processes still there after it (ended)."""
    if hub.process is not None:
        hub.remember()
    hub.seen.update(_processes_of(names))
    with contextlib.suppress(OSError, ValueError):
        hub.seen.add(int((hub.home / "proxy.pid").read_text()))
    done = hub.packlab("hub", "stop", "--everything", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not hub.profile.exists(), "the hub's stop left its login profile"
    if hub.process is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            hub.process.wait(timeout=30)
    left = []
    for pid in sorted(hub.seen | _processes_of(names)):
        with contextlib.suppress(psutil.Error):
            process = psutil.Process(pid)
            if process.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{pid} {' '.join(process.cmdline())[:120]}")
                process.kill()
    return left


def _processes_of(names: list[str]) -> set[int]:
    uids = set()
    for name in names:
        with contextlib.suppress(KeyError):
            uids.add(pwd.getpwnam(name).pw_uid)
    return {process.pid for process in psutil.process_iter(["uids"])
            if process.info["uids"] and process.info["uids"].real in uids}


def _end_processes(names: list[str]) -> None:
    for pid in _processes_of(names):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def class_hub(learners: int = 2, seconds: float = 180) -> Iterator[ClassHub]:
    """A running class hub with ``learners`` learners and one instructor (see the module), in
    a folder of its own that every account can reach (pytest's are root's alone), removed
    after."""
    if os.geteuid() != 0:
        impossible("the class hub needs root (PAM logins, one account per person)")
    from packlab.course.hub import accounts, profile
    from packlab.course.hub.layout import Hub

    tag = secrets.token_hex(3)
    names = [f"plt{tag}l{n}" for n in range(learners)]
    teacher = f"plt{tag}t"
    # Not under /tmp: the grader's sandbox mounts a fresh /tmp, and the hub's Python is here.
    tmp = Path(tempfile.mkdtemp(prefix="packlab-hub-", dir="/var/tmp"))
    tmp.chmod(0o755)
    course = tmp / "course"
    try:
        _copy_course(course)
        (course / ".venv").symlink_to(Path(sys.prefix))  # the guide's `.venv/bin/packlab`
        with (course / "roster.csv").open("w", newline="") as out:
            csv.writer(out).writerows([["id", "name", "email"],
                                       *[[n, f"Learner {n}", f"{n}@example.org"] for n in names]])
        run_guide(course, teacher)  # accounts, then the lock
        with (course / "first-passwords.csv").open() as given:
            first = {row["id"]: row["password"] for row in csv.DictReader(given)}
        cert, key = self_signed(tmp)
        hub = Hub(home=tmp / "hub", course=course, roster=course / "roster.csv",
                  port=free_port(), ip="127.0.0.1", api_port=free_port(),
                  proxy_api_port=free_port(), room_port=free_port(),
                  ssl_cert=str(cert), ssl_key=str(key))
        token = secrets.token_hex(32)
        env = {**os.environ, **hub.environment(), "PACKLAB_HUB_ADMIN_TOKEN": token}
        tls = ssl.create_default_context(cafile=str(cert))
        running = ClassHub(f"https://127.0.0.1:{hub.port}", hub.home, course, tmp / "hub.log",
                           [Person(n, first[n]) for n in names],
                           Person(teacher, first[teacher]), token, None, tls, env,
                           profile=profile.path(hub))
        try:
            running.serve(seconds)
            yield running
        finally:
            left = _stop_everything(running, [*names, teacher])
        assert not left, f"left running after `packlab hub stop --everything`: {left}"
    finally:
        _end_processes([*names, teacher])
        time.sleep(0.5)
        accounts.remove([*names, teacher])
        _remove_profile(tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def _remove_profile(tmp: Path) -> None:
    """The login profiles of the hub in ``tmp``, when its stop did not remove them (another
    hub's are left alone)."""
    from packlab.course.hub import profile

    for path in profile.FOLDER.glob("packlab-hub*.sh"):
        with contextlib.suppress(OSError):
            if str(tmp) in path.read_text():
                path.unlink()
