"""How long a newcomer waits for the first `make lab`: from a fresh clone, until JupyterLab answers.

    .venv/bin/python benchmarks/first_lab.py [--against REV] [--runs N]

Each run clones this repository into a temporary folder, starts `make lab` there (which builds
the venv first) on a free port with a random token, and times until `/api/status` first answers
200; the server and everything it started are stopped, and the clone removed. With `--against
REV`, the clone's Makefile is REV's (say, the commit before the venv was built with uv), and the
two are run in turn, so both face the same machine. Package download caches are whatever the
machine has (warm, after the first run). Not a test: figures for book/speed.md.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WAIT_SECONDS = 900


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def first_lab(makefile_from: str | None) -> float:
    """Seconds from `make lab` in a fresh clone to JupyterLab's first 200."""
    with tempfile.TemporaryDirectory(prefix="packlab-first-lab-") as folder:
        clone = Path(folder) / "packlab"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        if makefile_from:
            makefile = subprocess.run(["git", "show", f"{makefile_from}:Makefile"], cwd=ROOT,
                                      check=True, capture_output=True, text=True).stdout
            (clone / "Makefile").write_text(makefile, encoding="utf-8")
        port, token = _free_port(), secrets.token_hex(16)
        env = {**os.environ, "JUPYTER_PORT": str(port), "JUPYTER_TOKEN": token}
        url = f"http://127.0.0.1:{port}/api/status?token={token}"
        began = time.monotonic()
        with open(clone / "make-lab.log", "w") as log:
            lab = subprocess.Popen(["make", "lab"], cwd=clone, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            while not _answers(url):
                if lab.poll() is not None or time.monotonic() - began > WAIT_SECONDS:
                    raise SystemExit((clone / "make-lab.log").read_text(encoding="utf-8"))
                time.sleep(0.25)
            return time.monotonic() - began
        finally:
            os.killpg(lab.pid, signal.SIGTERM)
            try:
                lab.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(lab.pid, signal.SIGKILL)
                lab.wait()
            left = subprocess.run(["pgrep", "-f", str(clone)], capture_output=True, text=True)
            if left.stdout.strip():
                os.killpg(lab.pid, signal.SIGKILL)
                raise SystemExit(f"left running: {left.stdout}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="a revision whose Makefile to time too, in turn")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    for _ in range(args.runs):
        now = first_lab(None)
        line = f"this tree: {now:.1f} s"
        if args.against:
            then = first_lab(args.against)
            line += f"; Makefile of {args.against}: {then:.1f} s ({then / now:.2f}x as long)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
