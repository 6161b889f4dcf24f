"""The grader's memory for big replies stays bounded (issue 37, item 5): four students whose
answers come back 8 MB on every call are graded in under 400 MB, and the grader keeps nothing
of one student for the next.

The class is graded by the real `packlab grade --jobs 1`, as the user running the tests (root in
CI) and as an ordinary user (tests/as_user.py). While it runs, the peak resident set (VmHWM) of
each of its processes is read from /proc. "The grader" is every process the command starts: the
command itself, its grading process (the pool worker that reads the sandbox's replies and runs
the checks) and the sandboxes; each must stay under the issue's bar. The grading process must
also hold no more for four students than for the first alone, within two replies (16 MB):
without `engine._free_cycles` the reference cycles of each failed search, holding replies, pile
up from one student to the next (this test then fails: 221 MB for four students, 176 MB for one).

The answer is the attack gallery's `returns_8_mb_answers`, on exercise 01: the smallest real
exercise where the attack applies (14 calls a student, a Hypothesis search among them); 02's
wrong answer is called about 200 times, 1.6 GB of replies a student. Each student's letter
differs, so that each gets a search of its own rather than the one remembered from a classmate.
"""

from __future__ import annotations

import contextlib
import csv
import html
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest
from as_user import folder, give, run_as_user
from conftest import COURSE, submit, with_answer

from autograder.checks.gallery import ATTACKS
from packlab.course.release import BIN

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ordinary-user")]

EXERCISE = COURSE.exercise("01")
ATTACK = (ATTACKS / "returns_8_mb_answers.py").read_text()
BAR = 400 * 1024  # kB: the bound for any one process of the grader
KEPT = 16 * 1024  # kB: two replies, the most the grading process may grow over three students
SHOWN = "['xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx']"  # 8 MB of x, as the feedback shows it


def answer(letter: str) -> str:
    return ATTACK.replace('LETTER = "x"', f'LETTER = "{letter}"')


@dataclass
class Peaks:
    """The peak resident set (VmHWM, kB) of every process started under this one, sampled
    from /proc while a command runs; VmHWM only grows, so a sample misses nothing but the
    last quarter of a second of a process."""

    kib: dict[int, int] = field(default_factory=dict)
    parent: dict[int, int] = field(default_factory=dict)
    command: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _done: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Peaks:
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.wait(0.25):
            for process in psutil.Process().children(recursive=True):
                with contextlib.suppress(psutil.Error, OSError):  # it ended meanwhile
                    self._note(process)

    def _note(self, process: psutil.Process) -> None:
        status = Path(f"/proc/{process.pid}/status").read_text()
        peak = next((int(line.split()[1]) for line in status.splitlines()
                     if line.startswith("VmHWM:")), 0)  # none for a zombie
        parent, command = process.ppid(), tuple(process.cmdline())  # both, then either kept
        # Named again at each look: a look between a fork and its exec sees the test's own
        # command line (the grading process was then missed once); a zombie's line is empty.
        if command or process.pid not in self.command:
            self.parent[process.pid], self.command[process.pid] = parent, command
        self.kib[process.pid] = max(peak, self.kib.get(process.pid, 0))

    def grading(self) -> int:
        """The peak of the grading process: the pool worker, a fork of the command that runs
        it (the same command line as its parent)."""
        workers = [self.kib[pid] for pid, up in self.parent.items()
                   if self.command.get(up) == self.command[pid] and self.command[pid]]
        assert workers, f"no grading process seen among {sorted(self.command.values())}"
        return max(workers)

    def largest(self) -> tuple[int, tuple[str, ...]]:
        pid = max(self.kib, key=self.kib.get)
        return self.kib[pid], self.command[pid][:3]


def grade(base: Path, students: str, as_user: bool) -> tuple[Peaks, Path]:
    """Grade one class of ``students`` (a letter each) with `packlab grade --jobs 1`."""
    submitted, out = base / students / "submitted", base / students / "out"
    for letter in students:
        submit(submitted, letter, EXERCISE, with_answer(EXERCISE, answer(letter)))
    arguments = ["grade", str(submitted), "--out", str(out), "--jobs", "1"]
    with Peaks() as peaks:
        if as_user:
            give(base)
            done = run_as_user("from packlab.course.cli import main; raise SystemExit(main())",
                               *arguments)
        else:
            done = subprocess.run([str(BIN / "packlab"), *arguments], capture_output=True,
                                  text=True, timeout=600)
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in said, said[-3000:]
    return peaks, out


@pytest.fixture(scope="module", params=["invoking user", "ordinary user"])
def graded(request):
    """The first student alone, then the class of four, graded the same way."""
    as_user = request.param == "ordinary user"
    base = folder() if as_user else Path(tempfile.mkdtemp(prefix="packlab-mem-"))
    try:
        yield grade(base, "a", as_user), grade(base, "abcd", as_user)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_four_students_with_8_mb_answers_are_graded_under_400_mb(graded):
    (alone, _), (four, out) = graded
    largest, command = four.largest()
    assert largest < BAR, f"{largest / 1024:.0f} MB in {command}"
    first, all_four = alone.grading(), four.grading()
    assert all_four - first < KEPT, \
        f"the grading process peaked at {first / 1024:.0f} MB for the first student and " \
        f"{all_four / 1024:.0f} MB for four: it keeps something of each student"
    with (out / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["student"], r["status"], r["score"], r["reason"]) for r in rows] == \
        [(letter, "graded", "0", "") for letter in "abcd"]
    for letter in "abcd":
        page = out / "students" / letter / EXERCISE.name / "feedback.html"
        assert page.stat().st_size < 100_000  # the replies are shown shortened, never whole
        text = html.unescape(page.read_text())
        assert "total_tokens returns a whole number, an int" in text
        assert SHOWN.replace("x", letter) in text
