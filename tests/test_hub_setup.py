"""Setting up the class's hub: accounts from a roster (`packlab hub accounts`), the checks the
hub makes before it serves, and `make hub`'s command. The hub itself runs in
tests/test_hub_term.py."""

from __future__ import annotations

import configparser
import contextlib
import csv
import grp
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import as_user
import psutil
import pytest
from as_user import impossible
from browser import free_port
from markdown_it import MarkdownIt

from packlab.course.hub import accounts, layout, profile
from packlab.course.hub.layout import LEARNERS, Hub
from packlab.course.hub.serve import STOP_SECONDS, ports_taken, problems
from packlab.manifest import ROOT

PACKLAB = Path(sys.executable).with_name("packlab")


def test_accounts_from_a_roster_refuse_what_cannot_be_a_name(tmp_path):
    """Each valid id becomes an account with a home only it can read and a first password in a
    root-only file; an id that cannot be an account name is refused and named, the others are
    still made; a second run keeps the existing account and its password."""
    if os.geteuid() != 0:
        impossible("making accounts needs root")
    name = f"plt{secrets.token_hex(3)}x"
    roster = tmp_path / "roster.csv"
    roster.write_text(f"id,name,email\n{name},Ada,ada@example.org\n"
                      "Bad Name,Bo,bo@example.org\n--help,Cy,cy@example.org\n")
    passwords = tmp_path / "first-passwords.csv"
    command = [str(PACKLAB), "hub", "accounts", str(roster), "--passwords", str(passwords)]
    try:
        first = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert first.returncode == 1, first.stdout + first.stderr
        assert "'Bad Name' cannot be an account name" in first.stdout
        assert "'--help' cannot be an account name" in first.stdout
        entry = pwd.getpwnam(name)
        assert stat.S_IMODE(os.stat(entry.pw_dir).st_mode) == 0o700
        assert name in grp.getgrnam(LEARNERS).gr_mem
        assert stat.S_IMODE(passwords.stat().st_mode) == 0o600
        with passwords.open() as given:
            rows = list(csv.DictReader(given))
        assert [row["id"] for row in rows] == [name] and len(rows[0]["password"]) >= 12
        again = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert "1 already there" in again.stdout, again.stdout
        with passwords.open() as given:
            assert len(list(csv.DictReader(given))) == 1  # no new password for Ada
    finally:
        accounts.remove([name])
    with pytest.raises(KeyError):
        pwd.getpwnam(name)


