"""Grading a class: real `nbgrader autograde` against `packlab grade` (a script, not a test).

A class of N students hands in all four assignments, laid out as nbgrader's
``submitted/<student>/<assignment>/<assignment>.ipynb`` in a throwaway course directory: right
answers (the reference solution), wrong ones (the mutant gallery, round-robin) and broken ones
(invalid JSON, a syntax error, a missing function, an endless loop in the function). Both
graders grade the same files, one after the other, with their default time limits:

* nbgrader: 30 s per cell (``ExecutePreprocessor.timeout``), interrupting the kernel and going
  on with the next cell; an endless loop in the function costs it its three test cells.
* packlab: the defaults of `autograder.run.isolation.Limits` (CPU seconds and seconds per call of
  the student's function, for the notebook's own cells and per submission; fresh sandboxes after a
  timeout). A test group stops at its first timeout: the group has failed whatever comes after.

The script checks that both give the same score to every (student, assignment), prints a
mismatch table if not, and the throughput of each: packlab's notebooks per second and its ratio
to nbgrader's, against the targets (15 notebooks/s, 60×). Before timing, it stores the property
checks' examples as `make release` does (`autograder.checks.example_cache`; the drawing is timed and
shown, not counted). With --no-nbgrader it times packlab alone (no ratio, no comparison).
It also prints the CPU-seconds each grader spent, every process it started included (packlab's
sandboxed workers, nbgrader's kernels), per notebook: a figure that other work on the machine
distorts far less than wall time. As root with cgroup v1's cpuacct controller each command runs
in a cpuacct cgroup of its own, which counts them all; elsewhere the busy CPU of the whole
machine around packlab, and the children's resource usage for nbgrader, stand in (said so).

Where packlab's time goes: benchmarks/grading_costs.py.

Run: .venv/bin/python benchmarks/grading.py [--students N] [--quick] [--keep] [--no-nbgrader]
                                           [--assignments 01-total-tokens,02-greedy-pack,...]
                                           [--honest] [--before REV]

--honest hands in no broken notebook (an endless loop costs nbgrader 30 s a cell, which flatters
packlab); --before REV grades the same class with commit REV's grader just before this
checkout's, for a before/after in one run against the same nbgrader time.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat

from autograder.checks import example_cache, gallery
from autograder.run.isolation import Limits
from packlab.course.release import BIN, NBGRADER, nbgrader_env, release
from packlab.manifest import ROOT, Exercise, load

TARGET_RATIO = 60.0  # × nbgrader's throughput
TARGET_RATE = 15.0  # notebooks per second
BROKEN = ("invalid-json", "syntax-error", "missing-function", "endless-loop")


def answer_cell(notebook, exercise: Exercise):
    answer_id = exercise.grade_id("answer")
    return next(c for c in notebook.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id)


def with_answer(exercise: Exercise, code: str | None):
    """The released notebook with its answer cell replaced (None: the reference solution)."""
    if code is None:
        return nbformat.read(exercise.source, as_version=4)
    notebook = nbformat.read(exercise.release, as_version=4)
    answer_cell(notebook, exercise).source = code
    return notebook


def broken(exercise: Exercise, kind: str):
    """A notebook (or, for invalid JSON, the text of a file) that is broken in one way."""
    f = exercise.function
    reference = answer_cell(nbformat.read(exercise.source, as_version=4), exercise).source
    if kind == "invalid-json":
        return '{"cells": [ this is not a notebook'
    if kind == "syntax-error":
        return with_answer(exercise, f"def {f}(parts, budget=None)\n    return None\n")
    if kind == "missing-function":
        return with_answer(exercise, reference.replace(f"def {f}(", f"def my_{f}(", 1))
    if kind == "endless-loop":
        return with_answer(exercise, f"def {f}(*args):\n    while True:\n        pass\n")
    raise ValueError(kind)


def make_class(submitted: Path, n: int, exercises: list[Exercise],
               honest: bool = False) -> dict[tuple[str, str], str]:
    """Write every student's notebooks; return (student, assignment) -> what was handed in.
    An ``honest`` class hands in no broken notebook: right and wrong answers only."""
    mutants = {e.name: [m for m in gallery.every()
                        if m.suite == e.suite and m.key != e.starter] for e in exercises}
    kinds = {}
    for k, exercise in enumerate(exercises):
        # The four broken kinds land on students spread over the class, a different one for
        # each assignment; of the others, one in four hands in the reference solution.
        broken_at = {} if honest else {(k + m * max(1, n // 4)) % n: kind
                                       for m, kind in enumerate(BROKEN)}
        good = wrong = 0
        for j in range(n):
            student = f"s{j + 1:03d}"
            if j in broken_at:
                kind = broken_at[j]
                notebook = broken(exercise, kind)
            elif good % 4 == 0:
                kind, notebook = "right", with_answer(exercise, None)
                good += 1
            elif not mutants[exercise.name]:  # no gallery yet: the untouched release
                kind, notebook = "wrong: release", nbformat.read(exercise.release, as_version=4)
                good += 1
            else:
                mutant = mutants[exercise.name][wrong % len(mutants[exercise.name])]
                kind, notebook = f"wrong: {mutant.name}", with_answer(exercise, mutant.code)
                good += 1
                wrong += 1
            path = submitted / student / exercise.name / f"{exercise.name}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(notebook, str):
                path.write_text(notebook)
            else:
                nbformat.write(notebook, path)
            kinds[student, exercise.name] = kind
    return kinds


CPUACCT = Path("/sys/fs/cgroup/cpuacct")


class Meter:
    """The CPU-seconds one command and every process it starts spend: a cpuacct cgroup of its
    own (root, cgroup v1), else the children's resource usage (``how`` says which; that misses
    a process its parent never waits for, as packlab's sandboxes, killed outright, are)."""

    def __init__(self):
        self._group: Path | None = None
        if os.geteuid() == 0 and (CPUACCT / "cpuacct.usage").is_file():
            try:
                self._group = Path(tempfile.mkdtemp(prefix="packlab-bench-", dir=CPUACCT))
            except OSError:
                self._group = None
        self.how = "cpuacct cgroup" if self._group else "children's resource usage"

    def preexec(self) -> None:
        """In the command's process, before it runs: join the cgroup."""
        if self._group is not None:
            (self._group / "cgroup.procs").write_text(str(os.getpid()))

    def join(self) -> None:
        """Count this process too, from now on (and what it starts); `leave` before `close`."""
        self.preexec()
        self._own = self._self()

    def leave(self) -> float | None:
        """Stop counting this process; the CPU-seconds of what it started meanwhile (not its
        own), or None without a cgroup."""
        if self._group is None:
            return None
        others = self._used() - (self._self() - self._own)
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        return others

    @staticmethod
    def _self() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def run(self, command: list[str], **kwargs) -> subprocess.CompletedProcess:
        before = self._children()
        done = subprocess.run(command, preexec_fn=self.preexec, **kwargs)
        self.seconds = self._used() if self._group else self._children() - before
        return done

    def _used(self) -> float:
        return int((self._group / "cpuacct.usage").read_text()) / 1e9

    @staticmethod
    def _children() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def close(self) -> None:
        if self._group is not None:
            with contextlib.suppress(OSError):
                self._group.rmdir()


