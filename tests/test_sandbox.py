"""What a student's code can see and keep from inside the sandbox: nothing of the machine.

Each test runs twice: as the user running the tests (root in CI) and as an ordinary user the
tests create (see tests/as_user.py), because instructors grade as ordinary users and the sandbox
must be the same for both. The student's code here is a probe: it reports what it finds.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from as_user import folder, give, leftover_processes, run_as_user

from autograder.run import isolation
from autograder.run.isolation import Limits
from autograder.run.sandbox import Sandbox

pytestmark = pytest.mark.xdist_group("ordinary-user")  # one ordinary user: one test at a time
# The probe walks the filesystem: more CPU time than a student's call may use.
LIMITS = Limits(call_seconds=60, call_cpu_seconds=30, setup_seconds=30,
                submission_seconds=120)

PROBE = r'''
import errno, os, socket

def probe(markers, port):
    facts = {"uid": os.getuid(), "hostname": socket.gethostname(), "cwd": os.getcwd()}
    facts["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    commands = []
    for pid in facts["pids"]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                commands.append(handle.read().replace(b"\0", b" ").decode("utf-8", "replace"))
        except OSError:
            pass
    facts["commands"] = [c for c in commands if "-c" not in c.split()]
    found = []
    for top, dirs, files in os.walk("/"):
        if top in ("/proc", "/sys", "/dev"):
            dirs[:] = []
            continue
        found += [os.path.join(top, n) for n in dirs + files if n in markers]
    facts["found"] = found[:50]
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        facts["network"] = "connected"
    except OSError as exc:
        facts["network"] = errno.errorcode.get(exc.errno, str(exc))
    facts["interfaces"] = [name for _, name in socket.if_nameindex()]
    writable = []
    for place in ("/", "/usr/lib", "/lib", "/etc", "/proc/sys"):
        try:
            with open(os.path.join(place, "probe.txt"), "w") as handle:
                handle.write("x")
            writable.append(place)
        except OSError:
            pass
    facts["writable"] = writable
    facts["top"] = sorted(os.listdir("/"))
    return facts

def leave():
    """Leave files everywhere one may write, and fill /tmp to the brim."""
    for place in ("/tmp", "/dev/shm", "."):
        with open(os.path.join(place, "packlab-leftover"), "w") as handle:
            handle.write("a secret for the next student")
    written = 0
    try:
        for number in range(1000):
            with open(f"/tmp/fill-{number}", "wb") as handle:
                handle.write(b"x" * (8 << 20))
            written += 8
    except OSError as exc:
        return [written, errno.errorcode.get(exc.errno, str(exc))]
    return [written, "no error"]

def look():
    return {place: sorted(os.listdir(place)) for place in ("/tmp", "/dev/shm", ".")}

def daemon():
    """Double fork into a new session; the grandchild outlives everything if it can."""
    import time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(60)
        os._exit(0)
    time.sleep(0.2)
    return len([p for p in os.listdir("/proc") if p.isdigit()])
'''

# Names that would mean the course, the class or the grader's packages can be seen.
MARKERS = ["course.toml", "autograder", "packlab", "solutions", "hypothesis", "nbgrader",
           "site-packages-marker", "classmate", "grades.csv", "pytest"]

AS_USER_SCRIPT = r'''
import json, sys
from autograder.run.isolation import Limits
from autograder.run.sandbox import Sandbox
limits = Limits(call_seconds=60, call_cpu_seconds=30, setup_seconds=30, submission_seconds=120)
probe, markers = sys.argv[1], json.loads(sys.argv[2])
with Sandbox([probe], limits) as box:
    facts = box.call("probe", [markers, int(sys.argv[3])]).value
    facts["left"] = box.call("leave", []).value
with Sandbox([probe], limits) as box:
    facts["next"] = box.call("look", []).value
    facts["daemon"] = box.call("daemon", []).value
print(json.dumps(facts))
'''


def probe_here(port: int) -> dict:
    with Sandbox([PROBE], LIMITS) as box:
        facts = box.call("probe", [MARKERS, port]).value
        facts["left"] = box.call("leave", []).value
    with Sandbox([PROBE], LIMITS) as box:
        facts["next"] = box.call("look", []).value
        facts["daemon"] = box.call("daemon", []).value
    return facts


def probe_as_user(port: int) -> dict:
    done = run_as_user(AS_USER_SCRIPT, PROBE, json.dumps(MARKERS), str(port))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module", params=["invoking user", "ordinary user"])
def facts(request, tmp_path_factory):
    """What the probe found, with a classmate's submission and the course on this machine."""
    place = folder()
    classmate = place / "submitted" / "classmate" / "02-greedy-pack"
    classmate.mkdir(parents=True)
    (classmate / "02-greedy-pack.ipynb").write_text("{}")
    give(place)
    listener = socket.create_server(("127.0.0.1", 0))  # a service on the host's loopback
    port = listener.getsockname()[1]
    try:
        found = probe_as_user(port) if request.param == "ordinary user" else probe_here(port)
        found["mode"] = request.param
        yield found
    finally:
        listener.close()
        shutil.rmtree(place, ignore_errors=True)


