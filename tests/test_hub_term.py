"""The whole term through the class's JupyterHub (`make hub`), in a real Chromium. One hub for the
module (tests/class_hub.py: real accounts, PAM logins, each server run as its own account): a
learner logs in and lands on the course's start page; the instructor generates and releases
exercise 02 in formgrader; the learner fetches it in the Assignments tab, answers, runs its checks
and submits; another learner forges a later hand-in in the first one's name; the instructor
collects in formgrader (the forgery set aside, loudly), then with nbgrader's own collect (which
takes the forgery), grades with `packlab grade` in a terminal of their JupyterLab (sandboxed: the
forgery set aside, the learner's own graded, a hand-in no collect can read named), sees the
learner's own score in formgrader and releases feedback;
the learner fetches it and reads the score. All over HTTPS, with a self-signed certificate. Then,
as real processes of the accounts: no other learner's work, no solutions, hidden tests or course
folder can be read; the hub's and the room's databases and the first passwords are root's alone;
login shells (ssh, `su -`) find the course's commands. Mid-class, the hub is stopped and served
again (a second `packlab hub serve` refused meanwhile) with the learners' servers, kernels and
proxy running on; a learner whose server crashed is brought back by the page they reload. The hub's
fixture fails if any process of the class outlives its end.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import psutil
import pytest
import websocket
from browser import chromium, chromium_process, require_browser, run_all_cells, screenshot_path
from class_hub import ClassHub, class_hub

from packlab.course.hub.layout import RUNTIME
from packlab.manifest import ROOT, load

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub")]

EXERCISE = load().exercise("02")
ASSIGNMENT = EXERCISE.name
SPAWN_MS = 180_000  # a server's first start on a busy machine


@pytest.fixture(scope="module")
def hub():
    require_browser()  # before paying for a hub
    with class_hub(learners=2) as running:
        yield running


def log_in(context, hub: ClassHub, person) -> object:
    """The hub's login page, as a person types it; returns the page once their JupyterLab is up."""
    page = context.new_page()
    page.goto(f"{hub.base}/hub/login")
    page.get_by_label("Username").fill(person.name)
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(rf"/user/{person.name}/lab"), timeout=SPAWN_MS)
    return page


def formgrader(page, hub: ClassHub, action: str) -> str:
    """Click ``action`` (a cell class of formgrader's assignment table) on the exercise's row;
    the message formgrader shows, once closed."""
    page.goto(f"{hub.base}/user/{hub.instructor.name}/formgrader/manage_assignments")
    row = page.locator("#main-table tr", has=page.locator("td.name", has_text=ASSIGNMENT))
    row.locator(f"td.{action} a").click()
    modal = page.locator(".modal.in")
    modal.wait_for(timeout=SPAWN_MS)
    said = modal.inner_text()
    modal.locator(".modal-footer button").click()
    modal.wait_for(state="detached")
    return said


def in_terminal(page, person, command: str, seconds: float = 600) -> tuple[int, str]:
    """``command`` typed in a new terminal of ``person``'s JupyterLab (the server's own: a login
    shell, as the Terminal tile opens it), from ``page`` at their server; its exit status and
    what the terminal showed."""
    shown = page.evaluate(TERMINAL, [person.name, command, seconds])
    ended = re.search(r"TERMINAL-DONE (\d+)", shown)
    assert ended, f"{command!r} did not end in {seconds} s:\n{shown[-4000:]}"
    return int(ended.group(1)), shown


# A terminal through the server's own API and websocket, as JupyterLab's Terminal opens one.
TERMINAL = """async ([user, command, seconds]) => {
  const xsrf = decodeURIComponent((document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || "");
  const base = `/user/${user}`;
  const made = await fetch(`${base}/api/terminals`,
                           {method: "POST", headers: {"X-XSRFToken": xsrf}});
  if (!made.ok) return `no terminal: ${made.status} ${await made.text()}`;
  const {name} = await made.json();
  const socket = new WebSocket(`wss://${location.host}${base}/terminals/websocket/${name}`);
  const shown = await new Promise(done => {
    let text = "";
    socket.onmessage = event => {
      const [kind, data] = JSON.parse(event.data);
      if (kind === "stdout") {
        text += data;
        if (/TERMINAL-DONE \\d+/.test(text)) done(text);
      }
    };
    socket.onopen = () => socket.send(JSON.stringify(
      ["stdin", command + "; echo TERMINAL-DON''E $?\\r"]));
    setTimeout(() => done(text), seconds * 1000);
  });
  socket.close();
  await fetch(`${base}/api/terminals/${name}`, {method: "DELETE", headers: {"X-XSRFToken": xsrf}});
  return shown;
}"""


