"""How long a learner waits for `packlab check` (a script, not a test).

Times the whole command, process start to exit, on exercise 02 with a right answer: what a
learner sees between pressing Enter and reading the verdict. Median of ``--runs`` runs.

Run: .venv/bin/python benchmarks/check.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from packlab.manifest import load


def right_answer(folder: Path) -> Path:
    """Exercise 02 as the nbgrader source has it (its reference answer in the answer cell)."""
    exercise = load().exercise("02")
    path = folder / f"{exercise.name}.ipynb"
    nbformat.write(nbformat.read(exercise.source, as_version=4), path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    packlab = Path(sys.executable).parent / "packlab"
    with tempfile.TemporaryDirectory() as folder:
        notebook = right_answer(Path(folder))
        times = []
        for _ in range(runs + 1):  # the first run warms the file cache and is not counted
            start = time.perf_counter()
            done = subprocess.run([packlab, "check", notebook], capture_output=True)
            times.append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(done.stdout.decode() + done.stderr.decode())
    print(f"packlab check on exercise 02, whole process, median of {runs} runs: "
          f"{statistics.median(times[1:]):.2f} s")


if __name__ == "__main__":
    main()
