"""A killed `packlab grade` resumes where it stopped and ends with the same grades.csv.

The grader runs as an instructor would start it (the console script), in its own process group;
part-way through, the whole group gets SIGKILL. What it leaves must be whole files only, no
sandbox process may outlive it, and a rerun must finish the class with a grades.csv byte for byte
equal to one from an uninterrupted run. `--force` regrades what is already there.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import EXERCISES, submit, undated, with_answer

from autograder.checks import gallery
from autograder.run.isolation import FIRST_UID

pytestmark = pytest.mark.slow

PACKLAB = Path(sys.executable).parent / "packlab"
# Short limits keep the endless loops cheap; the sleeps stay far below them.
LIMITS = ["--call-seconds", "1", "--setup-seconds", "5", "--jobs", "2"]


def lay_out_class(submitted: Path) -> int:
    """12 submissions over 2 assignments: right, wrong, slow (sleeps in a cell), endless loops."""
    count = 0
    for exercise in EXERCISES[:2]:
        f = exercise.function
        reference = with_answer(exercise, None)
        answer = next(c for c in reference.cells if c.metadata.get("nbgrader", {})
                      .get("grade_id") == exercise.grade_id("answer")).source
        mutant = next(m for m in gallery.every() if m.suite == exercise.suite)
        class_ = {
            "s01": None,
            "s02": f"def {f}(*args):\n    while True:\n        pass\n",  # busy at the kill
            "s03": "import time\ntime.sleep(0.6)\n" + answer,
            "s04": mutant.code,
            "s05": "import time\ntime.sleep(0.6)\n" + mutant.code,
            "s06": f"import time\ntime.sleep(0.3)\ndef {f}(*args):\n    while True:\n"
                   "        pass\n",
        }
        for student, code in class_.items():
            submit(submitted, student, exercise, with_answer(exercise, code))
            count += 1
    return count


def grade(submitted: Path, out: Path, *extra: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([str(PACKLAB), "grade", str(submitted), "--out", str(out),
                             *LIMITS, *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **popen)


def finish(process: subprocess.Popen, timeout: float = 240) -> str:
    output, _ = process.communicate(timeout=timeout)
    assert process.returncode == 0, output[-3000:]
    return output


def stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgrp, uid) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    uid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:")))
    return fields[0], int(fields[1]), int(fields[2]), uid


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (0 once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[str, int, int, int]]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := stat(int(entry.name))) is not None:
            found[int(entry.name)] = info
    return found


def descendants(roots: set[int], table: dict) -> set[int]:
    found, frontier = set(roots), set(roots)
    while frontier:
        frontier = {pid for pid, (_, ppid, _, _) in table.items()
                    if ppid in frontier and pid not in found}
        found |= frontier
    return found


def describe(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return f"{pid} (gone)"
    state, ppid, pgrp, uid = stat(pid) or ("?", 0, 0, 0)
    return f"pid {pid} uid {uid} state {state} ppid {ppid} pgrp {pgrp} cwd {cwd}: {cmd[:120]}"


def folder_of(pid: int) -> Path | None:
    """The sandbox folder a process works in, if it is one."""
    try:
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None
    return cwd if cwd.name.startswith("packlab-sandbox-") else None


def survivors(family: set[int]) -> set[int]:
    """Live (non-zombie) sandbox processes of a killed grader: its descendants from before the
    kill, and as root every process of a sandbox user of one of its processes."""
    uids = {FIRST_UID + pid for pid in family} if os.geteuid() == 0 else set()
    live = set()
    for pid, (state, _, _, uid) in processes().items():
        if state != "Z" and (pid in family or (uid >= FIRST_UID and uid in uids)):
            live.add(pid)
    return live


@dataclass
class Killed:
    submitted: Path
    out: Path
    total: int
    done: int
    alive: set[int] = field(default_factory=set)
    report: str = ""


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A class graded part-way, then the grader's whole process group killed with SIGKILL; made
    once for the module's two tests (what outlived the kill is noted before either runs).

    Teardown kills the sandbox processes that outlived it and removes their folders, so a
    failing test leaves the machine clean.
    """
    base = tmp_path_factory.mktemp("killed")
    submitted, out = base / "submitted", base / "out"
    total = lay_out_class(submitted)
    run = grade(submitted, out, start_new_session=True)
    group = run.pid
    try:
        # Kill when some results are written and a sandbox is busy in an endless loop: the
        # hardest moment (a sandbox waiting on its pipe would end by itself at end-of-file).
        deadline, done, family, looping = time.monotonic() + 120, [], set(), set()
        while time.monotonic() < deadline and run.poll() is None:
            done = list(out.glob("students/*/*/results.json"))
            table = processes()
            members = {pid for pid, info in table.items() if info[2] == group}
            family = descendants(members, table)
            looping = {pid for pid in family - members if cpu_seconds(pid) >= 0.2}
            if done and looping:
                break
            time.sleep(0.02)
        os.killpg(group, signal.SIGKILL)
        run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            os.killpg(group, signal.SIGKILL)
            run.wait()
    assert 0 < len(done) < total and looping, "the grader was not caught mid-class"

    # What the pipes' end-of-file would end takes a moment; the rest outlived the grader.
    time.sleep(0.5)
    alive = survivors(family)
    state = Killed(submitted, out, total, len(done), alive,
                   "\n".join(describe(pid) for pid in sorted(alive)))
    folders = {p for pid in alive if (p := folder_of(pid))}
    yield state
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if os.geteuid() == 0:  # sandbox folders of the killed workers are never removed either
        uids = {FIRST_UID + pid for pid in family}
        folders |= {p for p in Path(tempfile.gettempdir()).glob("packlab-sandbox-*")
                    if p.stat().st_uid in uids}
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.xdist_group("resume")  # the two tests of one killed run share a worker
def test_killed_run_resumes_to_the_same_grades(tmp_path, killed):
    out, clean = killed.out, tmp_path / "clean"
    # Only whole files: every results.json parses; a temp file is never named results.json.
    results = list(out.glob("students/*/*/results.json"))
    assert len(results) >= killed.done
    for path in results:
        assert json.loads(path.read_text())["extra_data"]["student"] == path.parent.parent.name
    assert not (out / "grades.csv").exists(), "grades.csv is written only at the end"

    # The rerun finishes the class; its grades.csv equals an uninterrupted run's, byte for byte.
    finish(grade(killed.submitted, out))
    finish(grade(killed.submitted, clean))
    assert (out / "grades.csv").read_bytes() == (clean / "grades.csv").read_bytes()
    assert len((out / "grades.csv").read_text().splitlines()) == killed.total + 1
    assert not [p for p in out.rglob(".*") if p.is_file()], "temp files left after the rerun"
    for student in ("s01", "s03", "s04", "s05"):  # graded the same, also per test group
        for exercise in EXERCISES[:2]:
            path = Path("students", student, exercise.name, "results.json")
            mine = json.loads((out / path).read_text())
            theirs = json.loads((clean / path).read_text())
            assert mine["tests"] == theirs["tests"]