def forge(hub: ClassHub, forger, victim, time_part: str = "") -> str:
    """``forger``'s account writes a hand-in named for ``victim``, an hour later than now: the
    released notebook, unanswered, as nbgrader's submit lays it out; ``time_part``: what its
    name says instead of the time. Its folder's name."""
    made = as_account(forger.name, FORGE.format(
        exchange=hub.home / "exchange" / "packlab", victim=victim.name, assignment=ASSIGNMENT,
        time_part=time_part))
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)


NBGRADERS_COLLECT = "nbgrader.exchange.default.collect.ExchangeCollect"  # nbgrader's own
HOSTILE_TIME = "[bold red]<i>\nx[link=y]"  # markup, HTML and a newline: a folder's name holds it

FORGE = """
import datetime, json, os, shutil
when = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime(
    "%Y-%m-%d %H:%M:%S.%f UTC")
name = "{victim}+{assignment}+" + ({time_part!r} or when) + "+" + os.urandom(4).hex()
folder = os.path.join("{exchange}", "inbound", name)
os.mkdir(folder)
shutil.copy("{exchange}/outbound/{assignment}/{assignment}.ipynb", folder)
open(os.path.join(folder, "timestamp.txt"), "w").write(when)
for path in (folder, *[os.path.join(folder, f) for f in os.listdir(folder)]):
    os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
print(json.dumps(name))
"""


def assignments_tab(page):
    """nbgrader's Assignments tab (Nbgrader ▸ Assignment List) in the learner's JupyterLab."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Nbgrader$")).click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    return page.locator("#nbgrader-assignment-list, .nbgrader-AssignmentList, "
                        "[id*=assignment]").first


def the_answer() -> str:
    """The reference answer of the exercise's answer cell, without nbgrader's markers."""
    for cell in nbformat.read(EXERCISE.source, as_version=4).cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            return "\n".join(line for line in cell.source.splitlines()
                             if "### BEGIN SOLUTION" not in line
                             and "### END SOLUTION" not in line)
    raise AssertionError("no answer cell")


def as_account(name: str, code: str, hub: ClassHub | None = None) -> subprocess.CompletedProcess:
    """Python ``code`` run by a real process of account ``name`` (its own uid, groups, home),
    with the hub's Python reachable when ``hub`` is given."""
    entry = pwd.getpwnam(name)
    shared = {"LD_LIBRARY_PATH": str(hub.home / "python" / "lib")} if hub else {}
    return subprocess.run(["/usr/bin/python3", "-c", code], user=entry.pw_uid,
                          group=entry.pw_gid, extra_groups=os.getgrouplist(name, entry.pw_gid),
                          cwd=entry.pw_dir, capture_output=True, text=True, timeout=300,
                          env={"HOME": entry.pw_dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                               **shared})


def test_the_hub_answers_and_runs_its_idle_culler(hub):
    """DESIGN.md's interface: /hub/login and the REST API answer; the culler is a hub service."""
    import urllib.request

    assert hub.base.startswith("https://")  # the guide's HTTPS settings, a self-signed pair
    with urllib.request.urlopen(f"{hub.base}/hub/login", timeout=30, context=hub.tls) as page:
        assert page.status == 200 and b"password" in page.read().lower()
    assert "version" in hub.api("/")
    services = hub.api("/services")
    assert "idle-culler" in services, services
    assert services["idle-culler"]["command"][-2:] == ["--timeout=3600", "--cull-every=60"]
    # Started with SIGINT ignored (as a background job is), the hub's services must still stop
    # at the SIGINT the hub stops them with.
    under = psutil.Process(hub.process.pid).children(recursive=True)
    ignoring = [" ".join(p.cmdline())[:100] for p in under if _ignores_sigint(p.pid)]
    assert len(under) >= 3 and not ignoring, ignoring


