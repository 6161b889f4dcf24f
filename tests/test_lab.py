"""`make lab`'s entry point, `packlab lab`, against a real JupyterLab server.

One server (headless, on a free port, with a token, serving a fresh workspace) is shared by the
tests of this module; its whole process group is killed afterwards. It is started the way a
learner types `make lab`: without the course's virtual environment on PATH.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from importlib.metadata import version
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("lab")]  # one server, one worker

PACKLAB = Path(sys.executable).with_name("packlab")
STARTUP_SECONDS = 60
REPLY_SECONDS = 60  # a terminal's or a kernel's answer (2 busy cores)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Server:
    def __init__(self, base: str, token: str, folder: Path, log: Path):
        self.base, self.token, self.folder, self.log = base, token, folder, log
        self.group = 0

    def command_lines(self) -> list[list[str]]:
        """The command lines of every process in the server's process group (Linux /proc)."""
        lines = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.group:
                    raw = (stat.parent / "cmdline").read_bytes()
                    lines.append(raw.decode(errors="replace").split("\0"))
            except (OSError, IndexError, ValueError):
                continue
        return lines

    def url(self, path: str, token: bool = True) -> str:
        return f"{self.base}{path}" + (f"?token={self.token}" if token else "")

    def tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:])


def _stop(process: subprocess.Popen) -> None:
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=grace)
            # The jupyter child may outlive the packlab parent: make sure the group is gone.
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab")
    port, token = free_port(), secrets.token_hex(16)
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    env.update(JUPYTER_PORT=str(port), JUPYTER_TOKEN=token,
               PACKLAB_WORKSPACE=str(tmp / "workspace"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    # `make lab` runs .venv/bin/packlab without activating the venv: PATH does not hold it.
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != PACKLAB.parent.resolve())
    env.pop("VIRTUAL_ENV", None)
    log = tmp / "server.log"
    running = Server(f"http://127.0.0.1:{port}", token, tmp / "workspace", log)
    with open(tmp / "stdout.log", "wb") as out, open(log, "wb") as err:
        process = subprocess.Popen([str(PACKLAB), "lab"], stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL, env=env, cwd=tmp,
                                   start_new_session=True)
    running.group = process.pid
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail(f"`packlab lab` exited with {process.returncode}:\n{running.tail()}")
            try:
                with urllib.request.urlopen(running.url("/api/status"), timeout=5) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"no server on port {port} after {STARTUP_SECONDS} s:\n"
                            f"{running.tail()}")
            time.sleep(0.5)
        yield running
    finally:
        _stop(process)


def get_json(url: str) -> tuple[int, dict]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, json.load(answer)


def test_start_page_is_served(server):
    status, model = get_json(server.url("/api/contents/START.ipynb"))
    assert status == 200
    assert model["type"] == "notebook"
    assert model["name"] == "START.ipynb"
    assert "lessons/02-priority-then-greedy.ipynb" in json.dumps(model["content"])


def test_lessons_and_exercises_are_served_from_the_workspace(server):
    status, model = get_json(server.url("/api/contents/lessons/02-priority-then-greedy.ipynb"))
    assert status == 200
    assert model["type"] == "notebook"
    status, model = get_json(server.url("/api/contents/exercises/02-greedy-pack"))
    assert status == 200
    assert "02-greedy-pack.ipynb" in [item["name"] for item in model["content"]]
    # The server's root is the learner's workspace, not the course folder.
    assert (server.folder / "START.ipynb").is_file()
    assert not (server.folder / "course.toml").exists()


def test_token_is_required(server):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(server.url("/api/contents", token=False), timeout=10)
    assert refused.value.code == 403
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server.base}/api/contents?token=wrong-{server.token}",
                               timeout=10)
    assert refused.value.code == 403


def test_root_redirects_to_the_start_page(server):
    """`/` must send the learner to the course map, not to an empty JupyterLab.

    jupyter_server's `/` handler redirects to `ServerApp.default_url`, but when JupyterLab is the
    starting app, `LabApp.default_url` ("/lab") overrides it; the token is carried along.
    """
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirect:
        opener.open(server.url("/"), timeout=10)
    assert redirect.value.code in (301, 302, 303, 307)
    location = redirect.value.headers["Location"]
    assert "/lab/tree/START.ipynb" in location, location

    # Followed (the token rides along in the query), it lands on the start page in JupyterLab.
    with urllib.request.urlopen(server.url("/"), timeout=10) as page:
        assert page.status == 200
        assert "/lab/tree/START.ipynb" in page.url
        assert "JupyterLab" in page.read().decode(errors="replace")


