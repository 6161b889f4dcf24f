"""The class's hub under a class's load (issues 31.4 and 35.5): N learners log in at once, each
to a running JupyterLab, then each runs exercise 02's check in it; cold (no server running) and
warm (`packlab hub warm` before class), how long, how many CPU-seconds a server's start costs,
how much memory; and nothing is left running after.

Run as root (it makes N system accounts and an instructor, and removes them after)::

    .venv/bin/python benchmarks/hub_load.py --learners 30
    .venv/bin/python benchmarks/hub_load.py --learners 3

The hub is the class's own (tests/class_hub.py): `packlab hub serve` with hub/jupyterhub_config.py,
PAM logins through the hub's login form, each server started as the learner's own account in
the learners' environment (`packlab lab`), the room and the idle culler as in class. The check
is the exercise notebook's own cells (the solution's answer, then the visible test cell) run in
a kernel of that server over its websocket, the way JupyterLab runs them.

Figures: seconds from the login form to the learner's JupyterLab page answering (median, p95,
max), cold and warm; the CPU-seconds each server had used when the hub first said it was ready
(user + system, from /proc through psutil); the check cell's seconds under that load, and how
soon the room's numbers (the presenter's chart) count it after its reply; memory (RSS of
the hub's processes, and of each server with its kernel); the load average at the start and
the end of each phase; the hub's stop and its start again mid-class with every server running
(kept: the same processes after); the class's processes left after `packlab hub stop
--everything`.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import statistics
import sys
import threading
import time
import urllib.error
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
from class_hub import ClassHub, class_hub  # noqa: E402

from packlab.manifest import load  # noqa: E402

EXERCISE = load().exercise("02")


def login(hub: ClassHub, name: str, password: str) -> tuple[float, float]:
    """Log in through the hub's form (which starts the server when none runs), then open the
    learner's JupyterLab until it answers; the seconds it took, and the CPU-seconds the server
    had used when the hub first said it was ready."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=hub.tls),
                                         urllib.request.HTTPCookieProcessor(jar))
    start = time.monotonic()
    with opener.open(f"{hub.base}/hub/login", timeout=300) as page:
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.read().decode()).group(1)
    form = urllib.parse.urlencode({"username": name, "password": password, "_xsrf": xsrf})
    opener.open(f"{hub.base}/hub/login", data=form.encode(), timeout=300).close()
    while True:  # the hub's word that the server is ready: its CPU-seconds until then
        server = hub.api(f"/users/{name}")["servers"].get("", {})
        if server.get("ready"):
            cpu = cpu_seconds(server["state"]["pid"])
            break
        time.sleep(0.2)
    lab = f"{hub.base}/user/{name}/lab"
    while True:
        try:
            with opener.open(lab, timeout=300) as page:
                if page.url.startswith(lab) and b"jupyter-config-data" in page.read():
                    return time.monotonic() - start, cpu
        except urllib.error.HTTPError as error:
            if error.code not in (424, 502, 503):
                raise
        time.sleep(0.5)


def server(hub: ClassHub, name: str) -> psutil.Process:
    return psutil.Process(hub.api(f"/users/{name}")["servers"][""]["state"]["pid"])


def cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def cells() -> tuple[str, str]:
    """Exercise 02's cells up to its answer, and its visible test cell."""
    notebook = nbformat.read(EXERCISE.source, as_version=4)
    before, test = [], ""
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        if cell.metadata.get("nbgrader", {}).get("grade_id") == EXERCISE.grade_id("visible"):
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
    start, printed, replied, idle = time.monotonic(), [], None, False
    while True:
        message = json.loads(ws.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        if message["msg_type"] in ("display_data", "execute_result"):
            printed.append(message["content"]["data"].get("text/plain", ""))
        if message["msg_type"] == "error":
            printed.append("\n".join(message["content"]["traceback"]))
        if message["msg_type"] == "execute_reply":
            replied = time.monotonic() - start
        idle = idle or (message["msg_type"] == "status"
                        and message["content"]["execution_state"] == "idle")
        if replied is not None and idle:  # the reply (shell) and the last output (iopub)
            return replied, "".join(printed)


def check(hub: ClassHub, name: str, setup: str, test: str) -> tuple[float, float, str]:
    """Start a kernel on ``name``'s server, run the cells before the test, then the test cell;
    its seconds, when its reply came (monotonic) and what it printed (nan: the check's
    connection failed)."""
    try:
        kernel = hub.api("/kernels", "POST", {"name": "python3"}, base=f"/user/{name}/api")
        ws = websocket.create_connection(
            f"{hub.base.replace('http', 'ws', 1)}/user/{name}/api/kernels/{kernel['id']}/"
            "channels", header=[f"Authorization: token {hub.token}"], timeout=600,
            sslopt={"context": hub.tls})
    except (websocket.WebSocketException, OSError) as error:
        return float("nan"), float("nan"), f"the check's connection failed: {error}"
    try:
        execute(ws, setup)
        seconds, printed = execute(ws, test)
        return seconds, time.monotonic(), printed
    finally:
        ws.close()


class Watcher(threading.Thread):
    """Reads the room's numbers as the presenter's chart does, every 50 ms: when each learner
    first shows."""

    def __init__(self, hub: ClassHub) -> None:
        super().__init__(daemon=True)
        self.hub, self.seen, self.stop = hub, {}, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                room = self.hub.api("/api/room?names=1", base="/services/room")["room"]
            except Exception:  # noqa: BLE001 - the hub is busy; ask again
                room = {}
            now = time.monotonic()
            for name in room.get(EXERCISE.name, {}).get("names", {}).get("ran", []):
                self.seen.setdefault(name, now)
            time.sleep(0.05)


def memory(hub: ClassHub, names: list[str]) -> dict:
    """MB of RSS: the hub's processes (hub, proxy, services), and each server with its kernel."""
    def rss(processes) -> float:
        return sum(p.memory_info().rss for p in processes) / 2**20

    trees = {name: [server(hub, name), *server(hub, name).children(recursive=True)]
             for name in names}
    in_servers = {p.pid for tree in trees.values() for p in tree}
    hub_side = [p for p in [psutil.Process(hub.process.pid),
                            *psutil.Process(hub.process.pid).children(recursive=True),
                            psutil.Process(int((hub.home / "proxy.pid").read_text()))]
                if p.pid not in in_servers]
    servers = [rss(tree) for tree in trees.values()]
    return {"hub_mb": round(rss(hub_side)), "server_median_mb": round(statistics.median(servers)),
            "server_max_mb": round(max(servers)), "servers_total_mb": round(sum(servers))}


def last_line(said: str) -> str:
    lines = [line for line in said.splitlines() if line.strip()]
    return lines[-1][:160] if lines else "(nothing)"


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def summary(values: list[float]) -> dict:
    return {"median": round(statistics.median(values), 2), "p95": round(p95(values), 2),
            "max": round(max(values), 2)}


def logins(hub: ClassHub) -> tuple[list[float], list[float], list[float]]:
    """Every learner logs in at once; seconds, CPU-seconds per server, load averages."""
    load_before = os.getloadavg()[0]
    with ThreadPoolExecutor(len(hub.learners)) as pool:
        done = list(pool.map(lambda person: login(hub, person.name, person.password),
                             hub.learners))
    return [d[0] for d in done], [d[1] for d in done], [load_before, os.getloadavg()[0]]


def restart(hub: ClassHub, names: list[str]) -> dict:
    """The hub stopped (Ctrl-C) and served again mid-class: how long each took, and whether
    every server is the same process after."""
    before = {name: server(hub, name).pid for name in names}
    start = time.monotonic()
    hub.stop()
    stopped = time.monotonic()
    hub.serve(600)
    after = {name: server(hub, name).pid for name in names}
    return {"stop_s": round(stopped - start, 1),
            "serve_again_s": round(time.monotonic() - stopped, 1),
            "servers_kept": sum(after[n] == before[n] for n in names)}


def run(learners: int) -> dict:
    setup, test = cells()
    figures: dict = {"learners": learners, "cpu_count": os.cpu_count()}
    with class_hub(learners=learners, seconds=600) as hub:
        names = [person.name for person in hub.learners]
        seconds, cpu, load = logins(hub)
        figures["cold"] = {"login_to_lab_s": summary(seconds), "cpu_s_per_start": summary(cpu),
                           "load_average_1min": load}
        watcher = Watcher(hub)
        watcher.start()
        with ThreadPoolExecutor(learners) as pool:
            checks = list(pool.map(lambda n: check(hub, n, setup, test), names))
        time.sleep(2)
        watcher.stop.set()
        watcher.join()
        figures["check_s"] = summary([s for s, _, _ in checks if s == s])
        figures["checks_said"] = dict(Counter(last_line(said) for _, _, said in checks))
        delays = [max(0.0, watcher.seen[n] - replied) for n, (_, replied, _) in
                  zip(names, checks, strict=True) if n in watcher.seen and replied == replied]
        figures["room"] = {"counted": len(delays),
                           "delay_after_reply_s": summary(delays) if delays else None}
        figures["memory"] = memory(hub, names)

        figures["restart"] = restart(hub, names)
        start = time.monotonic()
        stopped = hub.packlab("hub", "stop", "--everything")
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        figures["stop_everything_s"] = round(time.monotonic() - start, 1)
        hub.serve(600)
        load_before = os.getloadavg()[0]
        start = time.monotonic()
        warmed = hub.packlab("hub", "warm")
        assert warmed.returncode == 0, warmed.stdout + warmed.stderr
        figures["warm_up"] = {"seconds": round(time.monotonic() - start, 1),
                              "load_average_1min": [load_before, os.getloadavg()[0]]}
        seconds, _, load = logins(hub)
        figures["warm"] = {"login_to_lab_s": summary(seconds), "load_average_1min": load}
        folder, port = hub.home.parent, hub.base.rsplit(":", 1)[1]
    figures["processes_left"] = left_behind(folder, port)
    return figures


def left_behind(folder: Path, port: str) -> list[str]:
    """Processes of this run still there: anything naming its folder or its hub's port."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if str(folder) in line or f"--port {port}" in line:
            found.append(f"{process.info['pid']} {line[:120]}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps(run(args.learners), indent=2))


if __name__ == "__main__":
    main()
