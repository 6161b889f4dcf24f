"""Where grading a class spends its time (a script, not a test).

Lays out the class of `benchmarks/grading.py` (N students × every assignment), then grades every
notebook one after the other in this one process, sandboxed, as one `packlab grade` worker
process would, while a timer notes every 2 ms what the grader is doing:

* example generation: Hypothesis drawing each property check's examples (once per process);
* example cache: reading the stored examples instead (`autograder.checks.example_cache`);
  both are done before the timing starts, as `packlab grade` does before it starts its grading
  processes, so these stay at zero unless a check draws its own;
* search and shrink: the real Hypothesis search for a first failure, its calls included;
* sandbox start: starting bubblewrap and the worker, and running the notebook's cells;
* calls: the student's function called through the pipe (the worker's answer included);
* reading notebooks: parsing the submission and reading its code;
* the rest: the trusted side itself (the course's answers, comparisons, messages), and of it
  the calls ahead: working out the calls a replay will make, to send them at once.

Each phase gets its wall-clock time and the grading process's own CPU time in it (the rest of
the wall time is waiting: for the worker, for the sandbox, or for a loaded machine).

It also counts the messages sent down the pipe (each one a round trip), and, where it can put
itself in a cpuacct cgroup (root, cgroup v1), the CPU-seconds of the other side: the sandboxes
(bubblewrap, the worker, the student's code), per notebook. Shares are of the sampled time; the
profiler costs a few per cent.

Run: .venv/bin/python benchmarks/grading_costs.py [--students N] [--honest]
To measure older code: PYTHONPATH=OLD:OLD/src .venv/bin/python benchmarks/grading_costs.py,
run from outside the worktree (this script only uses `engine.grade_submission`).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from autograder.checks import example_cache
from autograder.run import engine, sandbox
from autograder.run.isolation import require_sandbox
from packlab.manifest import load

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading import make_class, metered  # noqa: E402 - the benchmark class, laid out the same way

# (file name, function name) of a frame -> what the grader is doing; the outermost such frame
# of the stack wins, except for calls (`INNER`), counted wherever they happen outside a search.
PHASES = {
    ("suite.py", "examples"): "example generation",  # before the store
    ("suite.py", "generate"): "example generation",
    ("example_cache.py", "read"): "example cache",
    ("suite.py", "search"): "search and shrink",
    ("sandbox.py", "_start"): "sandbox start",
    ("submission.py", "read"): "reading notebooks",
}
INNER = {("sandbox.py", "call"): "calls", ("sandbox.py", "expect"): "calls",
         ("suite.py", "first_call"): "the rest: calls ahead"}
ORDER = ["example generation", "example cache", "search and shrink", "sandbox start", "calls",
         "reading notebooks", "the rest: calls ahead", "the rest"]


def classify(frame) -> str:
    """What the stack ending in ``frame`` is doing (see `PHASES`)."""
    outer, inner = None, None
    while frame is not None:
        key = (Path(frame.f_code.co_filename).name, frame.f_code.co_name)
        if key in PHASES and not (key == ("suite.py", "search")
                                  and "transcript" not in frame.f_code.co_varnames):
            outer = PHASES[key]
        if key in INNER and inner is None:
            inner = INNER[key]
        frame = frame.f_back
    if outer in ("search and shrink", "example generation", "example cache", "sandbox start"):
        return outer
    return inner or outer or "the rest"


class Sampler:
    """Every ``interval`` seconds of wall-clock time (a timer signal, taken in this thread, so
    no second thread runs beside the sandbox's fork), what is being done, weighted by the wall
    and CPU time since the last sample."""

    def __init__(self, interval: float = 0.002):
        self.interval = interval
        self.seconds: Counter[str] = Counter()
        self.cpu: Counter[str] = Counter()

    def start(self) -> None:
        self._last = time.perf_counter(), time.thread_time()
        signal.signal(signal.SIGALRM, self._sample)
        signal.setitimer(signal.ITIMER_REAL, self.interval, self.interval)

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    def _sample(self, signum, frame) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        phase = classify(frame)
        self.seconds[phase] += now - self._last[0]
        self.cpu[phase] += cpu - self._last[1]
        self._last = now, cpu


def count_messages() -> Counter:
    """Count every message the grader writes down a worker's pipe."""
    counts: Counter[str] = Counter()
    name = "_write" if hasattr(sandbox.Sandbox, "_write") else "_send"  # before: one per call
    send = getattr(sandbox.Sandbox, name)

    def counted(self, message, *args, **kwargs):
        counts[classify(sys._getframe(1))] += 1
        return send(self, message, *args, **kwargs)

    setattr(sandbox.Sandbox, name, counted)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--honest", action="store_true",
                        help="no broken notebooks (see benchmarks/grading.py)")
    args = parser.parse_args()
    require_sandbox()
    exercises = load().exercises
    folder = Path(tempfile.mkdtemp(prefix="packlab-costs-"))
    try:
        kinds = make_class(folder, args.students, exercises, args.honest)
        example_cache.prepare()  # read (or drawn and stored) before timing, as `packlab grade`
        by_name = {e.name: e for e in exercises}
        counts = count_messages()
        sampler = Sampler()
        with metered() as meter:
            meter.join()
            sampler.start()
            start, cpu = time.perf_counter(), time.process_time()
            for (student, assignment) in sorted(kinds):
                path = folder / student / assignment / f"{assignment}.ipynb"
                engine.grade_notebook(path, by_name[assignment], student)
            total, cpu = time.perf_counter() - start, time.process_time() - cpu
            sampler.stop()
            sandboxes = meter.leave()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sampled = sum(sampler.seconds.values())
    print(f"graded {len(kinds)} notebooks one after the other in one process: {total:.1f} s "
          f"({len(kinds) / total:.2f} notebooks/s)")
    messages = sum(counts.values())
    print(f"messages down the pipe (round trips): {messages:,} "
          f"({messages / len(kinds):.0f} per notebook)")
    print(f"  {'':<20} {'wall':>9}  {'share':>6}  {'grader CPU':>10}  {'messages':>8}")
    for phase in ORDER:
        seconds = sampler.seconds.get(phase, 0.0)
        print(f"  {phase:<20} {seconds:7.2f} s  {100 * seconds / sampled:5.1f} %  "
              f"{sampler.cpu.get(phase, 0.0):8.2f} s  {counts.get(phase, 0):8,}")
    print(f"  {'total':<20} {sampled:7.2f} s  {100:5.1f} %  "
          f"{sum(sampler.cpu.values()):8.2f} s")
    each = 1000 / len(kinds)
    print(f"CPU-seconds: the grading process {cpu:.2f} s ({cpu * each:.0f} ms per notebook)"
          + ("" if sandboxes is None else
             f", the sandboxes {sandboxes:.2f} s ({sandboxes * each:.0f} ms per notebook), "
             f"both {cpu + sandboxes:.2f} s ({(cpu + sandboxes) * each:.0f} ms per notebook)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