def test_server_runs_headless_and_as_root(server):
    log = server.log.read_text(errors="replace")
    assert "is running at" in log
    assert "No web browser found" not in log
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc: cannot read the server's command line")
    jupyter = [line for line in server.command_lines()
               if any(arg.startswith("--ServerApp.root_dir=") for arg in line)]
    assert len(jupyter) == 1, server.command_lines()
    command = jupyter[0]
    assert "--no-browser" in command
    assert f"--ServerApp.port={server.base.rsplit(':', 1)[1]}" in command
    assert f"--ServerApp.root_dir={server.folder}" in command
    # Reaching this point as root already shows --allow-root works; check it is asked for.
    assert ("--allow-root" in command) == (os.geteuid() == 0)


def post_json(url: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def delete(url: str) -> None:
    urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30).close()


async def _terminal_output(server: Server, name: str, line: str, until: str) -> str:
    """Type ``line`` into terminal ``name`` over its websocket; the output up to ``until``."""
    from tornado.websocket import websocket_connect

    url = server.url(f"/terminals/websocket/{name}").replace("http://", "ws://", 1)
    socket = await websocket_connect(url)
    try:
        socket.write_message(json.dumps(["stdin", line + "\r"]))
        seen = ""
        while until not in seen:
            message = await socket.read_message()
            if message is None:
                break
            kind, *content = json.loads(message)
            if kind == "stdout":
                seen += content[0]
        return seen
    finally:
        socket.close()


def test_terminal_runs_packlab(server):
    """START.ipynb says to run `packlab hint 02` in a JupyterLab terminal: `packlab` is there."""
    name = post_json(server.url("/api/terminals"))["name"]
    try:
        # The echo prints "all-done" only when it runs (the typed line shows "all""-done").
        line = 'packlab --version; echo "VIRTUAL_ENV=$VIRTUAL_ENV"; echo all""-done'
        seen = asyncio.run(asyncio.wait_for(
            _terminal_output(server, name, line, "all-done"), REPLY_SECONDS))
    finally:
        delete(server.url(f"/api/terminals/{name}"))
    assert "command not found" not in seen, seen
    assert f"packlab {version('packlab')}" in seen, seen
    assert f"VIRTUAL_ENV={sys.prefix}" in seen, seen


@pytest.mark.parametrize("opened_from", [None, "", "exercises"])
def test_terminal_opens_in_the_workspace(server, opened_from):
    """Issue 20: a terminal opened in JupyterLab (with no folder, the file browser's root "" or
    one of its folders) starts in the workspace, where the file browser's paths are; it
    started in the folder `make lab` ran from, the course's own copies."""
    body = {} if opened_from is None else {"cwd": opened_from}
    name = post_json(server.url("/api/terminals"), body)["name"]
    try:
        line = 'echo "cwd=$(pwd)"; echo all""-done'
        seen = asyncio.run(asyncio.wait_for(
            _terminal_output(server, name, line, "all-done"), REPLY_SECONDS))
    finally:
        delete(server.url(f"/api/terminals/{name}"))
    wanted = server.folder / (opened_from or "")
    assert f"cwd={wanted.resolve()}\r" in seen, seen


async def _kernel_output(server: Server, kernel: str, code: str) -> str:
    """Run ``code`` in ``kernel`` over its websocket (Jupyter's messaging protocol); its stdout."""
    from tornado.websocket import websocket_connect

    url = server.url(f"/api/kernels/{kernel}/channels").replace("http://", "ws://", 1)
    socket = await websocket_connect(url)
    msg_id = uuid.uuid4().hex
    socket.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "test",
                   "session": uuid.uuid4().hex, "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
    }))
    out = ""
    try:
        while True:
            message = await socket.read_message()
            if message is None:
                return out
            reply = json.loads(message)
            if reply.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = reply["msg_type"], reply["content"]
            if kind == "stream":
                out += content["text"]
            elif kind == "error":
                out += "\n".join(content["traceback"])
            elif kind == "status" and content["execution_state"] == "idle":
                return out
    finally:
        socket.close()


def test_kernels_run_in_the_course_environment(server):
    """A lesson's kernel is the venv's Python, and `!packlab ...` in a cell finds the command."""
    kernel = post_json(server.url("/api/kernels"), {"name": "python3"})["id"]
    code = ("import os, shutil, sys\n"
            "print('prefix', sys.prefix)\n"
            "print('packlab', shutil.which('packlab'))\n")
    try:
        out = asyncio.run(asyncio.wait_for(_kernel_output(server, kernel, code), REPLY_SECONDS))
    finally:
        delete(server.url(f"/api/kernels/{kernel}"))
    assert f"prefix {sys.prefix}" in out, out
    assert f"packlab {PACKLAB}" in out, out
