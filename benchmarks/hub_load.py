"""The hub under a class's load (issue 31.4): N learners log in at once, each starts a server
and runs exercise 02's check in it; how long, how much memory, how late the room's chart.

Run as root (it makes N system accounts for PAM and removes them after)::

    .venv/bin/python benchmarks/hub_load.py --learners 30
    .venv/bin/python benchmarks/hub_load.py --learners 5

A real JupyterHub (tests/room_hub.py: JupyterHub, configurable-http-proxy, the room's service),
logging in with PAM through the hub's login form. Each server is JupyterLab's
``jupyterhub-singleuser`` from this venv, started by SimpleLocalProcessSpawner: as the hub's own
user, in a home folder of its own (the class hub, `make hub`, starts each as its account; the
venv's Python lives under /root here, which other accounts cannot run). The check is the
exercise notebook's own cells (the solution's answer, then the visible test cell) run in a
kernel of that server over its websocket, the way JupyterLab runs them, so the room hears of it
as it does from a learner.

Figures: time from the login form to a running server (median, p95), the check cell's time under
that load (median, p95), the room's delay (from the check's reply to the room's numbers counting
it; the chart asks for them every second), and memory (RSS: the hub with its proxy and the room's
service; each server with its kernel).
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import psutil
import websocket

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import room_hub  # noqa: E402

from packlab.manifest import load  # noqa: E402

EXERCISE = load().exercise("02")
CHART_EVERY_SECONDS = 1.0  # chart.html asks for the numbers this often


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def accounts(names: list[str], password: str) -> None:
    for name in names:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                       check=True)
    subprocess.run(["chpasswd"], input="".join(f"{n}:{password}\n" for n in names), text=True,
                   check=True)


def remove_accounts(names: list[str]) -> None:
    for name in names:
        subprocess.run(["userdel", name], capture_output=True)


def login_and_spawn(hub: room_hub.Hub, name: str, password: str) -> float:
    """Log in through the hub's form and ask for a server; seconds until the hub says it runs."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    start = time.monotonic()
    with opener.open(f"{hub.url}/hub/login", timeout=120) as page:
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.read().decode()).group(1)
    form = urllib.parse.urlencode({"username": name, "password": password,
                                   "_xsrf": xsrf}).encode()
    for url, data in ((f"{hub.url}/hub/login?next=", form), (f"{hub.url}/hub/spawn", None)):
        try:
            opener.open(url, data=data, timeout=300)
        except urllib.error.HTTPError as answer:
            if answer.code != 302:
                raise
    while True:
        status, user = hub.api("GET", f"/users/{name}")
        if status == 200 and user.get("servers", {}).get("", {}).get("ready"):
            return time.monotonic() - start
        time.sleep(0.25)


def cells() -> tuple[str, str]:
    """Exercise 02's cells up to its answer, and its visible test cell."""
    notebook = nbformat.read(EXERCISE.source, as_version=4)
    before, test = [], ""
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == EXERCISE.grade_id("visible"):
            test = cell.source
            break
        before.append(cell.source)
    return "\n\n".join(before), test


