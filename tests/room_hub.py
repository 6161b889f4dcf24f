"""A real JupyterHub with the room's service, for the room's tests.

JupyterHub from the venv, configurable-http-proxy from npm (installed once into
``.venv/node/``), the room configured by `packlab.course.room.hub.configure`, every port free and
random, every file in a folder of the caller's. The tests log people in with JupyterHub's
DummyAuthenticator (tests only: a real hub uses PAM accounts, see `make hub`); a service token
of the test's own, with admin scopes, makes the users' tokens and reads the hub.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
NODE_FOLDER = VENV_BIN.parent / "node"
PROXY = NODE_FOLDER / "node_modules" / ".bin" / "configurable-http-proxy"
PROXY_PACKAGE = "configurable-http-proxy@4"


CLASS_PROXY = ROOT / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"  # `make hub`'s


def proxy() -> Path:
    """configurable-http-proxy: the class hub's when `make hub` installed it, else one
    installed from npm beside the venv the first time."""
    if CLASS_PROXY.exists():
        return CLASS_PROXY
    if not PROXY.exists():
        if not shutil.which("npm"):
            raise RuntimeError("npm is needed to install configurable-http-proxy")
        NODE_FOLDER.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix",
                        str(NODE_FOLDER), PROXY_PACKAGE], check=True, timeout=300)
    return PROXY


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


CONFIG = """\
from packlab.course.room.hub import configure

c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{folder}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.JupyterHub.pid_file = "{folder}/jupyterhub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = set({users!r})
c.Authenticator.admin_users = {{"presenter"}}
c.JupyterHub.cleanup_servers = True
configure(c, db="{folder}/room.sqlite", port={room_port})
c.JupyterHub.load_groups.update({{"learners": {{"users": {learners!r}}}}})
c.JupyterHub.services.append({{"name": "tester", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "tester", "services": ["tester"],
    "scopes": ["admin:users", "tokens", "admin:servers", "admin:groups", "access:services",
               "access:servers", "read:users"]}})
{extra}
"""


@dataclass
class Hub:
    url: str  # the proxy's public address, e.g. http://127.0.0.1:40123
    room_url: str  # the room's service as learners' servers reach it (PACKLAB_ROOM_URL)
    token: str  # the tester service's token: admin scopes
    password: str  # every user's password (DummyAuthenticator)
    folder: Path
    log: Path
    process: subprocess.Popen

    def api(self, method: str, path: str, body: dict | None = None, token: str | None = None,
            base: str | None = None) -> tuple[int, dict]:
        """Call the hub's REST API (or ``base``'s); the status and the JSON answer."""
        request = urllib.request.Request(
            (base or f"{self.url}/hub/api") + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {token or self.token}",
                     "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                raw = answer.read()
                return answer.status, json.loads(raw) if raw else {}
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw)
            except ValueError:
                return error.code, {"raw": raw[:200].decode(errors="replace")}

    def token_of(self, user: str) -> str:
        """A new API token of ``user``, as their server's JUPYTERHUB_API_TOKEN is."""
        status, answer = self.api("POST", f"/users/{user}/tokens", {"note": "room test"})
        assert status == 201, answer
        return answer["token"]

    def room(self, token: str | None = None, names: bool = False) -> dict:
        """The chart's numbers, as the presenter's page reads them."""
        status, answer = self.api("GET", "/api/room" + ("?names=1" if names else ""),
                                  token=token, base=f"{self.url}/services/room")
        assert status == 200, answer
        return answer["room"]

    def learner_env(self, token: str, home: Path) -> dict[str, str]:
        """A learner's server's environment, as far as the room reads it."""
        home.mkdir(parents=True, exist_ok=True)
        return {**os.environ, "HOME": str(home), "JUPYTERHUB_API_TOKEN": token,
                "JUPYTERHUB_API_URL": f"{self.url}/hub/api", "PACKLAB_ROOM_URL": self.room_url,
                "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def _wait(url: str, process: subprocess.Popen, log: Path, seconds: float,
          token: str = "") -> None:
    """Poll ``url`` (with ``token``) until it answers 200."""
    deadline = time.monotonic() + seconds
    headers = {"Authorization": f"token {token}"} if token else {}
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"jupyterhub exited with {process.returncode}:\n{_tail(log)}")
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                        timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing answered at {url} after {seconds} s:\n{_tail(log)}")
        time.sleep(0.2)


def _tail(log: Path, lines: int = 60) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start(folder: Path, users: list[str], learners: list[str], extra: str = "") -> Hub:
    """Start the hub in ``folder`` (its database, logs and the room's SQLite file go there)."""
    folder.mkdir(parents=True, exist_ok=True)
    port, room_port = free_port(), free_port()
    password, token = secrets.token_urlsafe(12), secrets.token_hex(24)
    config = folder / "jupyterhub_config.py"
    config.write_text(CONFIG.format(
        port=port, hub_port=free_port(), proxy_port=free_port(), proxy=str(proxy()),
        folder=folder, password=password, users=sorted(set(users) | {"presenter"}),
        learners=learners, room_port=room_port, token=token, extra=extra), encoding="utf-8")
    log = folder / "jupyterhub.log"
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "CONFIGPROXY_AUTH_TOKEN": secrets.token_hex(24)}
    with log.open("ab") as out:
        process = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(config)], cwd=folder,
                                   env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{room_port}/services/room",
              token, password, folder, log, process)
    try:
        _wait(f"{hub.url}/hub/health", process, log, 90)
        _wait(f"{hub.url}/services/room/api/room", process, log, 90, token)
    except BaseException:
        stop(hub)
        raise
    return hub


def stop(hub: Hub, seconds: float = 120) -> list[str]:
    """End the hub and let it stop what it started (its proxy, services and servers, each in
    a session of its own); what was still running after it (then ended)."""
    family = _family(hub)
    try:
        hub.process.send_signal(signal.SIGTERM)
        hub.process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(hub.process.pid, signal.SIGKILL)
        hub.process.wait()
    left = []
    for process in family:
        with contextlib.suppress(psutil.Error):
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                left.append(" ".join(process.cmdline())[:120])
                process.kill()
    return left


def _family(hub: Hub) -> list[psutil.Process]:
    """The hub's process and every process it started."""
    with contextlib.suppress(psutil.Error):
        root = psutil.Process(hub.process.pid)
        return [root, *root.children(recursive=True)]
    return []


@contextlib.contextmanager
def running(folder: Path, users: list[str], learners: list[str], extra: str = "") -> Iterator[Hub]:
    """A hub for the ``with`` block; it fails if anything of the hub outlives its stop."""
    hub = start(folder, users, learners, extra)
    try:
        yield hub
    finally:
        left = stop(hub)
    assert not left, f"still running after the hub stopped: {left}"


def restart_room(hub: Hub, seconds: float = 60) -> None:
    """Stop the room's service process; the hub starts it again (it watches its services)."""
    found = subprocess.run(["pgrep", "-f", f"packlab.course.room.service --db {hub.folder}/"],
                           capture_output=True, text=True).stdout.split()
    assert found, "the room's service is not running"
    for pid in found:
        os.kill(int(pid), signal.SIGKILL)
    _wait(f"{hub.url}/services/room/api/room", hub.process, hub.log, seconds, hub.token)