def test_student_runs_as_an_unprivileged_uid_in_a_host_of_its_own(facts):
    assert facts["uid"] == isolation.SANDBOX_UID
    assert facts["hostname"] == "sandbox"
    assert facts["cwd"] == isolation.WORK


def test_no_other_process_is_visible(facts):
    # bubblewrap's own init (pid 1) and the worker; nothing of the host, no other sandbox
    assert facts["pids"] == [1, 2], facts["pids"]
    assert not any("pytest" in c or "packlab" in c for c in facts["commands"]), facts["commands"]


def test_nothing_of_the_course_the_class_or_installed_packages_is_visible(facts):
    assert facts["found"] == [], facts["found"]
    allowed = {"dev", "lib", "lib32", "lib64", "proc", "tmp", "usr", "work",
               Path(sys.base_prefix).parts[1]}  # where the interpreter lives (e.g. /root/.pyenv)
    assert set(facts["top"]) <= allowed, facts["top"]


def test_no_network(facts):
    # a network namespace of its own: only a loopback device of its own, so the port the tests
    # listen on (on the host's loopback) is not there
    assert facts["network"] == "ECONNREFUSED", facts["network"]
    assert facts["interfaces"] == ["lo"], facts["interfaces"]


def test_nothing_outside_the_scratch_folders_is_writable(facts):
    assert facts["writable"] == []


def test_scratch_space_is_bounded_and_gone_with_the_sandbox(facts):
    written, error = facts["left"]
    assert error == "ENOSPC" and written <= LIMITS.scratch_bytes >> 20, facts["left"]
    assert facts["next"] == {"/tmp": [], "/dev/shm": [], ".": []}, facts["next"]
    for place in ("/tmp", "/dev/shm"):
        assert not (Path(place) / "packlab-leftover").exists()


def test_a_daemon_in_a_new_session_dies_with_the_sandbox(facts):
    assert facts["daemon"] >= 3  # it was alive while the call returned ...
    assert not leftover_processes(), leftover_processes()  # ... and is gone now


# A worker that holds 300 MB, also in a child in a session of its own: the kernel takes a
# while to free it once the sandbox is killed. Three sandboxes in turn; after each one's close,
# what is still running under the sandbox's uid (as root: FIRST_UID + this process's pid; as an
# ordinary user: that user, but this process).
GONE_SCRIPT = r"""
import json, os, sys
from autograder.run.isolation import FIRST_UID, Limits
from autograder.run.sandbox import Sandbox

HOLD = '''
import os, time

def hold():
    block = bytearray(300 << 20)
    for at in range(0, len(block), 4096):
        block[at] = 1
    if os.fork() == 0:
        os.setsid()
        time.sleep(60)
    return len(block) >> 20
'''

def running(uid):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = open(f"/proc/{pid}/status").read()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if int(fields["Uid"].split()[0]) == uid and int(pid) != os.getpid() \
                and not fields["State"].startswith("Z"):
            found.append(f"{pid} {fields['Name'].strip()} {fields['State'].strip()}")
    return found

uid = FIRST_UID + os.getpid() if os.geteuid() == 0 else os.getuid()
limits = Limits(call_seconds=60, call_cpu_seconds=30, setup_seconds=30)
left = []
for _ in range(3):
    with Sandbox([HOLD], limits) as box:
        held = box.call("hold", []).value
    left += running(uid)
print(json.dumps({"held": held, "left": left}))
"""