@pytest.mark.xdist_group("resume")
def test_no_sandbox_outlives_a_killed_grader(killed):
    assert not killed.alive, ("sandbox processes outlived the SIGKILL of their grader:\n"
                              + killed.report)


def test_force_regrades(tmp_path):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    exercise = EXERCISES[0]
    submit(submitted, "ada", exercise, with_answer(exercise, None))
    submit(submitted, "bo", exercise,
           with_answer(exercise, next(m for m in gallery.every()
                                      if m.suite == exercise.suite).code))
    finish(grade(submitted, out))
    results = out / "students" / "ada" / exercise.name / "results.json"
    graded = results.read_text()
    grades = (out / "grades.csv").read_text()
    results.write_text(graded.replace(f'"score": {exercise.max_score}', '"score": 0', 1))

    finish(grade(submitted, out))  # a rerun keeps what is there
    assert json.loads(results.read_text())["score"] == 0
    assert f"ada,{exercise.name},0," in (out / "grades.csv").read_text()

    finish(grade(submitted, out, "--force"))  # --force grades it again
    assert undated(results.read_text()) == undated(graded)
    assert (out / "grades.csv").read_text() == grades

    other = out / "students" / "bo" / exercise.name / "results.json"  # half a file is not a result
    whole = other.read_text()
    other.write_text(whole[: len(whole) // 2])
    finish(grade(submitted, out))
    assert undated(other.read_text()) == undated(whole)
    assert (out / "grades.csv").read_text() == grades
