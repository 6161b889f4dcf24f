"""Where the hub keeps its state, and the two Python environments its users' servers run.

The hub's home (``PACKLAB_HUB_HOME``, default /srv/packlab-hub) holds, readable by every account:

- ``student/``: the student install (`packlab student-build`), never the instructor's checkout;
- ``runtime/``: a copy of the third-party packages of the course's venv (JupyterLab, nbgrader,
  the widgets...), without packlab itself, so that learners need no access to the checkout;
- ``learner/``: the learners' environment: a venv of a Python every account may run, with the
  runtime on its path and the student install installed in it (`pip install -e`);
- ``instructor/``: the instructors' environment: the same runtime, with the course folder itself
  installed (editable: the grader, its hidden tests, the instructor's commands), which only the
  instructors' group can read;
- ``without-node/``: the learners' servers' system commands, all but Node.js's (`NODE`);
- ``exchange/``: nbgrader's exchange, mode 1777 as nbgrader's docs ask (it makes each course's
  inbound folder write-only for students itself);
- ``etc/jupyter/nbgrader_config.py``: the exchange and the course id, read by every server;
  ``etc/jupyter/jupyter_server_config.py``: every server's kernels on unix sockets (RUNTIME);
- ``private/``: root's alone (mode 0700): the hub's database and the room's (names, pass or
  fail, misconceptions);
- the hub's cookie secret, pid files and lock, and the proxy's and root's tokens
  (`proxy-token`, `admin-token`: root's alone).

Outside it, the hub's login profile (`packlab.course.hub.profile`) gives login shells
(JupyterLab's terminal, ssh, ``su -``) the commands and settings each account's server has.
"""

from __future__ import annotations

import compileall
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from packlab.manifest import ROOT

INSTRUCTORS = "packlab-instructors"  # the system group whose members get formgrader and the course
LEARNERS = "packlab-learners"
CONFIG = ROOT / "hub" / "jupyterhub_config.py"
PROXY = ROOT / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
PURELIB = Path(sysconfig.get_paths()["purelib"])  # the course venv's site-packages
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
# Left out of the learners' runtime: the instructor's editable packlab points into the checkout;
# rfc3987_syntax, an optional extra of jsonschema that builds a grammar whenever it is imported
# (about 1 CPU-second of every server's start; jsonschema checks "iri" formats with it, which no
# schema of the servers uses); likewise jsonschema's other optional format checkers (durations
# with arrow, colours, host names, URIs and their templates, JSON pointers, dates), imported by
# every server, used by none (a twentieth of a CPU-second a start). The compiled modules
# (__pycache__) are kept: no account may write them there, so without them every server would
# compile its imports again at each start.
FORMAT_CHECKERS = ("rfc3987_syntax*", "isoduration*", "arrow", "arrow-*", "webcolors*", "fqdn*",
                   "uri_template*", "jsonpointer*", "rfc3986_validator*", "rfc3339_validator*")
NOT_IN_RUNTIME = ("__editable__*", "packlab-*", *FORMAT_CHECKERS)
WORKSPACE = "packlab"  # a learner's own copies: ~/packlab
# The system's folders of every server's PATH, after its environment's commands.
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
# Node.js's commands: on the machine for the hub's proxy (and `make hub`'s npm) only. Kept off
# the learners' servers' PATH (`learner_path`): whenever node is on PATH, JupyterLab runs
# `node yarn.js config --json` as it is imported, and again when a page lists its extensions,
# a third of a CPU-second each time, for an npm registry address that only building JupyterLab
# uses, which no learner does.
NODE = ("node", "nodejs", "npm", "npx", "corepack")
# Each server's Jupyter runtime folder, one per account (its own, mode 700): its kernels'
# connection files and, since they talk over unix sockets rather than TCP ports (`write_configs`),
# the sockets themselves. Thirty servers starting kernels at once on TCP could pick the same free
# port (a kernel then dies with "Address already in use"); a socket is named by its kernel's id.
# The folder is short because a socket's path may hold at most 107 bytes: in a home's
# ~/.local/share/jupyter/runtime, a user name of more than 20 characters would not fit.
RUNTIME = Path("/run/packlab-jupyter")
# The instructors' collect: a hand-in counts only for the account that wrote it.
COLLECT = "autograder.glue.exchange.OwnedCollect"


class HubError(Exception):
    """The hub cannot be set up as asked; the message says why in plain words."""


