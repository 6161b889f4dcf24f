"""The class's processes around the hub: the learners' servers started before class
(`packlab hub warm`), and stopping the hub alone or everything with it (`packlab hub stop`).

The servers and the proxy outlive the hub (hub/jupyterhub_config.py), so stopping the hub for a
restart or an upgrade leaves every learner working; `stop(everything=True)` is the end of a
class: the hub, then each server the hub's database names (with its kernels), then the proxy,
and the hub's login profile.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import psutil

from packlab.course.hub import profile
from packlab.course.hub.layout import Hub
from packlab.course.hub.proxy import read_pid, running_proxy

SERVICE = "JUPYTERHUB_SERVICE_NAME"  # in the environment of each of the hub's services
# How a single-user server of the hub shows in its command line: the instructors' run
# jupyterhub-singleuser; the learners' `packlab lab` becomes the server in its own process.
SERVERS = ("singleuser", "packlab lab")


def admin_token(hub: Hub) -> str:
    """The token of root's commands on the hub: PACKLAB_HUB_ADMIN_TOKEN, else one kept in the
    hub's home (root's alone)."""
    if os.environ.get("PACKLAB_HUB_ADMIN_TOKEN"):
        return os.environ["PACKLAB_HUB_ADMIN_TOKEN"]
    from packlab.course.hub.proxy import token

    return token(hub.admin_token)


def api(hub: Hub, path: str, method: str = "GET") -> tuple[int, dict]:
    """The hub's REST API, straight to the hub (not through the proxy), as root's token."""
    request = urllib.request.Request(f"http://127.0.0.1:{hub.api_port}/hub/api{path}",
                                     method=method, data=b"" if method == "POST" else None,
                                     headers={"Authorization": f"token {admin_token(hub)}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            text = answer.read()
            return answer.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, {"message": text[:200].decode(errors="replace")}


def warm(hub: Hub, names: list[str], seconds: float = 600,
         said: Callable[[str], None] = print) -> dict[str, str]:
    """Start the servers of ``names`` that are not running, all at once, and wait until each
    runs; per name, "running" or why not."""
    with ThreadPoolExecutor(8) as pool:
        started = dict(zip(names, pool.map(lambda n: api(hub, f"/users/{n}/server", "POST"),
                                           names), strict=True))
    state = {name: _refused(status, answer) for name, (status, answer) in started.items()}
    deadline = time.monotonic() + seconds
    while True:
        waiting = [name for name, now in state.items() if now == "starting"]
        for name in waiting:
            state[name] = _server_state(hub, name)
        ready = sum(now == "running" for now in state.values())
        if not any(now == "starting" for now in state.values()):
            return state
        if time.monotonic() > deadline:
            return {n: ("did not start in time" if s == "starting" else s)
                    for n, s in state.items()}
        said(f"{ready} of {len(names)} servers running…")
        time.sleep(2)


def _refused(status: int, answer: dict) -> str:
    if status in (201, 202):
        return "starting"
    message = str(answer.get("message", ""))
    if status == 400 and "already running" in message:
        return "starting"  # running, or about to: the next look says which
    if status == 404:
        return "not a user of the hub (is the account on the roster?)"
    return f"the hub said {status}: {message[:200]}"


def _server_state(hub: Hub, name: str) -> str:
    status, user = api(hub, f"/users/{name}")
    if status != 200:
        return f"the hub said {status}"
    server = user.get("servers", {}).get("")
    if server and server.get("ready"):
        return "running"
    return "starting" if user.get("pending") or server else "stopped while starting"


def stop(hub: Hub, everything: bool = False, seconds: float = 60) -> list[str]:
    """Stop the hub (servers and proxy keep running); with ``everything``, them too. What was
    stopped, in plain words."""
    done = []
    pid = read_pid(hub.hub_pid)
    if pid and _alive(pid):
        services = [p for p in _children(pid) if SERVICE in _environ(p)]
        _end([psutil.Process(pid)], seconds)
        _end(services, 10)
        done.append(f"the hub (pid {pid})")
    if not everything:
        return done
    servers = _servers(hub)
    _end(servers, seconds)
    done += [f"{len(servers)} servers with their kernels"] if servers else []
    proxy = read_pid(hub.proxy_pid)
    if proxy and running_proxy(proxy):
        _end([psutil.Process(proxy)], 10)
        done.append(f"the proxy (pid {proxy})")
    hub.proxy_pid.unlink(missing_ok=True)
    return done + [f"the login profile {path}" for path in profile.remove(hub)]


def _servers(hub: Hub) -> list[psutil.Process]:
    """The servers the hub's database says run, with everything they started (kernels,
    terminals); only live processes that are a hub's single-user servers."""
    database = hub.private / "jupyterhub.sqlite"
    if not database.exists():
        return []
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        states = [row[0] for row in db.execute(
            "SELECT state FROM spawners WHERE server_id IS NOT NULL")]
    found = []
    for state in states:
        pid = json.loads(state or "{}").get("pid")
        try:
            process = psutil.Process(pid) if pid else None
            if process and any(command in " ".join(process.cmdline()) for command in SERVERS):
                found += [process, *process.children(recursive=True)]
        except psutil.Error:
            continue
    return found


def orphaned_services(hub: Hub) -> list[psutil.Process]:
    """Services of a hub of this home that died without stopping them (they still hold their
    ports): processes whose hub API is this hub's and whose parent is gone."""
    url = f"http://127.0.0.1:{hub.api_port}/hub/api"
    found = []
    for process in psutil.process_iter():
        try:
            environ = _environ(process)
            if environ.get(SERVICE) and environ.get("JUPYTERHUB_API_URL") == url \
                    and process.ppid() == 1:
                found.append(process)
        except psutil.Error:
            continue
    return found


def end_orphaned_services(hub: Hub) -> int:
    services = orphaned_services(hub)
    _end(services, 10)
    return len(services)


def _children(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children()
    except psutil.Error:
        return []


def _environ(process: psutil.Process) -> dict[str, str]:
    try:
        return process.environ()
    except psutil.Error:
        return {}


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _end(processes: list[psutil.Process], seconds: float) -> None:
    """SIGTERM, then SIGKILL what is still there after ``seconds``."""
    for process in processes:
        _signal(process, signal.SIGTERM)
    _, alive = psutil.wait_procs(processes, timeout=seconds)
    for process in alive:
        _signal(process, signal.SIGKILL)
    psutil.wait_procs(alive, timeout=5)


def _signal(process: psutil.Process, sig: int) -> None:
    with contextlib.suppress(psutil.Error):
        process.send_signal(sig)