def _ignores_sigint(pid: int) -> bool:
    with contextlib.suppress(OSError):
        status = Path(f"/proc/{pid}/status").read_text()
        return bool(int(re.search(r"^SigIgn:\s*([0-9a-f]+)", status, re.M).group(1), 16) & 2)
    return False


# What a learner's server loads at its start: terminals, the hub's login, JupyterLab and the
# Assignments tab's stand-in (nbgrader's own extensions load at the tab's first use).
LEARNER_EXTENSIONS = {"jupyter_server_terminals", "jupyterhub", "jupyterlab",
                      "packlab.course.assignments_tab"}
NBGRADER_LOADS = re.compile(r"Loading the (assignment_list|validate_assignment) nbgrader")


def test_a_learners_server_starts_with_what_learners_use_only(hub):
    """A learner's server, started by the hub: it loads exactly LEARNER_EXTENSIONS, runs no
    other program (no Node.js on its PATH, where JupyterLab would run it; the system's other
    commands are there), and loads nbgrader's Assignments tab at the first request to it."""
    bo = hub.learners[1]
    start = hub.log.stat().st_size
    hub.api(f"/users/{bo.name}/server", "POST", {})
    end = time.monotonic() + SPAWN_MS / 1000
    while not hub.api(f"/users/{bo.name}")["servers"].get("", {}).get("ready"):
        assert time.monotonic() < end, f"{bo.name}'s server did not start"
        time.sleep(0.5)
    server = psutil.Process(server_pid(hub, bo.name))
    spent = server.cpu_times()
    path = server.environ()["PATH"]
    try:
        said = hub.log.read_bytes()[start:].decode(errors="replace")
        loaded = set(re.findall(r"\] (\S+) \| extension was successfully loaded", said))
        assert loaded == LEARNER_EXTENSIONS, said[-4000:]
        assert not NBGRADER_LOADS.search(said)
        assert spent.children_user + spent.children_system == 0, spent
        assert shutil.which("node", path=path) is None, path
        assert all(shutil.which(command, path=path) for command in ("ls", "git", "python3"))

        versions = hub.api("/nbgrader_version?version=0.9.6", base=f"/user/{bo.name}")
        assert versions == {"success": True}
        courses = hub.api("/courses", base=f"/user/{bo.name}")
        assert courses["success"] is True, courses
        said = hub.log.read_bytes()[start:].decode(errors="replace")
        assert sorted(NBGRADER_LOADS.findall(said)) == ["assignment_list",
                                                         "validate_assignment"], said[-4000:]

        # Its kernels talk over unix sockets in its own runtime folder, not on TCP ports that
        # thirty servers starting kernels at once could both pick.
        kernel = hub.api("/kernels", "POST", {"name": "python3"}, base=f"/user/{bo.name}/api")
        runtime = RUNTIME / str(server.uids().real)
        assert server.environ()["JUPYTER_RUNTIME_DIR"] == str(runtime)
        connection = json.loads((runtime / f"kernel-{kernel['id']}.json").read_text())
        assert connection["transport"] == "ipc", connection
        assert connection["ip"].startswith(f"{runtime}/"), connection
        assert runtime.stat().st_mode & 0o777 == 0o700  # (Jupyter adds the sticky bit)
    finally:
        hub.api(f"/users/{bo.name}/server", "DELETE")
        wait_until_stopped(hub, bo.name)