@dataclass(frozen=True)
class Hub:
    """One class's hub: its home, the instructors' course folder, the roster and its port."""

    home: Path
    course: Path
    roster: Path
    port: int = 8000
    ip: str = "0.0.0.0"
    api_port: int = 8081  # the hub's own API, behind the proxy
    proxy_api_port: int = 8001
    room_port: int = 8002  # the room's service (its live chart), behind the proxy
    idle_timeout: int = 3600  # seconds of inactivity before the culler stops a server
    ssl_cert: str = ""  # HTTPS: the certificate (chain) and its key, both files, or neither
    ssl_key: str = ""

    @property
    def exchange(self) -> Path:
        return self.home / "exchange"

    @property
    def learner(self) -> Path:
        return self.home / "learner"

    @property
    def instructor(self) -> Path:
        return self.home / "instructor"

    @property
    def student(self) -> Path:
        return self.home / "student"

    @property
    def runtime(self) -> Path:
        return self.home / "runtime"

    @property
    def without_node(self) -> Path:
        """The learners' system commands: for each folder of SYSTEM_PATH that holds Node.js,
        links to all its other commands (`commands_without_node`)."""
        return self.home / "without-node"

    @property
    def private(self) -> Path:
        """Root's alone: the hub's and the room's databases."""
        return self.home / "private"

    @property
    def jupyter_config(self) -> Path:
        return self.home / "etc" / "jupyter"

    @property
    def instructor_config(self) -> Path:
        """Read by the instructors' servers before jupyter_config: the course folder's place."""
        return self.home / "etc" / "jupyter-instructors"

    @property
    def lock(self) -> Path:
        """Held by `packlab hub serve` while it runs (its pid inside)."""
        return self.home / "hub.lock"

    @property
    def hub_pid(self) -> Path:
        return self.home / "jupyterhub.pid"

    @property
    def proxy_pid(self) -> Path:
        return self.home / "proxy.pid"

    @property
    def proxy_token(self) -> Path:
        """The proxy's API token (root's alone): the next hub keeps the running proxy with it."""
        return self.home / "proxy-token"

    @property
    def admin_token(self) -> Path:
        """The token of root's commands that run the class (`packlab hub warm`), root's alone."""
        return self.home / "admin-token"

    def environment(self) -> dict[str, str]:
        """The settings hub/jupyterhub_config.py reads."""
        return {"PACKLAB_HUB_HOME": str(self.home), "PACKLAB_HUB_COURSE": str(self.course),
                "PACKLAB_HUB_ROSTER": str(self.roster), "HUB_PORT": str(self.port),
                "PACKLAB_HUB_IP": self.ip, "PACKLAB_HUB_API_PORT": str(self.api_port),
                "PACKLAB_HUB_PROXY_API_PORT": str(self.proxy_api_port),
                "PACKLAB_HUB_ROOM_PORT": str(self.room_port),
                "PACKLAB_HUB_IDLE_TIMEOUT": str(self.idle_timeout),
                "PACKLAB_HUB_SSL_CERT": self.ssl_cert, "PACKLAB_HUB_SSL_KEY": self.ssl_key}

    @classmethod
    def from_environment(cls, env: dict[str, str] | None = None) -> Hub:
        env = os.environ if env is None else env
        return cls(home=Path(env.get("PACKLAB_HUB_HOME", "/srv/packlab-hub")),
                   course=Path(env.get("PACKLAB_HUB_COURSE", str(ROOT))),
                   roster=Path(env.get("PACKLAB_HUB_ROSTER", str(ROOT / "roster.csv"))),
                   port=int(env.get("HUB_PORT", "8000")),
                   ip=env.get("PACKLAB_HUB_IP", "0.0.0.0"),
                   api_port=int(env.get("PACKLAB_HUB_API_PORT", "8081")),
                   proxy_api_port=int(env.get("PACKLAB_HUB_PROXY_API_PORT", "8001")),
                   room_port=int(env.get("PACKLAB_HUB_ROOM_PORT", "8002")),
                   idle_timeout=int(env.get("PACKLAB_HUB_IDLE_TIMEOUT", "3600")),
                   ssl_cert=env.get("PACKLAB_HUB_SSL_CERT", ""),
                   ssl_key=env.get("PACKLAB_HUB_SSL_KEY", ""))


def shared_python(hub: Hub) -> Path:
    """This very Python (the course venv's base, same version to the patch level), where every
    account may run it: itself when it may, else a copy in the hub's home (pyenv's lives under
    /root, which no one else can enter; another build of 3.11 may differ: Debian's 3.11.2
    cannot parse what nbconvert's feedback pages need)."""
    base = Path(sys._base_executable).resolve()
    if _everyone_can_run(base):
        return base
    copy = hub.home / "python"
    if not (copy / "bin" / base.name).exists():
        prefix = Path(sys.base_prefix)
        (copy / "bin").mkdir(parents=True, exist_ok=True)
        _link_or_copy(str(base), str(copy / "bin" / base.name))
        shutil.copytree(prefix / "lib" / VERSION, copy / "lib" / VERSION, symlinks=True,
                        copy_function=_link_or_copy, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("site-packages", "test"))
        for library in (prefix / "lib").glob("libpython*"):
            _link_or_copy(str(library), str(copy / "lib" / library.name))
        _readable(copy)
    return copy / "bin" / base.name


