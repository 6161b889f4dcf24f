"""`make lab`'s entry point, `packlab lab`, against a real JupyterLab server.

One server (headless, on a free port, with a token, serving a fresh workspace) is shared by the
tests of this module; its whole process group is killed afterwards.
"""

from __future__ import annotations

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
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("lab")]  # one server, one worker

PACKLAB = Path(sys.executable).with_name("packlab")
STARTUP_SECONDS = 60


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