@contextlib.contextmanager
def metered() -> Iterator[Meter]:
    meter = Meter()
    try:
        yield meter
    finally:
        meter.close()


def machine_cpu() -> float:
    """Seconds of CPU the whole machine has spent busy (every core, every process) since boot:
    the sandboxed workers are counted too, which a child's resource usage leaves out."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def run_packlab(course: Path, out: Path, code: Path | None = None) -> tuple[float, dict, float]:
    """``packlab grade --jobs 2``; with ``code``, the grader of that source tree (`older`).
    Returns its time, its grades.csv rows and its CPU-seconds, sandboxes included."""
    command = [str(BIN / "packlab"), "grade", "submitted", "--out", str(out), "--jobs", "2"]
    env = {**os.environ, "PYTHONPATH": f"{code}:{code / 'src'}"} if code else None
    with metered() as meter:
        start, busy = time.perf_counter(), machine_cpu()
        done = meter.run(command, cwd=course, capture_output=True, text=True, env=env)
        seconds, busy = time.perf_counter() - start, machine_cpu() - busy
    cpu = meter.seconds
    if done.returncode not in (0, 1) or not (out / "grades.csv").is_file():
        sys.exit(f"packlab grade failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    with open(out / "grades.csv", newline="") as handle:
        rows = {(r["student"], r["assignment"]): r for r in csv.DictReader(handle)}
    said = next((line for line in done.stdout.splitlines() if line.startswith("Graded")), "")
    print(f"  packlab {' '.join(command[1:])}: exit {done.returncode}, {seconds:.1f} s; {said}")
    cores = os.cpu_count() or 1
    print(f"  the whole machine was busy {busy:.1f} s of CPU meanwhile ({busy / seconds:.2f} of "
          f"its {cores} cores); at full use of every core that work alone takes "
          f"{busy / cores:.1f} s")
    notebooks = len(rows)
    print(f"  CPU-seconds of packlab grade and every process it started: {cpu:.1f} s "
          f"({1000 * cpu / notebooks:.0f} ms per row of grades.csv; {meter.how}"
          f"{'' if meter.how == 'cpuacct cgroup' else ': the sandboxes are not counted'})")
    return seconds, rows, cpu


def older(rev: str, into: Path) -> Path:
    """Commit ``rev``'s source tree, unpacked under ``into`` (run by this venv's Python)."""
    tree = into / f"code-{rev}"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def run_nbgrader(course: Path, exercises: list[Exercise]) -> tuple[float, dict[str, str], float]:
    """``nbgrader autograde`` of each assignment: its time, its logs and its CPU-seconds (its
    kernels included)."""
    seconds, logs, cpu = 0.0, {}, 0.0
    for exercise in exercises:
        command = [str(NBGRADER), "autograde", exercise.name, "--force",
                   "--Autograde.create_student=True"]
        with metered() as meter:
            start = time.perf_counter()
            done = meter.run(command, cwd=course, env=nbgrader_env(), capture_output=True,
                             text=True)
            took = time.perf_counter() - start
        seconds += took
        cpu += meter.seconds
        logs[exercise.name] = done.stdout + done.stderr
        print(f"  nbgrader autograde {exercise.name} --force: exit {done.returncode}, "
              f"{took:.1f} s, {meter.seconds:.1f} CPU-s ({meter.how})", flush=True)
    return seconds, logs, cpu


def nbgrader_scores(course: Path, exercises: list[Exercise], students: list[str]) -> dict:
    """(student, assignment) -> score, or None when nbgrader has no graded submission."""
    from nbgrader.api import Gradebook, MissingEntry

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
        for exercise in exercises:
            for student in students:
                try:
                    submission = gb.find_submission(exercise.name, student)
                except MissingEntry:
                    scores[student, exercise.name] = None
                    continue
                graded = (course / "autograded" / student / exercise.name
                          / f"{exercise.name}.ipynb").is_file()
                scores[student, exercise.name] = submission.score if graded else None
    return scores


def load_average() -> str:
    """The load average (1, 5, 15 min), in words."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def before_packlab(rev: str, course: Path) -> tuple[float, dict, float]:
    """Grade the class with commit ``rev``'s grader, its examples stored first (not timed)."""
    code = older(rev, course)
    subprocess.run([sys.executable, "-c", "from autograder.checks import example_cache; "
                    "example_cache.prepare()"], check=True,
                   env={**os.environ, "PYTHONPATH": f"{code}:{code / 'src'}"})
    print(f"packlab at {rev} (load average {load_average()}):", flush=True)
    return run_packlab(course, course / "graded-before", code)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="a small class (8 students)")
    parser.add_argument("--keep", action="store_true", help="keep the course directory")
    parser.add_argument("--assignments", help="comma-separated assignment names "
                        "(default: every exercise in course.toml)")
    parser.add_argument("--no-nbgrader", action="store_true",
                        help="time packlab alone (no ratio, no comparison of scores)")
    parser.add_argument("--honest", action="store_true",
                        help="no broken notebooks: every student hands in a right or wrong answer")
    parser.add_argument("--before", metavar="REV",
                        help="also grade with commit REV's grader, just before this one's")
    args = parser.parse_args()
    n = 8 if args.quick else args.students
    course_ = load()
    exercises = ([course_.exercise(name) for name in args.assignments.split(",")]
                 if args.assignments else course_.exercises)

    course = Path(tempfile.mkdtemp(prefix="packlab-bench-"))
    try:
        shutil.copy(ROOT / "nbgrader_config.py", course)
        for exercise in exercises:
            shutil.copytree(ROOT / "solutions" / exercise.name,
                            course / "solutions" / exercise.name)
            release(exercise.name, course)
        kinds = make_class(course / "submitted", n, exercises, args.honest)
        students = sorted({s for s, _ in kinds})
        notebooks = len(kinds)
        print(f"class: {n} students × {len(exercises)} assignments = {notebooks} notebooks in "
              f"{course / 'submitted'}")
        tally = {}
        for kind in kinds.values():
            key = "wrong (gallery)" if kind.startswith("wrong") else kind
            tally[key] = tally.get(key, 0) + 1
        print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.items())))
        limits = Limits()
        print(f"time limits: each tool's defaults (nbgrader 30 s per cell; packlab "
              f"{limits.call_cpu_seconds:g} s of CPU and {limits.call_seconds:g} s in all per "
              f"call, {limits.setup_seconds:g} s setup, {limits.restarts} restarts)")

        start = time.perf_counter()
        drawn = example_cache.prepare()
        print(f"property examples: {f'{drawn} checks drawn and stored' if drawn else 'stored'} "
              f"({time.perf_counter() - start:.1f} s, as `make release` does; not counted)")
        before = args.before and before_packlab(args.before, course)
        print(f"packlab (load average {load_average()}):", flush=True)
        packlab_s, ours, packlab_cpu = run_packlab(course, course / "graded")
        if before:
            differ = [key for key, row in ours.items()
                      if (row["status"], row["score"]) != (before[1][key]["status"],
                                                           before[1][key]["score"])]
            print(f"scores of {args.before} and of this checkout: "
                  f"{f'{len(differ)} DIFFER' if differ else 'identical'}")
        rate = notebooks / packlab_s
        if before:
            print(f"before ({args.before}): {before[0]:.1f} s, {before[2]:.1f} CPU-s "
                  f"({1000 * before[2] / notebooks:.0f} ms per notebook); this checkout: "
                  f"{packlab_s:.1f} s, {packlab_cpu:.1f} CPU-s "
                  f"({1000 * packlab_cpu / notebooks:.0f} ms per notebook): "
                  f"{before[0] / packlab_s:.2f}× the wall rate, "
                  f"{before[2] / packlab_cpu:.2f}× less CPU")
        if args.no_nbgrader:
            print(f"packlab seconds:    {packlab_s:.1f}  ({rate:.2f} notebooks/s; target ≥ "
                  f"{TARGET_RATE:g}: {'met' if rate >= TARGET_RATE else 'NOT met'})")
            print("load average (1, 5, 15 min) at the end: "
                  + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
            return 0
        print("nbgrader:", flush=True)
        nbgrader_s, logs, nbgrader_cpu = run_nbgrader(course, exercises)
        theirs = nbgrader_scores(course, exercises, students)

        mismatches, not_graded = [], []
        for (student, assignment), kind in sorted(kinds.items()):
            row = ours[student, assignment]
            mine = float(row["score"]) if row["status"] == "graded" else None
            other = theirs[student, assignment]
            if mine is None or other is None:
                not_graded.append((student, assignment, kind, mine, other, row["reason"]))
            if (mine or 0.0) != (other or 0.0) or (mine is None) != (other is None):
                mismatches.append((student, assignment, kind, mine, other))
        if not_graded:
            print("not graded (compared as 0 / not graded):")
            for student, assignment, kind, mine, other, reason in not_graded:
                print(f"  {student} {assignment} [{kind}]: packlab "
                      f"{'not graded' if mine is None else mine}, nbgrader "
                      f"{'not graded' if other is None else other} — {reason[:70]}")
        if mismatches:
            print(f"MISMATCHES ({len(mismatches)}):")
            print(f"  {'student':<8} {'assignment':<18} {'submission':<32} packlab  nbgrader")
            for student, assignment, kind, mine, other in mismatches:
                print(f"  {student:<8} {assignment:<18} {kind:<32} {mine!s:>7}  {other!s:>8}")
        else:
            print(f"scores: identical for all {notebooks} (student, assignment) pairs")

        ratio = nbgrader_s / packlab_s
        if before:
            print(f"before ({args.before}): {before[0]:.1f} s ({notebooks / before[0]:.2f} "
                  f"notebooks/s), {nbgrader_s / before[0]:.1f}× nbgrader's throughput")
        print("load average (1, 5, 15 min) at the end: "
              + ", ".join(f"{x:.1f}" for x in os.getloadavg())
              + f" on {os.cpu_count()} cores (other work on the machine slows both graders)")
        print(f"notebooks:          {notebooks}")
        print(f"nbgrader seconds:   {nbgrader_s:.1f}  ({notebooks / nbgrader_s:.2f} notebooks/s)")
        print(f"packlab seconds:    {packlab_s:.1f}  ({rate:.2f} notebooks/s; target ≥ "
              f"{TARGET_RATE:g}: {'met' if rate >= TARGET_RATE else 'NOT met'})")
        print(f"ratio:              {ratio:.1f}× nbgrader's throughput "
              f"(target ≥ {TARGET_RATIO:g}×: {'met' if ratio >= TARGET_RATIO else 'NOT met'})")
        print(f"CPU-seconds:        nbgrader {nbgrader_cpu:.1f} "
              f"({1000 * nbgrader_cpu / notebooks:.0f} ms per notebook), packlab "
              f"{packlab_cpu:.1f} ({1000 * packlab_cpu / notebooks:.0f} ms per notebook): "
              f"nbgrader spends {nbgrader_cpu / packlab_cpu:.1f}× packlab's CPU (other work "
              "distorts this less than the wall-time ratio)")
        (course / "bench.json").write_text(json.dumps({
            "notebooks": notebooks, "nbgrader_s": nbgrader_s, "packlab_s": packlab_s,
            "nbgrader_cpu_s": nbgrader_cpu, "packlab_cpu_s": packlab_cpu,
            "mismatches": len(mismatches)}))
        return 1 if mismatches else 0
    finally:
        if args.keep:
            print(f"kept {course}")
        else:
            shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