def python_environment(hub: Hub) -> dict[str, str]:
    """What the shared Python needs in its environment: its own libpython, when it is a copy."""
    if _everyone_can_run(Path(sys._base_executable).resolve()):
        return {}
    return {"LD_LIBRARY_PATH": str(hub.home / "python" / "lib")}


def _everyone_can_run(path: Path) -> bool:
    if not path.stat().st_mode & stat.S_IXOTH:
        return False
    return all(parent.stat().st_mode & stat.S_IXOTH for parent in path.parents)


def build(hub: Hub) -> None:
    """Write the hub's home: student install, runtime, both environments, exchange (the
    servers' settings: `write_configs`)."""
    for folder in (hub.home, hub.jupyter_config.parent, hub.jupyter_config,
                   hub.instructor_config):
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o755)
    _build_student(hub.student)
    _copy_runtime(hub.runtime)
    _learner_env(hub)
    _instructor_env(hub)
    hub.exchange.mkdir(exist_ok=True)
    hub.exchange.chmod(0o1777)  # nbgrader: "chmod ugo+rw"; sticky, so no one deletes another's


def write_configs(hub: Hub) -> None:
    """The servers' nbgrader and Jupyter settings (written at each start: a hub of an older
    packlab gets today's, the hand-ins' collect among them)."""
    (hub.jupyter_config / "nbgrader_config.py").write_text(
        "# Every server of the hub: nbgrader's shared exchange and the course (packlab hub).\n"
        "c = get_config()  # noqa: F821\n"
        f"c.Exchange.root = {str(hub.exchange)!r}\n"
        "c.CourseDirectory.course_id = 'packlab'\n")
    (hub.jupyter_config / "jupyter_server_config.py").write_text(
        "# Every server of the hub: its kernels on unix sockets in its runtime folder\n"
        "# (packlab.course.hub.layout.RUNTIME), never on TCP ports two servers could both pick.\n"
        "c = get_config()  # noqa: F821\n"
        "c.KernelManager.transport = 'ipc'\n")
    # nbgrader's course folder is its working folder, unless named: a server starts in $HOME.
    (hub.instructor_config / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(hub.course)!r}\n"
        f"c.CourseDirectory.db_url = {'sqlite:///' + str(hub.course / 'gradebook.db')!r}\n"
        f"c.ExchangeFactory.collect = {COLLECT!r}\n")


def runtime_folder(uid: int, gid: int, root: Path = RUNTIME) -> Path:
    """The server's runtime folder of account ``uid`` (see RUNTIME), made its own, mode 700."""
    root.mkdir(mode=0o755, exist_ok=True)
    folder = root / str(uid)
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chown(folder, uid, gid)
    folder.chmod(0o700)
    return folder


def commands_without_node(hub: Hub, system: tuple[str, ...] = SYSTEM_PATH) -> None:
    """`Hub.without_node`, brought up to date at each start (the system's commands come and go
    with its packages) in place: the running servers' PATH names it."""
    for folder in _folders(system):
        links = hub.without_node / folder.relative_to("/")
        if not any((folder / name).exists() for name in NODE):
            shutil.rmtree(links, ignore_errors=True)
            continue
        links.mkdir(parents=True, exist_ok=True)
        wanted = {command.name for command in folder.iterdir()} - set(NODE)
        for link in links.iterdir():
            if link.name not in wanted:
                link.unlink()
        for name in wanted - {link.name for link in links.iterdir()}:
            (links / name).symlink_to(folder / name)
    if hub.without_node.exists():
        _readable(hub.without_node)


def learner_path(hub: Hub, system: tuple[str, ...] = SYSTEM_PATH) -> str:
    """A learner's server's PATH: their environment's commands, then the system's, without
    Node.js (see NODE)."""
    chosen = [hub.learner / "bin"]
    for folder in _folders(system):
        links = hub.without_node / folder.relative_to("/")
        chosen.append(links if links.is_dir() else folder)
    return os.pathsep.join(map(str, chosen))


def _folders(system: tuple[str, ...]) -> list[Path]:
    """The folders of ``system`` that exist, each once (on Debian, /bin is /usr/bin)."""
    seen: dict[Path, Path] = {}
    for name in system:
        folder = Path(name)
        if folder.is_dir():
            seen.setdefault(folder.resolve(), folder)
    return list(seen.values())