def test_a_term_through_the_hub(hub):
    ada = hub.learners[0]
    with chromium_process() as browser, \
            chromium(browser, ignore_https_errors=True) as learner_context, \
            chromium(browser, ignore_https_errors=True) as teacher_context:
        # The learner logs in with their system password and lands on the course's start page.
        learner = log_in(learner_context, hub, ada)
        assert learner.url.endswith("/lab/tree/START.ipynb")
        learner.locator(".jp-NotebookPanel .jp-RenderedMarkdown h1").first.wait_for()
        assert load().title in learner.locator(".jp-NotebookPanel h1").first.inner_text()

        # The instructor generates and releases exercise 02 in formgrader.
        teacher = log_in(teacher_context, hub, hub.instructor)
        assert "Successfully created" in formgrader(teacher, hub, "assign")
        assert "Successfully released" in formgrader(teacher, hub, "release")

        # The learner fetches it in the Assignments tab, answers, checks, saves and submits.
        panel = assignments_tab(learner)
        released = learner.locator("#released_assignments_list")
        released.get_by_text(ASSIGNMENT).wait_for()
        released.get_by_role("button", name="Fetch").click()
        fetched = learner.locator("#fetched_assignments_list")
        fetched.get_by_text(ASSIGNMENT).first.wait_for()
        learner.screenshot(path=screenshot_path("hub-assignments-fetched"))
        fetched.locator("a", has_text=ASSIGNMENT).first.click()  # show its notebooks
        fetched.locator("a", has_text=re.compile(rf"^{ASSIGNMENT}$")).last.click()
        notebook = learner.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
        answer = notebook.locator(".jp-CodeCell", has_text="raise NotImplementedError").first
        answer.locator(".cm-content").click()
        learner.keyboard.press("Control+A")
        learner.keyboard.insert_text(the_answer())
        run_all_cells(learner, notebook)
        checks = notebook.locator(".jp-OutputArea-output", has_text="checks passed").first
        checks.wait_for(timeout=SPAWN_MS)
        learner.keyboard.press("Control+S")
        learner.wait_for_timeout(1500)
        del panel
        assignments_tab(learner)
        fetched.get_by_role("button", name="Submit").first.click()
        learner.locator("#submitted_assignments_list").get_by_text(ASSIGNMENT).first.wait_for()

        # Another learner forges a later hand-in in Ada's name: the released notebook, unanswered.
        forged = forge(hub, hub.learners[1], ada)

        # The instructor collects in formgrader: the forgery is set aside, loudly, Ada's own is
        # collected. Then they grade in a terminal of their JupyterLab and see Ada's own score.
        said = formgrader(teacher, hub, "collect")
        assert "There was an error collecting" in said, said
        assert f"{forged!r}, handed in as {ada.name!r}: . was written by the account " \
               f"{hub.learners[1].name}" in said, said
        # nbgrader's own collect (named on its command line) takes the forgery as Ada's; then
        # the forger writes a hand-in named for Ada that no collect can read. `packlab grade`
        # sets the forgery aside, grades Ada's own in its place and names the unreadable one.
        status, shown = in_terminal(teacher, hub.instructor, f"cd {hub.course} && nbgrader "
                                    f"--version && nbgrader collect --update --ExchangeFactory."
                                    f"collect={NBGRADERS_COLLECT} {ASSIGNMENT}")
        assert status == 0, shown[-4000:]
        assert "0.9.6" in shown and "command not found" not in shown, shown[-4000:]
        taken = hub.course / "submitted" / ada.name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert taken.read_bytes() == (hub.home / "exchange" / "packlab" / "inbound" / forged /
                                      f"{ASSIGNMENT}.ipynb").read_bytes()
        unreadable = forge(hub, hub.learners[1], ada, time_part=HOSTILE_TIME)
        status, shown = in_terminal(teacher, hub.instructor, f"cd {hub.course} && packlab grade "
                                    "submitted --out graded")
        said = re.sub(r"\s+", "", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown))
        assert status == 1 and "Traceback" not in shown, shown[-4000:]  # 1: a forgery set aside
        for words in ("Set aside: 1 submission(s) came from a hand-in that another account wrote",
                      f"{ada.name} / {ASSIGNMENT}: the hand-in {forged!r} was set aside: . was "
                      f"written by the account {hub.learners[1].name}",
                      "graded instead: their own hand-in",
                      "Not collected: 1 hand-in(s) in the exchange's inbound folder",
                      f"{unreadable!r}: its name's time part {HOSTILE_TIME!r} is not a time"):
            assert re.sub(r"\s+", "", words) in said, shown[-4000:]
        teacher.goto(f"{hub.base}/user/{hub.instructor.name}/formgrader/manage_submissions/"
                     f"{ASSIGNMENT}")
        row = teacher.locator("tbody tr", has_text=ada.name)
        row.wait_for()
        score = row.locator("td.score").inner_text()
        teacher.screenshot(path=screenshot_path("hub-formgrader-scores"))
        points = sum(EXERCISE.points.values())
        assert re.search(rf"\b{points:g}(\.0)? / {points:g}(\.0)?\b", score), score
        said = formgrader(teacher, hub, "generate-feedback")
        assert "Successfully generated feedback" in said, said
        said = formgrader(teacher, hub, "release-feedback")
        assert "Successfully released feedback" in said, said

        # The learner fetches the feedback and reads their score on it.
        learner.reload()
        assignments_tab(learner)
        submitted = learner.locator("#submitted_assignments_list")
        submitted.get_by_role("button", name="Fetch Feedback").first.click()
        submitted.get_by_text("view feedback").first.click()  # the file browser goes there
        learner.locator(".jp-DirListing-item", has_text=f"{ASSIGNMENT}.html").dblclick()
        page = learner.frame_locator(".jp-HTMLViewer:not(.lm-mod-hidden) iframe").locator("body")
        page.get_by_text(f"{ASSIGNMENT} (Score:").wait_for()
        learner.screenshot(path=screenshot_path("hub-learner-feedback"))
        assert f"{ASSIGNMENT} (Score: {points:.1f} / {points:.1f})" in page.inner_text()