@pytest.mark.parametrize("who", ["invoking user", "ordinary user"])
def test_a_sandbox_is_gone_when_its_close_returns(who):
    """The grader's close of a sandbox waits for every process in it to be gone, not only for
    bubblewrap: a check right after grading (as test_attacks.py's) finds nothing left."""
    if who == "ordinary user":
        done = run_as_user(GONE_SCRIPT)
    else:
        done = subprocess.run([sys.executable, "-c", GONE_SCRIPT], capture_output=True,
                              text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == {"held": 300, "left": []}, found


def _state(pid: int) -> str | None:
    """A process's state letter (Z: ended, not yet reaped), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


# Stands in for bubblewrap: its child (the sandbox's PID 1) sits in a session of its own and
# has no parent-death signal, so ending this process does not end it.
LONE_PARENT = r"""
import os, sys, time
if os.fork() == 0:
    os.setsid()
    time.sleep(120)
    sys.exit()
print("ready", flush=True)
time.sleep(120)
"""


def test_close_ends_the_sandboxs_first_process_even_when_bubblewraps_end_does_not():
    """kill() ends bubblewrap's child itself rather than trusting bubblewrap's end to take it
    along (a CI run found one still running after the next sandbox had come and gone)."""
    process = subprocess.Popen([sys.executable, "-c", LONE_PARENT], stdout=subprocess.PIPE,
                               text=True, start_new_session=True)
    assert process.stdout.readline() == "ready\n"
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    child = int(children[0])
    try:
        isolation.kill(process, sandboxed=True)
        left = _state(child)
        assert left in (None, "Z"), f"bubblewrap's child outlived the close (state {left})"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
        process.stdout.close()


def test_grading_refuses_without_bubblewrap_and_names_the_fix(tmp_path):
    env = no_bwrap_env()
    submitted = tmp_path / "submitted"
    (submitted / "ada" / "01-total-tokens").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "grade", str(submitted),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          env=env, timeout=300)
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, said
    assert "bubblewrap" in said and "apt-get install bubblewrap" in said and "--no-sandbox" in said
    assert "Traceback" not in said
    assert not (tmp_path / "out" / "grades.csv").exists()


def no_bwrap_env() -> dict:
    return {**os.environ, "PATH": str(Path(sys.executable).parent)}  # no bwrap on this PATH


def test_no_sandbox_grades_loudly_and_marks_every_output(tmp_path):
    from conftest import COURSE, submit, with_answer

    exercise = COURSE.exercise("01")
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", exercise, with_answer(exercise, None))
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "grade", str(submitted),
                           "--out", str(out), "--no-sandbox", "--jobs", "1"],
                          capture_output=True, text=True, env=no_bwrap_env(), timeout=300)
    said = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert said.count("WARNING: grading WITHOUT a sandbox") == 2  # before and after the run
    assert "graded WITHOUT a sandbox" in (out / "summary.md").read_text()
    grades = (out / "grades.csv").read_text()
    assert "none (graded WITHOUT a sandbox)" in grades and "bubblewrap" not in grades
    files = out / "students" / "ada" / exercise.name
    assert "WITHOUT a sandbox" in (files / "feedback.html").read_text()
    assert "WITHOUT a sandbox" in json.loads((files / "results.json").read_text())["output"]


def test_a_learners_check_without_bubblewrap_runs_and_says_so_once(tmp_path):
    from conftest import COURSE, submit, with_answer

    exercise = COURSE.exercise("01")
    path = submit(tmp_path, "me", exercise, with_answer(exercise, None))
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "check", str(path)],
                          capture_output=True, text=True, env=no_bwrap_env(), timeout=300)
    said = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert said.count("without a sandbox") == 1 and "Every check passed" in said


def test_a_learners_progress_without_bubblewrap_runs_and_says_so_once(tmp_path):
    from conftest import COURSE, with_answer

    from packlab.course import workspace

    exercise = COURSE.exercise("01")
    copy = workspace.learner_copy(tmp_path, exercise.release)
    copy.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(with_answer(exercise, None), copy)
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "progress", "--workspace",
                           str(tmp_path)], capture_output=True, text=True, env=no_bwrap_env(),
                          timeout=300)
    said = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert said.count("without a sandbox") == 1 and "passes every test" in said, said


def descendants(pid: int) -> list[int]:
    """``pid``'s children, theirs, and so on (from /proc; none once it has ended)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [found for child in map(int, children) for found in (child, *descendants(child))]


def running(pid: int) -> bool:
    """Is ``pid`` a live process (not ended, not a zombie waiting to be reaped)?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def name_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def test_killing_packlab_grade_ends_its_grading_processes_and_their_sandboxes(tmp_path):
    """`packlab grade` killed outright (a CI timeout, the OOM killer) while its grading process
    waits for a notebook's cells (a sleep, within a 15-minute setup limit): the grading process
    used to outlive it as an orphan, its sandbox with it, until that limit ran out."""
    from conftest import COURSE, submit, with_answer

    total = COURSE.exercise("01")
    submit(tmp_path / "submitted", "sleeper", total,
           with_answer(total, "import time\ntime.sleep(3000)\n"))
    grading = subprocess.Popen(
        [str(Path(sys.executable).with_name("packlab")), "grade", str(tmp_path / "submitted"),
         "--out", str(tmp_path / "out"), "--jobs", "1", "--setup-seconds", "900"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found: list[int] = []
    try:
        for _ in range(600):  # until the sandbox is up (at most about two minutes)
            found = descendants(grading.pid)
            if "bwrap" in map(name_of, found) and len(found) >= 4:
                break
            time.sleep(0.2)
        assert "bwrap" in map(name_of, found), "no sandbox was started"
        grading.kill()
        grading.wait()
        for _ in range(300):  # they go at once; a minute at most, on a loaded machine
            if not any(map(running, found)):
                break
            time.sleep(0.2)
        assert [(pid, name_of(pid)) for pid in found if running(pid)] == []
    finally:
        grading.kill()
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