def private_folder(hub: Hub) -> None:
    """The hub's private folder (root's alone), with the databases an older hub kept in its
    home moved in."""
    hub.private.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chown(hub.private, 0, 0)
    hub.private.chmod(0o700)
    for name in ("jupyterhub.sqlite", "room.sqlite", "room.sqlite-wal", "room.sqlite-shm"):
        old = hub.home / name
        if old.exists() and not (hub.private / name).exists():
            old.rename(hub.private / name)


def _build_student(folder: Path) -> None:
    from packlab.course import student

    if folder.exists():
        shutil.rmtree(folder)
    student.build(folder)
    compileall.compile_dir(folder, quiet=1)  # compiled once here, not by each learner's server
    _readable(folder)


def _copy_runtime(folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(PURELIB, folder, symlinks=True, copy_function=_link_or_copy,
                    ignore=shutil.ignore_patterns(*NOT_IN_RUNTIME))
    _readable(folder)


def _link_or_copy(source: str, target: str) -> None:
    """A hard link where the two folders share a file system (the runtime is ~1 GB), else a
    copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _venv(hub: Hub, folder: Path, site_lines: list[str]) -> Path:
    """A venv of the shared Python with ``site_lines`` as its packlab-hub.pth; its site dir."""
    if folder.exists():
        shutil.rmtree(folder)
    subprocess.run([str(shared_python(hub)), "-m", "venv", "--without-pip", str(folder)],
                   check=True, env={**os.environ, **python_environment(hub)})
    site = folder / "lib" / VERSION / "site-packages"
    (site / "packlab-hub.pth").write_text("\n".join(site_lines) + "\n")
    return site


def _learner_env(hub: Hub) -> None:
    _environment(hub.learner, hub, hub.student)
    # The kernel's notebook metadata, asked once here instead of at every server's start
    # (packlab.course.workspace.KERNEL_METADATA), in an account's clean environment.
    clean = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8",
             **python_environment(hub)}
    subprocess.run([str(hub.learner / "bin" / "python"), "-c",
                    "from packlab.course.workspace import save_kernel_metadata as save; save()"],
                   check=True, capture_output=True, env=clean)
    _readable(hub.learner / "share")


def _instructor_env(hub: Hub) -> None:
    _environment(hub.instructor, hub, hub.course)


def _environment(folder: Path, hub: Hub, install: Path) -> None:
    """A venv of the shared Python: the runtime on its path, ``install`` installed editable
    (the student install, or the instructors' course folder), Jupyter's data and the course
    venv's commands."""
    _venv(hub, folder, [str(hub.runtime)])  # a plain path: the runtime's .pth files stay inert
    subprocess.run([sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python"),
                    "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                    "--disable-pip-version-check", "-e", str(install)],
                   check=True, capture_output=True, env={**os.environ, **python_environment(hub)})
    for data in ("share", "etc"):
        shutil.copytree(Path(sys.prefix) / data / "jupyter", folder / data / "jupyter",
                        symlinks=True, dirs_exist_ok=True, copy_function=_link_or_copy)
    _scripts(folder, skip=("packlab",))  # pip wrote the install's own `packlab`
    _readable(folder)


def _scripts(env: Path, skip: tuple[str, ...] = ()) -> None:
    """The course venv's console scripts (jupyter, nbgrader, jupyterhub-singleuser, packlab...),
    run by ``env``'s Python instead of the course venv's."""
    own = f"#!{Path(sys.executable).parent / 'python'}"
    for script in Path(sys.executable).parent.iterdir():
        if script.name in skip or not script.is_file() or (env / "bin" / script.name).exists():
            continue
        try:
            lines = script.read_text().splitlines(keepends=True)
        except (UnicodeDecodeError, OSError):
            continue
        if lines and lines[0].strip() in (own, f"{own}3", f"{own}{sys.version_info.major}."
                                          f"{sys.version_info.minor}"):
            target = env / "bin" / script.name
            target.write_text(f"#!{env / 'bin' / 'python'}\n" + "".join(lines[1:]))
            target.chmod(0o755)


def _readable(folder: Path) -> None:
    """Every account may read ``folder`` (and run what is runnable in it), none may change it.
    A file whose mode is right already is left alone (the runtime's are links to the venv's)."""
    def fix(path: str) -> None:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        runnable = 0o111 if mode & stat.S_IXUSR else 0
        wanted = (mode | 0o444 | runnable) & ~0o022
        if wanted != mode:
            os.chmod(path, wanted)

    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                fix(path)
    fix(str(folder))
