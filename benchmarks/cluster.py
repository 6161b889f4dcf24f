"""Grading a class here and on a Dask cluster (a script, not a test).

The class of benchmarks/grading.py (right answers, gallery mutants and broken notebooks for every
assignment) is graded twice through the real command: ``packlab grade --jobs 2`` on this machine,
then ``packlab grade --scheduler`` on a LocalCluster of two worker processes with one thread
each. It prints both times and throughputs, and checks that both runs wrote the same grades.csv.
On one machine the cluster only adds its overhead (sending each notebook, the workers' checks);
it pays off with more machines.

Run: .venv/bin/python benchmarks/cluster.py [--students N] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grading import make_class  # benchmarks/grading.py: the same class

from packlab.manifest import load

PACKLAB = Path(sys.executable).parent / "packlab"


def grade(submitted: Path, out: Path, *where: str) -> float:
    """Seconds `packlab grade` took (exits when it could not grade)."""
    command = [str(PACKLAB), "grade", str(submitted), "--out", str(out), *where]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1) or not (out / "grades.csv").is_file():
        sys.exit(f"packlab grade failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    said = next((line for line in done.stdout.splitlines() if line.startswith("Graded")), "")
    print(f"  packlab grade ... {' '.join(where)}: exit {done.returncode}, {seconds:.1f} s; {said}",
          flush=True)
    return seconds


def main() -> int:
    from distributed import LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--keep", action="store_true", help="keep the class and both results")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="packlab-cluster-bench-"))
    try:
        notebooks = len(make_class(folder / "submitted", args.students, list(load().exercises)))
        print(f"class: {args.students} students, {notebooks} notebooks", flush=True)
        print("here (--jobs 2):", flush=True)
        here = grade(folder / "submitted", folder / "here", "--jobs", "2")
        start = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=":0") as local:
            started = time.perf_counter() - start
            print(f"cluster (2 workers × 1 thread, started in {started:.1f} s, not counted):",
                  flush=True)
            there = grade(folder / "submitted", folder / "there", "--scheduler",
                          local.scheduler_address)
        same = (folder / "here" / "grades.csv").read_bytes() == \
            (folder / "there" / "grades.csv").read_bytes()
        print("load average (1, 5, 15 min) at the end: "
              + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores")
        print(f"notebooks:        {notebooks}")
        print(f"here seconds:     {here:.1f}  ({notebooks / here:.2f} notebooks/s)")
        print(f"cluster seconds:  {there:.1f}  ({notebooks / there:.2f} notebooks/s)")
        print(f"grades.csv:       {'identical' if same else 'DIFFERENT'}")
        return 0 if same else 1
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
