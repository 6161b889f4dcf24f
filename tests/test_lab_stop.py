"""`packlab lab` stops JupyterLab when it is itself told to stop (SIGTERM: a service manager,
`kill`, a container's stop), instead of leaving the server running with no parent."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from browser import free_port, stop_group

PACKLAB = Path(sys.executable).with_name("packlab")
STARTUP_SECONDS = 60
STOP_SECONDS = 20

pytestmark = pytest.mark.xdist_group("lab_stop")


def group_members(group: int) -> list[int]:
    """The processes of a process group (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def test_sigterm_stops_the_server_too(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    env.update(JUPYTER_PORT=str(port), JUPYTER_TOKEN=token,
               PACKLAB_WORKSPACE=str(tmp_path / "workspace"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    with open(tmp_path / "server.log", "wb") as log:
        process = subprocess.Popen([str(PACKLAB), "lab"], stdout=log, stderr=log,
                                   stdin=subprocess.DEVNULL, env=env, cwd=tmp_path,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            assert process.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}",
                                            timeout=5):
                    break
            except (urllib.error.URLError, OSError):
                assert time.monotonic() < deadline, "JupyterLab did not start"
                time.sleep(0.5)
        assert len(group_members(process.pid)) >= 2  # packlab and its JupyterLab
        process.send_signal(signal.SIGTERM)  # to packlab alone, not its group
        process.wait(timeout=STOP_SECONDS)
        deadline = time.monotonic() + STOP_SECONDS
        while group_members(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert group_members(process.pid) == [], "JupyterLab outlived `packlab lab`"
    finally:
        stop_group(process)
