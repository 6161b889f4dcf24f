"""How long the exercises' notebooks take to run top to bottom (a script, not a test).

Runs each exercise's nbgrader source (its reference answer, its visible and hidden test cells)
with nbclient in a fresh kernel, as a self-paced learner in the course's own install runs it
(Run All) and as `nbgrader autograde` does: kernel start, imports and every test cell. One run
each; prints the seconds per notebook and in all.

Run: .venv/bin/python benchmarks/notebook_tests.py
"""

from __future__ import annotations

import time

import nbformat
from nbclient import NotebookClient

from packlab.manifest import load


def main() -> int:
    total = 0.0
    for exercise in load().exercises:
        notebook = nbformat.read(exercise.source, as_version=4)
        start = time.perf_counter()
        NotebookClient(notebook, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(exercise.source.parent)}}).execute()
        seconds = time.perf_counter() - start
        total += seconds
        print(f"{exercise.name:<20} {seconds:5.2f} s")
    print(f"{'in all':<20} {total:5.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