# Run by a learner's account: what it may open. "read" or the error's name, per path.
PROBE = """
import json, os, sys
seen = {}
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            open(path, "rb").read(1)
        seen[path] = "read"
    except OSError as error:
        seen[path] = type(error).__name__
print(json.dumps(seen))
"""


def test_a_learner_reads_nothing_but_their_own(hub):
    """As a real process of a learner's account: their own home is theirs; another learner's
    home, the course folder (solutions, hidden tests, gradebook, submissions) and the
    exchange's inbound folder cannot be opened, and the learners' Python has no hidden tests."""
    ada, bo = hub.learners
    made = as_account(bo.name, "open('mine.txt', 'w').write('my answer')")
    assert made.returncode == 0, made.stderr
    bo_home = pwd.getpwnam(bo.name).pw_dir
    hidden = sorted((hub.course / "autograder" / "checks" / "hidden").glob("*.py"))[0]
    closed = [f"{bo_home}/mine.txt", bo_home, str(hub.course),
              str(hub.course / "solutions"), str(hub.course / EXERCISE.source.relative_to(ROOT)),
              str(hidden), str(hub.course / "gradebook.db"),
              str(hub.home / "exchange" / "packlab" / "inbound")]
    probe = as_account(ada.name, f"import sys; sys.argv[1:] = {closed!r}\n" + PROBE)
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    assert seen == dict.fromkeys(closed, "PermissionError"), seen
    own = as_account(ada.name, "import os; open('own.txt', 'w').write('x'); print(os.listdir('.'))")
    assert own.returncode == 0 and "own.txt" in own.stdout, own.stderr
    imports = as_account(ada.name, HIDDEN_IMPORT.format(
        python=hub.home / "learner" / "bin" / "python"), hub)
    assert imports.returncode == 0, imports.stdout + imports.stderr
    assert imports.stdout.split() == ["student", "hidden-missing", "solutions-missing"], \
        imports.stdout


# The learners' own Python: packlab is the student install; the hidden tests are not there.
HIDDEN_IMPORT = """
import subprocess
code = '''
import importlib.util
from packlab.manifest import ROOT, load
print("student" if load().student_install else "instructor")
print("hidden-missing" if importlib.util.find_spec("autograder.checks.hidden") is None
      else "hidden-found")
print("solutions-missing" if not (ROOT / "solutions").exists() else "solutions-found")
'''
done = subprocess.run(["{python}", "-c", code], capture_output=True, text=True)
print(done.stdout, done.stderr)
"""