def execute(ws: websocket.WebSocket, code: str) -> tuple[float, str]:
    """Run ``code`` in the kernel; the seconds to its reply and what it printed."""
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({
        "header": {"msg_id": msg_id, "username": "bench", "session": uuid.uuid4().hex,
                   "msg_type": "execute_request", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True,
                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
    start, printed = time.monotonic(), []
    while True:
        message = json.loads(ws.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        if message["msg_type"] == "error":
            printed.append("\n".join(message["content"]["traceback"]))
        if message["channel"] == "shell" and message["msg_type"] == "execute_reply":
            return time.monotonic() - start, "".join(printed)


def check(hub: room_hub.Hub, name: str, setup: str, test: str) -> tuple[float, float, str]:
    """Start a kernel on ``name``'s server, run the cells before the test, then the test cell;
    the test cell's seconds, when its reply came (monotonic) and what it printed. A lost
    connection is tried once more, then counted as a failed check (nan seconds)."""
    for attempt in (1, 2):
        try:
            return _check(hub, name, setup, test)
        except (websocket.WebSocketException, OSError) as error:
            failure = f"the check's connection failed ({attempt}): {error}"
    return float("nan"), float("nan"), failure


def _check(hub: room_hub.Hub, name: str, setup: str, test: str) -> tuple[float, float, str]:
    status, kernel = hub.api("POST", "/kernels", {"name": "python3"},
                             base=f"{hub.url}/user/{name}/api")
    assert status == 201, kernel
    ws = websocket.create_connection(
        f"{hub.url.replace('http', 'ws', 1)}/user/{name}/api/kernels/{kernel['id']}/channels",
        header=[f"Authorization: token {hub.token}"], timeout=600)
    try:
        execute(ws, setup)
        seconds, printed = execute(ws, test)
        return seconds, time.monotonic(), printed
    finally:
        ws.close()


class Watcher(threading.Thread):
    """Reads the room's numbers as the chart does, every 50 ms: when each learner first shows."""

    def __init__(self, hub: room_hub.Hub) -> None:
        super().__init__(daemon=True)
        self.hub, self.seen, self.stop = hub, {}, threading.Event()
        self.answers: list[float] = []

    def run(self) -> None:
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                room = self.hub.room(names=True).get(EXERCISE.name, {})
            except Exception:  # noqa: BLE001 - the hub is busy; ask again
                room = {}
            now = time.monotonic()
            self.answers.append(now - start)
            for name in room.get("names", {}).get("ran", []):
                self.seen.setdefault(name, now)
            time.sleep(0.05)


def memory(hub: room_hub.Hub) -> tuple[float, dict[str, float]]:
    """MB of RSS: the hub's own processes (hub, proxy, room), and each learner's server tree."""
    hub_mb, servers = 0.0, {}
    for process in [psutil.Process(hub.process.pid),
                    *psutil.Process(hub.process.pid).children(recursive=True)]:
        try:
            rss = process.memory_info().rss / 2**20
            user = process.environ().get("JUPYTERHUB_USER")
        except psutil.Error:
            continue
        if user:
            servers[user] = servers.get(user, 0.0) + rss
        else:
            hub_mb += rss
    return hub_mb, servers


@contextlib.contextmanager
def log_kept(folder: Path):
    """Keep the hub's log (its servers' too) beside the benchmark's output, however it ends."""
    try:
        yield
    finally:
        shutil.copy(folder / "jupyterhub.log", Path(tempfile.gettempdir()) / "hub_load.log")


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def run(learners: int) -> dict:
    names = [f"roombench{i:02d}" for i in range(1, learners + 1)]
    password = secrets.token_urlsafe(12)
    setup, test = cells()
    accounts(names, password)
    folder = Path(tempfile.mkdtemp(prefix="packlab-hub-load-"))
    extra = f"""
c.JupyterHub.authenticator_class = "pam"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{folder}/homes/{{username}}"
c.Spawner.cmd = ["{room_hub.VENV_BIN / 'jupyterhub-singleuser'}"]
c.Spawner.args = ["--allow-root"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 600
c.Spawner.http_timeout = 600
"""
    try:
        with room_hub.running(folder, names, names, extra) as hub, log_kept(folder):
            hub_idle, _ = memory(hub)
            with ThreadPoolExecutor(learners) as pool:
                ready = list(pool.map(lambda n: login_and_spawn(hub, n, password), names))
            watcher = Watcher(hub)
            watcher.start()
            with ThreadPoolExecutor(learners) as pool:
                checks = list(pool.map(lambda n: check(hub, n, setup, test), names))
            time.sleep(2)
            watcher.stop.set()
            watcher.join()
            hub_mb, servers = memory(hub)
    finally:
        remove_accounts(names)
        shutil.rmtree(folder, ignore_errors=True)
    delays = [max(0.0, watcher.seen[n] - replied) for n, (_, replied, _) in
              zip(names, checks, strict=True) if n in watcher.seen and replied == replied]
    failed = [said for seconds, _, said in checks if seconds != seconds]
    checks = [c for c in checks if c[0] == c[0]]  # nan: the check failed
    room_lines = Counter(next((line for line in said.splitlines() if "room's chart" in line),
                              "(no line about the room)") for _, _, said in checks)
    return {
        "learners": learners,
        "server_ready_s": {"median": statistics.median(ready), "p95": p95(ready),
                           "max": max(ready)},
        "check_s": {"median": statistics.median(c[0] for c in checks),
                    "p95": p95([c[0] for c in checks])},
        "room_delay_s": {"median": statistics.median(delays) if delays else None,
                         "p95": p95(delays) if delays else None,
                         "counted": len(delays), "numbers_answer_p95": p95(watcher.answers),
                         "chart_asks_every": CHART_EVERY_SECONDS},
        "memory_mb": {"hub_idle": hub_idle, "hub_loaded": hub_mb,
                      "server_median": statistics.median(servers.values()) if servers else None,
                      "server_max": max(servers.values()) if servers else None,
                      "servers_total": sum(servers.values())},
        "what_the_checks_said_of_the_room": dict(room_lines),
        "checks_failed": failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps(run(args.learners), indent=2))


if __name__ == "__main__":
    main()
