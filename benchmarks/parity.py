"""The full parity comparison with real nbgrader (a script, not a test; in `make bench`).

`make test` hands one gallery mutant per assignment to both graders (a sample); this runs
tests/test_nbgrader_agrees.py with ``PACKLAB_PARITY=full``: every assignment's reference, release
(its visible test cell gutted) and PER_ASSIGNMENT mutants, graded by one `nbgrader autograde`
process and by packlab, score for score. Prints the notebooks compared and the wall-clock time;
exits non-zero when the graders disagree.

Run: .venv/bin/python benchmarks/parity.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ["PACKLAB_PARITY"] = "full"

# The tests' parity class says who hands in what.
from parity_class import EXERCISES, PER_ASSIGNMENT, students  # noqa: E402


def main() -> int:
    notebooks = sum(len(students(exercise)) for exercise in EXERCISES)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / "tests" / "test_nbgrader_agrees.py"), "-q",
         "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=ROOT)
    seconds = time.perf_counter() - start
    verdict = "agree" if done.returncode == 0 else "DISAGREE (see above)"
    print(f"parity with nbgrader, full: {len(EXERCISES)} assignments, {notebooks} notebooks "
          f"(up to {PER_ASSIGNMENT} mutants each), graders {verdict}, {seconds:.1f} s")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
