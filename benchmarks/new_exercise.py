"""How long making an exercise takes, from nothing to a graded class (a script, not a test).

Two walks, each in its own temporary copy of the course (its files as git lists them, new ones
included) with that copy's code first on the path, under the first exercise number it has free:

- the guide: every ```bash block of book/instructors/new-exercise.md in order (the author's
  writing is the copying of the guide's prepared files);
- a must-raise exercise: tests/must_raise.py's walk (`packlab new-exercise --raises`, the
  author's writing into the files the guide names, release, record, `author check`, grading a
  class of five).

Prints each step's wall time, each walk's total and the load average before and after. The
author's own thinking is not in the figures: this is the machine's share of the walk.

Run: .venv/bin/python benchmarks/new_exercise.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from packlab.manifest import ROOT

sys.path.insert(0, str(ROOT / "tests"))

import must_raise  # noqa: E402 - tests/ holds the walk the test asserts
from guide_walk import (  # noqa: E402
    NEW_EXERCISE,
    bash_blocks,
    copy_course,
    environment,
    free_number,
    renumber_example,
    renumbered,
)


def timed(steps: list[tuple[str, str]], course: Path) -> float:
    """Run each (label, command) in ``course``; print its time; the total."""
    env = environment(course)
    total = 0.0
    for label, command in steps:
        began = time.perf_counter()
        done = subprocess.run(["bash", "-e", "-c", command], cwd=course, env=env,
                              capture_output=True, text=True)
        took = time.perf_counter() - began
        total += took
        print(f"{took:6.1f} s  exit {done.returncode}  {label[:70]}", flush=True)
    return total


def guide(course: Path) -> float:
    number = free_number(course / "course.toml")
    if number != "11":
        renumber_example(course, number)
    blocks = [renumbered(b.code, number) for b in bash_blocks(NEW_EXERCISE)]
    return timed([(b.splitlines()[0], b) for b in blocks], course)


def raising(course: Path) -> float:
    name = f"{free_number(course / 'course.toml')}-{must_raise.SLUG}"
    env = environment(course)
    began = time.perf_counter()

    def run(command: str) -> subprocess.CompletedProcess:
        start = time.perf_counter()
        done = subprocess.run(["bash", "-e", "-c", command], cwd=course, env=env,
                              capture_output=True, text=True)
        print(f"{time.perf_counter() - start:6.1f} s  exit {done.returncode}  "
              f"{command.split(' --')[0][:70]}", flush=True)
        return done

    must_raise.walk(course, name, run)
    return time.perf_counter() - began


def main() -> None:
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for title, walk in (("the guide's trim_history", guide),
                        ("a must-raise exercise", raising)):
        with tempfile.TemporaryDirectory(prefix="packlab-new-exercise-") as temporary:
            course = copy_course(Path(temporary) / "course")
            print(f"--- {title}")
            total = walk(course)
            print(f"{title}, from nothing to a graded class: {total:.1f} s "
                  f"({total / 60:.1f} min)")
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