def test_the_hub_refuses_a_course_every_account_can_read(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    course.chmod(0o755)
    found = " ".join(problems(Hub(home=Path("/srv/packlab-hub"), course=course,
                                  roster=tmp_path / "missing.csv")))
    assert "every account can read the course folder" in found
    assert f"packlab hub lock {course}" in found
    assert "no roster at" in found
    assert "under /tmp" not in found
    assert "under /tmp" in " ".join(problems(Hub(home=Path("/tmp/hub"), course=course,
                                                roster=tmp_path / "missing.csv")))
    course.chmod(0o2770)
    assert "course folder" not in " ".join(problems(Hub(home=tmp_path / "hub", course=course,
                                                       roster=tmp_path / "missing.csv")))


def test_make_hub_serves_the_hub_on_hub_port():
    said = subprocess.run(["make", "-n", "hub", "HUB_PORT=8123"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60).stdout
    assert "HUB_PORT=8123 .venv/bin/packlab hub serve" in said, said


def test_https_needs_a_certificate_and_its_key_both_there(tmp_path):
    """The guide's HTTPS settings: neither (plain HTTP) or both, each an existing file."""
    course = tmp_path / "course"
    course.mkdir(mode=0o2770)
    (course / "nbgrader_config.py").write_text("")
    cert, key = tmp_path / "hub.crt", tmp_path / "hub.key"

    def https(**given) -> str:
        hub = Hub(home=tmp_path / "hub", course=course, roster=tmp_path / "missing.csv", **given)
        return " ".join(problems(hub))

    assert "HTTPS needs" not in https() and "no certificate at" not in https()
    assert "needs both a certificate and its key" in https(ssl_cert=str(cert))
    said = https(ssl_cert=str(cert), ssl_key=str(key))
    assert f"no certificate at {cert}" in said and f"no key at {key}" in said
    cert.write_text("x")
    key.write_text("x")
    assert "no certificate at" not in https(ssl_cert=str(cert), ssl_key=str(key))
    assert "no key at" not in https(ssl_cert=str(cert), ssl_key=str(key))
    hub = Hub.from_environment(Hub(home=tmp_path, course=course, roster=course, ssl_cert=str(cert),
                                   ssl_key=str(key)).environment())
    assert (hub.ssl_cert, hub.ssl_key) == (str(cert), str(key))


def test_lock_leaves_a_file_only_its_owner_may_open_so(tmp_path):
    """`packlab hub lock`: the course's files go to the instructors' group, first-passwords.csv
    (mode 0600) stays its owner's alone and is named."""
    if os.geteuid() != 0:
        impossible("giving files to the instructors' group needs root")
    from packlab.course.hub.accounts import _group
    from packlab.course.hub.layout import INSTRUCTORS
    from packlab.course.hub.serve import lock

    _group(INSTRUCTORS)
    course = tmp_path / "course"
    course.mkdir()
    (course / "notes.md").write_text("x")
    passwords = course / "first-passwords.csv"
    passwords.touch(mode=0o600)
    assert lock(course) == [passwords]
    gid = grp.getgrnam(INSTRUCTORS).gr_gid
    assert os.stat(course / "notes.md").st_gid == gid
    assert stat.S_IMODE(os.stat(course / "notes.md").st_mode) & 0o060 == 0o060
    assert stat.S_IMODE(passwords.stat().st_mode) == 0o600 and passwords.stat().st_gid != gid


def test_the_guides_service_keeps_the_servers_and_restarts_on_failure(tmp_path):
    """docs/jupyterhub.md's systemd unit: `packlab hub serve` restarted when it fails, and a
    stop or restart that ends the hub's own process only (KillMode=process: the learners'
    servers are in its cgroup); systemd itself finds nothing wrong in it, for this checkout."""
    text = (ROOT / "docs" / "jupyterhub.md").read_text(encoding="utf-8")
    units = [t.content for t in MarkdownIt("commonmark").parse(text)
             if t.type == "fence" and t.info.strip() == "ini"]
    assert len(units) == 1
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read_string(units[0])
    service = unit["Service"]
    assert service["KillMode"] == "process" and service["Restart"] == "on-failure"
    assert service["ExecStart"].endswith("/.venv/bin/packlab hub serve")
    # systemd's own SIGKILL must not come before `packlab hub serve` has ended a stuck hub.
    assert int(service["TimeoutStopSec"]) > STOP_SECONDS + 10
    if not shutil.which("systemd-analyze"):
        impossible("systemd-analyze is not installed")
    here = tmp_path / "packlab-hub.service"
    here.write_text(units[0].replace("/srv/course", str(ROOT)))
    verified = subprocess.run(["systemd-analyze", "verify", str(here)], capture_output=True,
                              text=True, timeout=60)
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr


def test_the_hub_names_a_port_another_program_holds(tmp_path):
    """Another program on the hub's API port: named, instead of JupyterHub's EADDRINUSE
    traceback."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        hub = Hub(home=tmp_path, course=tmp_path, roster=tmp_path / "roster.csv",
                  ip="127.0.0.1", port=free_port(), api_port=port, proxy_api_port=free_port(),
                  room_port=free_port())
        assert ports_taken(hub) == [f"port {port} (the hub's API) is in use by another program"]
    assert ports_taken(hub) == []


# A login shell as /etc/profile runs the profiles (in the folder's order); then what it got.
LOGIN = '''for profile in "$@"; do . "$profile"; done
printf '%s\\n%s\\n' "$PATH" "${JUPYTER_CONFIG_PATH:-}"'''


@pytest.mark.xdist_group(as_user.GROUP)  # acts as the ordinary user, in turn
def test_two_hubs_on_one_machine_keep_their_own_login_profile(tmp_path):
    """Two hubs (two courses, each with its home and port) write a login profile each. A shell
    that a hub's server started (its JUPYTER_CONFIG_PATH) gets that hub's commands; another
    login shell (ssh) those of the first hub that admits the account, and no other's; root's is
    left alone. `packlab hub stop --everything` of one removes its own profile only."""
    if os.geteuid() != 0:
        impossible("writing /etc/profile.d needs root")
    uid, gid = as_user.ordinary_user()
    me = pwd.getpwuid(uid).pw_name
    hubs = [Hub(home=tmp_path / name, course=tmp_path, roster=tmp_path / "roster.csv",
                port=free_port(), api_port=free_port()) for name in "ab"]
    first, second = sorted(hubs, key=lambda hub: profile.path(hub).name)
    files = [profile.path(first), profile.path(second)]

    def login(server_of: Hub | None = None, as_root: bool = False) -> tuple[str, str]:
        started = {"JUPYTER_CONFIG_PATH": str(server_of.jupyter_config)} if server_of else {}
        who = {} if as_root else {"user": uid, "group": gid, "extra_groups": []}
        done = subprocess.run(["sh", "-c", LOGIN, "sh", *map(str, files)], capture_output=True,
                              text=True, timeout=60, env={"PATH": "/usr/bin:/bin", **started},
                              **who)
        assert done.returncode == 0, done.stderr
        path, config = done.stdout.splitlines()
        return path, config

    try:
        profile.write(first, ["someone"], ["someone-else"])
        profile.write(second, [], [me])
        assert login() == (f"{second.learner}/bin:/usr/bin:/bin", str(second.jupyter_config))
        assert login(as_root=True) == ("/usr/bin:/bin", "")

        profile.write(first, [me], [])  # both admit the account now: the first takes ssh
        assert login() == (f"{first.instructor}/bin:/usr/bin:/bin",
                           f"{first.instructor_config}:{first.jupyter_config}")
        assert login(server_of=second) == (f"{second.learner}/bin:/usr/bin:/bin",
                                           str(second.jupyter_config))
        assert [stat.S_IMODE(path.stat().st_mode) for path in files] == [0o644, 0o644]

        stopped = subprocess.run([str(PACKLAB), "hub", "stop", "--everything"],
                                 capture_output=True, text=True, timeout=120,
                                 env={**os.environ, **second.environment()})
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert f"the login profile {files[1]}" in " ".join(stopped.stdout.split())
        assert files[0].is_file() and not files[1].exists()
    finally:
        profile.remove(first)
        profile.remove(second)


def test_a_hubs_next_start_removes_its_older_profiles_only(tmp_path, monkeypatch):
    """The single packlab-hub.sh of earlier versions and a profile of the same hub on another
    port go when it writes its own; another hub's stay."""
    monkeypatch.setattr(profile, "FOLDER", tmp_path)
    ours = Hub(home=tmp_path / "ours", course=tmp_path, roster=tmp_path / "r.csv", port=8000)
    theirs = Hub(home=tmp_path / "theirs", course=tmp_path, roster=tmp_path / "r.csv", port=8001)
    profile.write(Hub(**{**vars(ours), "port": 8080}), ["ann"], [])
    profile.write(theirs, ["ann"], [])
    (tmp_path / profile.OLD).write_text(f'PATH={ours.instructor / "bin"}:"$PATH"\n')
    written = profile.write(ours, ["ann"], ["ada"])
    assert sorted(p.name for p in tmp_path.glob("*.sh")) == ["packlab-hub-8000.sh",
                                                             "packlab-hub-8001.sh"]
    assert profile.remove(ours) == [written] and profile.path(theirs).is_file()
    (tmp_path / profile.OLD).write_text(f'PATH={theirs.instructor / "bin"}:"$PATH"\n')
    profile.write(ours, ["ann"], [])
    assert (tmp_path / profile.OLD).is_file()  # another hub's


def test_learners_servers_find_every_system_command_but_node(tmp_path):
    """The learners' servers' PATH: the system's folders, each that holds Node.js replaced by
    links to its other commands (JupyterLab runs node at every start when it finds it), brought
    up to date in place at each start; a folder without node, and one seen twice, as they are."""
    usr, local = tmp_path / "usr-bin", tmp_path / "local-bin"
    for folder, commands in ((usr, ("ls", "node", "nodejs", "npm")), (local, ("git",))):
        folder.mkdir()
        for name in commands:
            (folder / name).write_text("#!/bin/sh\n")
            (folder / name).chmod(0o755)
    (tmp_path / "bin").symlink_to(usr)  # Debian's /bin is /usr/bin
    system = tuple(map(str, (local, usr, tmp_path / "bin", tmp_path / "none")))
    hub = Hub(home=tmp_path / "home", course=tmp_path, roster=tmp_path / "roster.csv")

    layout.commands_without_node(hub, system)
    path = layout.learner_path(hub, system)
    folders = path.split(os.pathsep)
    assert folders[:2] == [str(hub.learner / "bin"), str(local)]
    assert len(folders) == 3 and folders[2].startswith(str(hub.without_node))
    assert shutil.which("node", path=path) is None and shutil.which("nodejs", path=path) is None
    assert Path(shutil.which("ls", path=path)).resolve() == usr / "ls"
    assert shutil.which("git", path=path) == str(local / "git")

    (usr / "ls").unlink()
    (usr / "cat").write_text("#!/bin/sh\n")
    (usr / "cat").chmod(0o755)
    layout.commands_without_node(hub, system)
    assert sorted(os.listdir(folders[2])) == ["cat"]

    for name in ("node", "nodejs", "npm"):
        (usr / name).unlink()
    layout.commands_without_node(hub, system)
    assert layout.learner_path(hub, system).split(os.pathsep)[2] == str(usr)


def test_the_assignments_tab_claims_every_address_of_nbgraders_extensions():
    """A learner's server on the hub loads nbgrader's Assignments tab at its first request
    (packlab.course.assignments_tab): every address nbgrader's two extensions serve is one it
    claims, so that none answers 404 before the first use."""
    from importlib import import_module

    from packlab.course.assignments_tab import ADDRESSES, NBGRADER

    named_group = re.compile(r"\(\?P<\w+>([^|)]+)[^)]*\)")  # (?P<action>fetch|...) -> fetch
    routes = [pattern for module in NBGRADER
              for pattern, _ in import_module(f"{module}.handlers").default_handlers]
    assert len(routes) >= 5, routes
    for pattern in routes:
        address = named_group.sub(r"\1", pattern).lstrip("/")
        assert re.fullmatch(ADDRESSES, address), pattern
    assert not re.fullmatch(ADDRESSES, "api/contents") and not re.fullmatch(ADDRESSES, "lab")


@pytest.mark.xdist_group(as_user.GROUP)  # acts as the ordinary user, in turn
def test_each_servers_runtime_folder_is_its_own_and_short_enough_for_its_sockets(tmp_path):
    """A server's runtime folder (its kernels' connection files and unix sockets) belongs to its
    account alone, whatever stood there before, and leaves room for a kernel's socket name."""
    if os.geteuid() != 0:
        impossible("giving a folder to another account needs root")
    uid, gid = as_user.ordinary_user()
    root = tmp_path / "run"
    folder = layout.runtime_folder(uid, gid, root)
    folder.chmod(0o777)  # as if someone had opened it
    assert layout.runtime_folder(uid, gid, root) == folder == root / str(uid)
    assert (folder.stat().st_uid, stat.S_IMODE(folder.stat().st_mode)) == (uid, 0o700)
    kernel = f"kernel-{'f' * 8}-{'f' * 4}-{'f' * 4}-{'f' * 4}-{'f' * 12}-ipc-5"
    assert len(str(layout.RUNTIME / str(2**32 - 2) / kernel).encode()) <= 107


# A stand-in for JupyterHub: stops on SIGTERM (exit code 0, as JupyterHub does), or ignores it;
# on SIGUSR1 it writes what JupyterHub writes there. `packlab hub serve`'s wait for it, in a
# process started as a shell's background job (which starts with SIGINT ignored), reports its
# exit code.
STAND_IN = """
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN if sys.argv[1] == "hangs" else lambda *_: sys.exit())
signal.signal(signal.SIGUSR1, lambda *_: print("Received signal SIGUSR1...", flush=True))
print("serving", flush=True)
while True:
    time.sleep(1)
"""
WAITER = """
import subprocess, sys
from packlab.course.hub.serve import until_stopped
hub = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]])
sys.exit(until_stopped(hub, lambda line: print(line, flush=True), seconds=2))
"""


def _catches(pid: int, signum: int) -> bool:
    """Has process ``pid`` a handler for ``signum`` (/proc's SigCgt)?"""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.MULTILINE).group(1), 16)
    return bool(caught >> (signum - 1) & 1)


