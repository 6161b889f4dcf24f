"""How much memory the grading machine gives a class with memory bombs in it (a script, not a test).

A class of exercise 02 submissions is graded with `packlab grade`'s own function: students whose
cells fork CHILDREN processes that each take up to the 1 GiB one process may have
(autograder/checks/attacks/memory_bomb_children.py), students who hoard 1.5 GiB in memfds
(hoards_memfds.py), and one honest student. While it grades, the whole machine's memory in use
(MemTotal - MemAvailable, /proc/meminfo) is read every 20 ms; the script prints its peak above
what was in use before grading, and every student's score.

The machine is the whole machine: whatever else runs on it counts too (say so with the figure).

Run: .venv/bin/python benchmarks/memory_bomb.py [--bombs N] [--children N] [--jobs N] [--watchdog]
To measure another version of the grader, put its tree first:
PYTHONPATH=OLD:OLD/src .venv/bin/python benchmarks/memory_bomb.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.cohort.classroom import grade_class
from autograder.run.isolation import Limits
from packlab.manifest import ROOT, load

sys.path.insert(0, str(ROOT / "tests"))
from conftest import submit, with_answer  # noqa: E402

ATTACKS = Path(__file__).resolve().parents[1] / "autograder" / "checks" / "attacks"
LIMITS = Limits(call_seconds=1, setup_seconds=5, submission_seconds=30)


def in_use() -> int:
    """Bytes of memory in use on the whole machine."""
    fields = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    kib = {key: int(value.split()[0]) for key, value in fields.items()}
    return (kib["MemTotal"] - kib["MemAvailable"]) * 1024


def class_of(folder: Path, bombs: int, children: int) -> Path:
    pack = load().exercise("02")
    bomb = (ATTACKS / "memory_bomb_children.py").read_text().replace(
        "def bomb(children=8)", f"def bomb(children={children})")
    memfds = (ATTACKS / "hoards_memfds.py").read_text()
    submitted = folder / "submitted"
    for number in range(bombs):
        submit(submitted, f"bomb{number}", pack, with_answer(pack, bomb))
        submit(submitted, f"memfds{number}", pack, with_answer(pack, memfds))
    submit(submitted, "honest", pack, with_answer(pack, None))
    return submitted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bombs", type=int, default=2, help="memory-bomb students (and as many "
                        "memfd hoarders)")
    parser.add_argument("--children", type=int, default=4, help="processes each bomb forks")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    parser.add_argument("--watchdog", action="store_true", help="bound memory with the "
                        "watchdog, as for an ordinary user, even where a cgroup could")
    args = parser.parse_args()
    if args.watchdog:
        from autograder.run import footprint

        footprint._own_cgroup = lambda: None  # the grading processes are forked: they keep it
    with tempfile.TemporaryDirectory(prefix="packlab-memory-bomb-") as tmp:
        submitted = class_of(Path(tmp), args.bombs, args.children)
        before, peak, done = in_use(), [0], threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], in_use())
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.monotonic()
        try:
            rows = grade_class(submitted, Path(tmp) / "out", jobs=args.jobs, limits=LIMITS)
        finally:
            done.set()
            sampler.join()
        seconds = time.monotonic() - started
    print(f"graded {args.bombs} bombs of {args.children} children and {args.bombs} memfd "
          f"hoarders, {args.jobs} at a time, in {seconds:.1f} s")
    print(f"memory in use before grading: {before / 2**30:.2f} GiB; peak while grading: "
          f"{peak[0] / 2**30:.2f} GiB; peak above before: {(peak[0] - before) / 2**30:.2f} GiB")
    for row in rows:
        if row["assignment"] == "02-greedy-pack":
            print(f"  {row['student']:>10}: {row['score']}/{row['max_score']} {row['reason']}")


if __name__ == "__main__":
    main()
