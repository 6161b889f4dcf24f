"""Start the class's JupyterHub: set up its home when needed, then run it in the foreground.

One hub per home: `packlab hub serve` holds a lock in the hub's home while it runs, and a second
one refuses, saying so, instead of taking over the first one's proxy and ports.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from packlab.course.hub import profile
from packlab.course.hub.accounts import instructors, learners
from packlab.course.hub.layout import (
    CONFIG,
    PROXY,
    Hub,
    HubError,
    build,
    commands_without_node,
    private_folder,
    write_configs,
)
from packlab.course.hub.proxy import read_pid, running_proxy


def problems(hub: Hub) -> list[str]:
    """What stops this hub from serving a class safely, in plain words (empty: nothing)."""
    found = []
    if os.geteuid() != 0:
        found.append("the hub must run as root: it checks passwords (PAM) and starts each "
                     "person's server as their own account")
    if not PROXY.is_file():
        found.append("the proxy is not installed: run `npm ci --prefix hub` (or `make hub`)")
    if not (hub.course / "nbgrader_config.py").is_file():
        found.append(f"{hub.course} is not the course folder (it has no nbgrader_config.py)")
    elif hub.course.stat().st_mode & stat.S_IROTH:
        found.append(f"every account can read the course folder {hub.course} (its solutions and "
                     f"hidden tests): run `packlab hub lock {hub.course}`")
    if hub.home.resolve().is_relative_to("/tmp"):
        found.append(f"the hub's home {hub.home} is under /tmp, which the grader's sandbox "
                     "replaces with an empty one: name another (PACKLAB_HUB_HOME)")
    if not hub.roster.is_file():
        found.append(f"no roster at {hub.roster}: the hub admits the roster's learners only")
    return found + _https_problems(hub)


def _https_problems(hub: Hub) -> list[str]:
    if not (hub.ssl_cert or hub.ssl_key):
        return []
    if not (hub.ssl_cert and hub.ssl_key):
        return ["HTTPS needs both a certificate and its key (PACKLAB_HUB_SSL_CERT and "
                "PACKLAB_HUB_SSL_KEY)"]
    return [f"no {what} at {path}" for what, path in
            (("certificate", hub.ssl_cert), ("key", hub.ssl_key)) if not Path(path).is_file()]


@contextlib.contextmanager
def held(hub: Hub) -> Iterator[None]:
    """This hub's home, for this process alone while it serves; refuses when another serves it."""
    hub.home.mkdir(parents=True, exist_ok=True)
    with open(hub.lock, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            raise HubError(f"the class's hub is already running from {hub.home} (pid "
                           f"{lock.read().strip() or '?'}): a second one would take over its "
                           "proxy and ports. Stop it first with `packlab hub stop` (its "
                           "learners' servers keep running), or Ctrl-C where it runs") from None
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        yield


def ports_taken(hub: Hub) -> list[str]:
    """The hub's ports that another program holds (the last hub's proxy may keep its own)."""
    keeps = running_proxy(read_pid(hub.proxy_pid) or 0)
    wanted = [("the hub's API", "127.0.0.1", hub.api_port),
              ("the room's service", "127.0.0.1", hub.room_port)]
    if not keeps:
        wanted += [("the hub's address", hub.ip, hub.port),
                   ("the proxy's API", "127.0.0.1", hub.proxy_api_port)]
    return [f"port {port} ({what}) is in use by another program" for what, ip, port in wanted
            if _taken(ip, port)]


def _taken(ip: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((ip, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def command(hub: Hub) -> list[str]:
    return [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(CONFIG)]


def start(hub: Hub, rebuild: bool = False, **popen) -> subprocess.Popen:
    """The hub's process (its own session), once its home is built; refuses what `problems`
    and `ports_taken` name. Call it within `held`."""
    found = problems(hub) or ports_taken(hub)
    if found:
        raise HubError("; ".join(found))
    if rebuild or not (hub.learner / "bin" / "python").exists():
        build(hub)
    write_configs(hub)
    commands_without_node(hub)
    private_folder(hub)
    profile.write(hub, instructors(), learners(hub.roster))
    env = {**os.environ, **hub.environment()}
    return subprocess.Popen(command(hub), env=env, cwd=hub.home, start_new_session=True,
                            stdin=subprocess.DEVNULL, **popen)


STOP_SECONDS = 60  # a normal stop takes a few seconds (its services' stop, the database)


class _Asked(Exception):
    """A signal asked the hub to stop."""


def _raise(signum: int, _frame) -> None:
    raise _Asked(signum)


def until_stopped(process: subprocess.Popen, said: Callable[[str], None],
                  seconds: float = STOP_SECONDS) -> int:
    """Wait for the hub's process; on SIGINT (Ctrl-C) or SIGTERM (`packlab hub stop`, systemd)
    ask it to stop, and end it if it has not stopped ``seconds`` later. Its exit code (1 when it
    had to be ended)."""
    # Both set here, not left to Python: as a shell's background job SIGINT comes in ignored.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _raise)
    try:
        return process.wait()
    except _Asked:
        pass
    for signum in (signal.SIGINT, signal.SIGTERM):  # asked again: it is stopping already
        signal.signal(signum, lambda *_: None)
    said("Stopping the hub (the learners' servers and the proxy keep running)…")
    process.terminate()
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    process.send_signal(signal.SIGUSR1)  # JupyterHub writes its threads' and tasks' stacks
    time.sleep(2)
    process.kill()
    process.wait()
    said(f"The hub had not stopped {seconds:.0f} s after it was asked to, so it was ended; what "
         "it was doing is at the end of its log (after \"Received signal SIGUSR1\"). The "
         "learners' servers and the proxy keep running.")
    return 1


def lock(course: Path) -> list[Path]:
    """Give the course folder to the instructors' group; no one else may read it. A file only
    its owner may open (first-passwords.csv, root's) stays so: those files are returned."""
    import grp

    from packlab.course.hub.layout import INSTRUCTORS

    gid = grp.getgrnam(INSTRUCTORS).gr_gid
    private = []
    for root, dirs, files in os.walk(course):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            if _owners_alone(path):
                private.append(Path(path))
                continue
            os.chown(path, -1, gid)
            mode = os.stat(path).st_mode
            extra = stat.S_ISGID if stat.S_ISDIR(mode) else 0
            os.chmod(path, (mode & 0o770) | 0o060 | extra | (0o010 if mode & 0o100 else 0))
    os.chown(course, -1, gid)
    os.chmod(course, 0o2770)
    return private


def _owners_alone(path: str) -> bool:
    mode = os.stat(path).st_mode
    return stat.S_ISREG(mode) and not mode & 0o077
