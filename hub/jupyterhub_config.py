"""The class's JupyterHub (`make hub`): PAM logins for the roster's accounts, each server run as
its own account, learners in the student install at the course's start page, instructors in the
course folder with formgrader, nbgrader's shared exchange, and an idle culler,
and the room's live chart of the learners' checks (packlab.course.room, book/presenters.md).

Its settings come from the environment that `packlab hub serve` sets (packlab.course.hub.layout.
Hub.environment): the hub's home, the course folder, the roster, the port.
"""

import grp
import os
import pwd
import signal
import sys

from packlab.course.hub.accounts import instructors, learners
from packlab.course.hub.layout import (
    INSTRUCTORS,
    PROXY,
    WORKSPACE,
    Hub,
    learner_path,
    python_environment,
    runtime_folder,
)
from packlab.course.hub.proxy import LastingProxy
from packlab.course.hub.proxy import token as proxy_token
from packlab.course.hub.servers import admin_token
from packlab.course.room.hub import configure as configure_room
from packlab.course.workspace import START

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file
hub = Hub.from_environment()

# `make hub` run as a background job (or under nohup) starts with SIGINT ignored, and an ignored
# signal stays ignored in every process started after: the services and the learners' servers,
# which the hub stops with SIGINT first, would each wait out their spawner's interrupt_timeout.
# A handler is reset at exec; JupyterHub puts its own in place once it has started.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

c.JupyterHub.bind_url = f"http://{hub.ip}:{hub.port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = hub.api_port
c.ConfigurableHTTPProxy.command = [str(PROXY)]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{hub.proxy_api_port}"
c.ConfigurableHTTPProxy.pid_file = str(hub.home / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{hub.private / 'jupyterhub.sqlite'}"  # root's alone
c.JupyterHub.cookie_secret_file = str(hub.home / "jupyterhub_cookie_secret")

# HTTPS, when a certificate and its key are named (PACKLAB_HUB_SSL_CERT, PACKLAB_HUB_SSL_KEY):
# the proxy serves them on HUB_PORT; the hub's own ports stay on this machine's loopback.
if hub.ssl_cert:
    c.JupyterHub.bind_url = f"https://{hub.ip}:{hub.port}"
    c.JupyterHub.ssl_cert = hub.ssl_cert
    c.JupyterHub.ssl_key = hub.ssl_key

# Who may log in: the roster's learners and the instructors' group, with their system password.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set(learners(hub.roster)) | set(instructors())
c.PAMAuthenticator.open_sessions = False  # no login session per server (no systemd-logind here)
c.JupyterHub.load_groups = {"instructors": {"users": instructors()}}

# Each server runs as its own account (LocalProcessSpawner, the hub being root).
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120


def _is_instructor(name: str) -> bool:
    try:
        return name in grp.getgrnam(INSTRUCTORS).gr_mem
    except KeyError:
        return False


def _role(spawner) -> None:
    """Learners: the student install's `packlab lab` in ~/packlab, opening at START.
    Instructors: the course folder, with formgrader, as their own account."""
    name = spawner.user.name
    account = pwd.getpwnam(name)
    home = account.pw_dir
    env = hub.instructor if _is_instructor(name) else hub.learner
    spawner.environment = {
        **spawner.environment,  # the room's address (configure_room below)
        "PATH": f"{env / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "VIRTUAL_ENV": str(env),
        "JUPYTER_CONFIG_PATH": str(hub.jupyter_config),  # the exchange and the course id
        "JUPYTER_RUNTIME_DIR": str(runtime_folder(account.pw_uid, account.pw_gid)),
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        **python_environment(hub),
    }
    if _is_instructor(name):
        # umask 007: what one instructor writes in the course folder the others may change.
        # formgrader needs the course folder as the server's root, named before it loads.
        spawner.cmd = ["/bin/sh", "-c", f'umask 007 && cd "{hub.course}" && exec "$0" "$@"',
                       str(env / "bin" / "jupyterhub-singleuser"),
                       f"--ServerApp.root_dir={hub.course}"]
        spawner.notebook_dir = str(hub.course)
        spawner.default_url = "/lab"
        spawner.environment["JUPYTER_CONFIG_PATH"] = f"{hub.instructor_config}:{hub.jupyter_config}"
    else:
        spawner.cmd = [str(env / "bin" / "packlab"), "lab"]
        spawner.environment["PATH"] = learner_path(hub)  # no Node.js: see layout.NODE
        spawner.notebook_dir = f"{home}/{WORKSPACE}"
        spawner.default_url = f"/lab/tree/{START}"
        spawner.environment["PACKLAB_WORKSPACE"] = f"{home}/{WORKSPACE}"


c.Spawner.pre_spawn_hook = _role

# Stop servers idle for an hour (the learners' files stay in their homes).
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={hub.idle_timeout}", "--cull-every=60"],
}]

# A token for root's commands that run the class (`packlab hub warm`, the tests, the benchmark):
# PACKLAB_HUB_ADMIN_TOKEN, else one kept in the hub's home that only root can read.
c.JupyterHub.services.append({"name": "packlab-admin", "api_token": admin_token(hub)})
c.JupyterHub.load_roles.append({
    "name": "packlab-admin",
    "scopes": ["admin:users", "admin:servers", "list:users", "read:users", "list:services",
               "read:services", "access:servers", "access:services!service=room"],
    "services": ["packlab-admin"],
})

# The room: every learner's check counted on a live chart that the instructors open (names hidden
# until asked for); learners see that it is on and can opt out with `packlab room off`.
c.JupyterHub.load_groups["learners"] = {"users": sorted(learners(hub.roster))}
configure_room(c, db=hub.private / "room.sqlite", port=hub.room_port, presenters="instructors")


# The class survives the hub (issue 35.2): stopping, restarting or upgrading the hub leaves every
# server, kernel and open tab running. The hub leaves the servers and the proxy running when it
# stops and finds them again when it starts: LocalProcessSpawner keeps each server's pid in the
# database, LastingProxy keeps the last hub's proxy and its routes (its token is kept in the
# hub's home). A crashed server is seen within 10 s. Until then the proxy's page for it (hub/
# templates/503.html) sends the learner to the spawn page; after, the hub's own "not running"
# page does, by itself (implicit_spawn_seconds: never a page that waits for a click), and the
# server starts again. `packlab hub stop --everything` ends all.
c.JupyterHub.cleanup_servers = False
c.JupyterHub.cleanup_proxy = False
c.JupyterHub.proxy_class = LastingProxy
c.ConfigurableHTTPProxy.auth_token = proxy_token(hub.proxy_token)
c.JupyterHub.pid_file = str(hub.hub_pid)
c.Spawner.poll_interval = 10
c.JupyterHub.implicit_spawn_seconds = 2
c.JupyterHub.template_paths = [os.path.join(os.path.dirname(__file__), "templates")]