@pytest.mark.parametrize("hub", ["stops", "hangs"])
def test_a_stop_waits_for_the_hub_and_ends_one_that_hangs(hub):
    """Ctrl-C stops `packlab hub serve` even as a background job: it asks the hub to stop and
    waits; a hub still there after the wait is ended, its stacks asked for, and the instructor
    told so in plain words, with exit code 1."""
    shell = subprocess.Popen(["bash", "-c", '"$0" -c "$1" "$2" "$3" & wait $!', sys.executable,
                              WAITER, STAND_IN, hub], stdout=subprocess.PIPE, text=True)
    try:
        assert shell.stdout.readline() == "serving\n"
        waiter = next(p for p in psutil.Process(shell.pid).children()
                      if "until_stopped" in " ".join(p.cmdline()))
        for _ in range(200):
            if _catches(waiter.pid, signal.SIGINT):
                break
            time.sleep(0.05)
        else:
            pytest.fail("`packlab hub serve`'s wait, a background job, does not catch Ctrl-C")
        waiter.send_signal(signal.SIGINT)
        said, _ = shell.communicate(timeout=30)
        code = shell.returncode
    finally:
        with contextlib.suppress(psutil.Error):
            for process in [*psutil.Process(shell.pid).children(recursive=True)]:
                process.kill()
        shell.kill()
        shell.wait()
    assert "Stopping the hub" in said
    if hub == "stops":
        assert code == 0 and "ended" not in said
    else:
        assert code == 1, said
        assert "Received signal SIGUSR1" in said
        assert "had not stopped 2 s after it was asked to, so it was ended" in said
