"""What a fresh sandbox costs per submission (a script, not a test).

Times starting one worker and answering its first call, `RUNS` times each way:
* bubblewrap: the sandbox every submission gets (`autograder.run.isolation`);
* no sandbox: the same worker as a plain process (`packlab grade --no-sandbox`).
The difference of the medians is the sandbox's start-up cost per submission.

Run: .venv/bin/python benchmarks/sandbox.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from autograder.run.isolation import Limits, require_sandbox
from autograder.run.sandbox import Sandbox

ANSWER = "def pack(parts, budget):\n    return [p['id'] for p in parts]\n"


def start_and_call(sandboxed: bool) -> float:
    """Seconds from nothing to the first answer, then the sandbox is torn down."""
    start = time.perf_counter()
    with Sandbox([ANSWER], Limits(), sandboxed=sandboxed) as box:
        box.call("pack", [[{"id": "sys", "tokens": 1}], 5])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    require_sandbox()
    who = "root" if os.geteuid() == 0 else "an ordinary user"
    medians = {}
    for sandboxed in (True, False):
        start_and_call(sandboxed)  # warm the file cache
        times = [start_and_call(sandboxed) for _ in range(runs)]
        medians[sandboxed] = statistics.median(times)
    print(f"start a worker and answer one call, median of {runs} runs, as {who}:")
    print(f"  in a bubblewrap sandbox: {medians[True] * 1000:.1f} ms")
    print(f"  without a sandbox:       {medians[False] * 1000:.1f} ms")
    print(f"  the sandbox's cost per submission: {(medians[True] - medians[False]) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
