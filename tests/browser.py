"""Shared helpers for the tests that drive a real headless Chromium through Playwright.

The browser is Debian's chromium at /usr/bin/chromium (`.ci/run` installs it); Playwright cannot
download its own browsers here, so it is always launched with ``executable_path``. Each launch gets
a fresh user-data folder (a persistent context: Playwright refuses ``--user-data-dir`` in ``args``).

When chromium or Playwright is missing, the tests say so loudly and skip; in CI (``CI=true``) they
fail instead, because a skipped browser test there would hide a broken book or lab.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("PACKLAB_CHROMIUM", "/usr/bin/chromium"))
# DESIGN.md's headless flags; the fresh --user-data-dir is the persistent context's folder.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}  # a laptop
ARTIFACTS = ROOT / "test-artifacts" / "screenshots"  # gitignored; CI keeps it as an artifact
WAIT_MS = 60_000  # longest wait for one thing to appear (2 cores, tests in parallel)
# A page function: the open notebook shows all its ``cells`` and its kernel is idle.
# Every code cell of the notebook in front has run (each prompt shows its number).
ALL_RUN = """() => {
    const prompts = [...document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt')];
    return prompts.length > 0 && prompts.every(p => /^\\[\\d+\\]:$/.test(p.textContent.trim()));
}"""

# No transition or animation of the page is under way (endless ones, a spinner's, aside).
AT_REST = """() => document.getAnimations().every(a => a.playState !== 'running'
    || a.effect.getComputedTiming().endTime === Infinity)"""

NOTEBOOK_READY = """(cells) => {
    const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
    const bar = document.querySelector('.jp-StatusBar-Widget');
    return panel !== null && bar !== null
        && panel.querySelectorAll('.jp-Notebook .jp-Cell').length === cells
        && /\\| Idle/.test(bar.textContent);
}"""


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(reason: str) -> None:
    """Fail in CI, otherwise skip — loudly: a warning in the summary as well as the skip line."""
    message = f"BROWSER TESTS NOT RUN: {reason}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: a browser test may not be skipped)", pytrace=False)
    warnings.warn(message, stacklevel=2)
    pytest.skip(message)


def require_browser() -> None:
    """Skip (or fail in CI) unless both chromium and Playwright are here."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        missing(f"no chromium at {CHROMIUM}; install it with `apt-get install -y chromium` "
                "(`.ci/run` does this)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing("Playwright is not installed; run `pip install -e '.[dev]'` (or `make test`)")


@contextlib.contextmanager
def chromium_process() -> Iterator:
    """One headless Chromium for a module's tests: each asks it for a fresh context with
    ``chromium(browser)`` instead of starting a browser of its own. Until it ends, the thread
    holds Playwright's running event loop: no asyncio.run, and no second chromium(), meanwhile."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS,
                                             headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def chromium(browser=None, **context_options) -> Iterator:
    """A headless Chromium context with a fresh profile; closed (and the profile removed) after.
    Given ``browser`` (chromium_process), a fresh context of that browser instead."""
    if browser is not None:
        context = browser.new_context(viewport=VIEWPORT, **context_options)
        context.set_default_timeout(WAIT_MS)
        try:
            yield context
        finally:
            context.close()
        return
    require_browser()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="packlab-chromium-") as profile, \
            sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            args=FLAGS,
            headless=True,
            viewport=VIEWPORT,
            **context_options,
        )
        context.set_default_timeout(WAIT_MS)
        try:
            yield context
        finally:
            context.close()


def run_all_cells(page, notebook) -> None:
    """Give ``notebook`` (a ``.jp-Notebook`` locator) the focus and choose Run ▸ Run All Cells
    from the menu bar, as a learner does."""
    notebook.click(position={"x": 5, "y": 5})
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$"))).click()


def screenshot_path(name: str) -> Path:
    """Where a screenshot called ``name`` goes (the folder is made on demand)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"


def is_loopback(url: str) -> bool:
    """True for URLs that never leave this machine (loopback hosts, data:, blob:, about:)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome-error"):
        return True
    host = (parts.hostname or "").strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop_group(process: subprocess.Popen) -> None:
    """End a process started with ``start_new_session=True`` and everything in its group."""
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            os.killpg(process.pid, 0)  # a child may outlive the parent: is the group gone?
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def wait_for_http(url: str, process: subprocess.Popen, seconds: float, log: Path,
                  context=None) -> None:
    """Poll ``url`` until it answers 200; fail with the log's tail if the process dies first.
    ``context``: the ssl.SSLContext an https ``url`` is checked with."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            pytest.fail(f"{process.args} exited with {process.returncode}:\n{tail(log)}")
        try:
            with urllib.request.urlopen(url, timeout=5, context=context) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"nothing answered at {url} after {seconds} s:\n{tail(log)}")
        time.sleep(0.3)


