"""The class's proxy, which outlives the hub (hub/jupyterhub_config.py names it).

JupyterHub's own proxy class ends a proxy it finds still running and starts a new one, with no
routes: every open tab loses its server until the hub has added the routes again, and its
websockets (the kernels' channels) drop. This one keeps it: a hub that starts finds the proxy of
the last one (its pid file, its API answering to the same token), keeps it with its routes, and
watches it as it would its own. A proxy that is gone, or that does not know the token, is
replaced as JupyterHub does.
"""

from __future__ import annotations

import os
import secrets
import signal
from pathlib import Path

from jupyterhub.proxy import ConfigurableHTTPProxy
from tornado.ioloop import PeriodicCallback

PROXY_NAME = "configurable-http-proxy"


class Running:
    """A proxy process this hub did not start: what the proxy class asks of its Popen."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        """None while the process runs, 0 once it is gone."""
        return None if running_proxy(self.pid) else 0

    def terminate(self) -> None:
        os.kill(self.pid, signal.SIGTERM)


class LastingProxy(ConfigurableHTTPProxy):
    """configurable-http-proxy, kept across the hub's restarts."""

    async def start(self) -> None:
        pid = await self._reusable()
        if pid is None:
            await super().start()
            return
        self.log.info("Keeping the running proxy (pid %s) and its routes", pid)
        self.proxy_process = Running(pid)
        self._check_running_callback = PeriodicCallback(self.check_running,
                                                        1e3 * self.check_running_interval)
        self._check_running_callback.start()

    async def _reusable(self) -> int | None:
        """The pid of the last hub's proxy when it runs and answers to our token."""
        pid = read_pid(Path(self.pid_file)) if self.pid_file else None
        if pid is None or not running_proxy(pid):
            return None
        try:
            await self.get_all_routes()
        except Exception as error:  # noqa: BLE001 - any failure: start a proxy of our own
            self.log.warning("The running proxy (pid %s) does not answer: %s", pid, error)
            return None
        return pid


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def running_proxy(pid: int) -> bool:
    """Whether ``pid`` is a live configurable-http-proxy (not a zombie, not a reused pid)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and PROXY_NAME.encode() in command


def token(path: Path) -> str:
    """The proxy's API token, kept in ``path`` (root's alone) so the next hub can use it."""
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_hex(32))
    path.chmod(0o600)
    return path.read_text().strip()