def test_the_databases_and_first_passwords_are_roots_alone(hub):
    """The hub's database, the room's (names, pass or fail, misconceptions) and, after the
    guide's `packlab hub lock .`, first-passwords.csv: neither a learner nor an instructor may
    open them; the instructor reads the rest of the course folder."""
    private = hub.home / "private"
    closed = [str(private), str(private / "jupyterhub.sqlite"), str(private / "room.sqlite"),
              str(hub.course / "first-passwords.csv")]
    assert all(os.path.exists(path) for path in closed), os.listdir(private)
    for person in (hub.learners[0], hub.instructor):
        probe = as_account(person.name, f"import sys; sys.argv[1:] = {closed!r}\n" + PROBE)
        assert probe.returncode == 0, probe.stderr
        assert json.loads(probe.stdout) == dict.fromkeys(closed, "PermissionError"), person
    roster = str(hub.course / "roster.csv")
    probe = as_account(hub.instructor.name, f"import sys; sys.argv[1:] = {[roster]!r}\n" + PROBE)
    assert json.loads(probe.stdout) == {roster: "read"}, probe.stdout + probe.stderr


def test_login_shells_find_the_course_commands(hub):
    """Over ssh or `su -` (a login shell, with nothing of the server's environment), the
    instructor runs the instructors' packlab and nbgrader, and a learner the student install's
    packlab; root's own shell is left as it was."""
    def login(name: str, command: str) -> subprocess.CompletedProcess:
        return subprocess.run(["su", "-", name, "-c", command], capture_output=True, text=True,
                              timeout=300, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})

    teacher = login(hub.instructor.name, "command -v packlab nbgrader && nbgrader --version "
                    "&& cd ~ && packlab grade --help")
    assert teacher.returncode == 0, teacher.stdout + teacher.stderr
    found = teacher.stdout.splitlines()
    assert found[:2] == [str(hub.home / "instructor" / "bin" / n) for n in ("packlab", "nbgrader")]
    assert "0.9.6" in teacher.stdout
    learner = login(hub.learners[0].name, "command -v packlab && packlab room")
    assert learner.returncode == 0, learner.stdout + learner.stderr
    assert learner.stdout.splitlines()[0] == str(hub.home / "learner" / "bin" / "packlab")
    root = subprocess.run(["bash", "-lc", "command -v packlab || echo none"], capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/root"})
    assert root.stdout.strip() == "none", root.stdout


def test_the_class_survives_the_hub(hub):
    """Mid-class (the learners' servers started before class with `packlab hub warm`, a kernel
    open on a websocket as in a learner's tab), a second `packlab hub serve` refuses, saying one
    runs; the hub is stopped and served again: the learner's server is the same process, its
    kernel answers on the same websocket, and a notebook saves through the same proxy."""
    ada = hub.learners[0]
    warmed = hub.packlab("hub", "warm")
    assert warmed.returncode == 0, warmed.stdout + warmed.stderr
    assert f"{len(hub.learners)} of {len(hub.learners)} learners' servers running" in \
        " ".join(warmed.stdout.split())
    server = server_pid(hub, ada.name)
    proxy = int((hub.home / "proxy.pid").read_text())
    kernel = hub.api("/kernels", "POST", {"name": "python3"}, base=f"/user/{ada.name}/api")
    tab = websocket.create_connection(
        f"{hub.base.replace('http', 'ws', 1)}/user/{ada.name}/api/kernels/{kernel['id']}/"
        "channels", header=[f"Authorization: token {hub.token}"], timeout=120,
        sslopt={"context": hub.tls})
    try:
        assert run_in_kernel(tab, "x = 6 * 7; print(x)") == "42\n"
        second = hub.packlab("hub", "serve", timeout=300)
        said = " ".join(second.stdout.split())
        assert second.returncode == 2 and "already running" in said, second.stdout + second.stderr
        assert "Traceback" not in second.stdout + second.stderr
        assert hub.process.poll() is None and psutil.pid_exists(proxy)

        hub.stop()
        assert psutil.Process(server).uids().real == pwd.getpwnam(ada.name).pw_uid
        hub.serve()
        assert server_pid(hub, ada.name) == server
        assert int((hub.home / "proxy.pid").read_text()) == proxy
        assert run_in_kernel(tab, "print(x + 1)") == "43\n"  # the same kernel, the same tab
    finally:
        tab.close()
    saved = hub.api("/contents/after-restart.ipynb", "PUT",
                    {"type": "notebook", "format": "json", "content": nbformat.v4.new_notebook()},
                    base=f"/user/{ada.name}/api")
    assert saved["name"] == "after-restart.ipynb"
    on_disk = pwd.getpwnam(ada.name).pw_dir + "/packlab/after-restart.ipynb"
    assert os.stat(on_disk).st_uid == pwd.getpwnam(ada.name).pw_uid


def test_a_crashed_server_comes_back_from_the_learners_page(hub):
    """The learner's server dies under an open JupyterLab; reloading the page brings it back by
    itself (the spawn page, then JupyterLab), whether the learner reloads before the hub has seen
    the crash (the proxy's own page, hub/templates/503.html) or after (the hub's "not running"
    page, which spawns by itself)."""
    bo = hub.learners[1]
    with chromium_process() as browser, chromium(browser, ignore_https_errors=True) as context:
        page = log_in(context, hub, bo)
        for hub_saw_it in (False, True):
            crashed = server_pid(hub, bo.name)
            os.kill(crashed, signal.SIGKILL)
            if hub_saw_it:
                wait_until_stopped(hub, bo.name)
            page.goto(f"{hub.base}/user/{bo.name}/lab", wait_until="commit")
            page.wait_for_url(lambda url: urlsplit(url).path.startswith("/hub/spawn"),
                              timeout=SPAWN_MS)
            jupyterlab_shown(page, hub, "after the hub saw the crash" if hub_saw_it else
                             "before the hub saw the crash")
            assert urlsplit(page.url).path.startswith(f"/user/{bo.name}/lab"), page.url
            assert server_pid(hub, bo.name) not in (crashed, None)


def jupyterlab_shown(page, hub: ClassHub, when: str) -> None:
    """Until ``page`` shows JupyterLab's launcher or a notebook; else fail with where the page
    is, what it shows (and a screenshot), and what the hub and its log say."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.locator(".jp-LauncherCard, .jp-NotebookPanel").first.wait_for(timeout=SPAWN_MS)
    except PlaywrightTimeout:
        shot = screenshot_path("hub-crashed-server-not-back")
        page.screenshot(path=shot)
        shown = " ".join(page.locator("body").inner_text(timeout=10_000).split())[:1500]
        pytest.fail(f"{when}, JupyterLab did not show in {SPAWN_MS // 1000} s: the page is at "
                    f"{page.url} ({shot}) and shows:\n{shown}\n{hub.doing()}", pytrace=False)


def wait_until_stopped(hub: ClassHub, name: str, seconds: float = 120) -> None:
    """Until the hub has seen ``name``'s server stop (it polls each server every 10 s)."""
    end = time.monotonic() + seconds
    while server_pid(hub, name) is not None:
        assert time.monotonic() < end, f"the hub did not see {name}'s server stop in {seconds} s"
        time.sleep(1)


def server_pid(hub: ClassHub, name: str) -> int | None:
    """The pid of ``name``'s server, as the hub's database keeps it."""
    server = hub.api(f"/users/{name}")["servers"].get("")
    return server["state"].get("pid") if server else None


def run_in_kernel(ws, code: str) -> str:
    """Run ``code`` over a kernel's websocket as JupyterLab does; what it printed."""
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({
        "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex,
                   "msg_type": "execute_request", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
    printed, replied, idle = [], False, False
    while not (replied and idle):  # the reply (shell) and the last output (iopub): any order
        message = json.loads(ws.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        if message["msg_type"] == "error":
            printed.append(f"{message['content']['ename']}: {message['content']['evalue']}")
        replied = replied or message["msg_type"] == "execute_reply"
        idle = idle or (message["msg_type"] == "status"
                        and message["content"]["execution_state"] == "idle")
    return "".join(printed)