def tail(log: Path, lines: int = 40) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@dataclass
class Lab:
    base: str
    token: str
    folder: Path
    log: Path

    def url(self, path: str) -> str:
        return f"{self.base}{path}?token={self.token}"

    def notebook(self, path: str) -> str:
        """The page of the notebook at ``path``, alone: in a workspace of its own, so that no tab
        an earlier page left open is restored beside it (a restored tab's cells and outputs
        would match the same selectors while JupyterLab lays the tabs out)."""
        return self.url(f"/lab/workspaces/page-{secrets.token_hex(6)}/tree/{path}")


def exposing_app(tmp: Path, env: dict[str, str]) -> dict[str, str]:
    """``env`` for a JupyterLab server whose page holds its application as
    ``window.jupyterapp``: a Jupyter config folder of the test's own (in ``tmp``), after the
    course's (which `packlab lab` and `packlab demo` put first)."""
    labconfig = tmp / "test-jupyter-config" / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text('{"exposeAppInBrowser": true}')
    return {**env, "JUPYTER_CONFIG_PATH": os.pathsep.join(
        filter(None, [str(labconfig.parent), env.get("JUPYTER_CONFIG_PATH")]))}


@contextlib.contextmanager
def lab_server(tmp: Path, seconds: float = 90, expose_app: bool = False) -> Iterator[Lab]:
    """`make lab`'s server (`packlab lab`) on a free port with a random token and a fresh workspace.

    JupyterLab's own settings and saved layouts go to ``tmp`` too, so a browser session never
    touches the real home folder. The whole process group is ended afterwards. ``expose_app``:
    the page holds JupyterLab's application as ``window.jupyterapp`` (its page setting
    ``exposeAppInBrowser``, what JupyterLab's own browser tests use), from a Jupyter config
    folder of the test's own that the course's configuration goes before.
    """
    port, token = free_port(), secrets.token_hex(16)
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    if expose_app:
        env = exposing_app(tmp, env)
    env.update(
        JUPYTER_PORT=str(port),
        JUPYTER_TOKEN=token,
        PACKLAB_WORKSPACE=str(tmp / "workspace"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "lab-workspaces"),
        XDG_STATE_HOME=str(tmp / "state"),  # the learner's hints, quiz key and predictions
    )
    # No "Would you like to get notified about official Jupyter news?" toast over the views.
    settings = tmp / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    log = tmp / "server.log"
    lab = Lab(f"http://127.0.0.1:{port}", token, tmp / "workspace", log)
    packlab = Path(sys.executable).with_name("packlab")
    with open(tmp / "stdout.log", "wb") as out, open(log, "wb") as err:
        process = subprocess.Popen([str(packlab), "lab"], stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL, env=env, cwd=tmp,
                                   start_new_session=True)
    try:
        wait_for_http(lab.url("/api/status"), process, seconds, log)
        yield lab
    finally:
        _shut_down_kernels(lab)
        stop_group(process)


def _shut_down_kernels(lab: Lab) -> None:
    """Kernels run in their own sessions: ask the server to end them before it goes."""
    import json

    try:
        with urllib.request.urlopen(lab.url("/api/kernels"), timeout=10) as answer:
            kernels = json.load(answer)
        for kernel in kernels:
            request = urllib.request.Request(lab.url(f"/api/kernels/{kernel['id']}"),
                                             method="DELETE")
            urllib.request.urlopen(request, timeout=20).close()
    except (urllib.error.URLError, OSError, ValueError):
        pass


@contextlib.contextmanager
def static_server(root: Path, seconds: float = 30) -> Iterator[str]:
    """``python -m http.server`` over ``root`` on a free loopback port; yields its base URL."""
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="packlab-http-", suffix=".log")[1])
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
             "--directory", str(root)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(base + "/", process, seconds, log)
        yield base
    finally:
        stop_group(process)
        log.unlink(missing_ok=True)


def serious_violations(page, *within: str) -> list[str]:
    """axe-core's serious and critical violations on ``page`` (only inside the elements the CSS
    selectors ``within`` match, when given), one line each: the rule, its help and the first
    elements it names.

    axe-core comes from the axe-playwright-python wheel (a pinned dev dependency): no network.
    """
    from axe_playwright_python.sync_playwright import Axe

    context = {"include": [[selector] for selector in within]} if within else None
    found = Axe().run(page, context=context).response["violations"]
    return [f"{v['impact']}: {v['id']} ({v['help']}): "
            + "; ".join(" ".join(node["target"]) for node in v["nodes"][:3])
            for v in found if v["impact"] in ("serious", "critical")]
