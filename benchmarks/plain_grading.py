"""How long a plain nbgrader class takes: `nbgrader autograde` against `packlab grade` (a script,
not a test).

Builds the class of tests/test_plain_parity.py (five plain assignments, 14 submissions, one with
an endless loop under a 5 s per-cell timeout) in a temporary course folder, then times nbgrader's
autograde of every assignment and packlab's grade of the whole class on the same files, in the
same run, with the load average beside them (the machine may be shared: compare the ratio).

Run: .venv/bin/python benchmarks/plain_grading.py
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests" / "test_plain_parity.py"


def parity_module():
    spec = importlib.util.spec_from_file_location("plain_parity", TESTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(parity, course: Path, argv: list[str]) -> float:
    start = time.monotonic()
    done = parity.run(course, *argv)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return time.monotonic() - start


def main() -> None:
    parity = parity_module()
    with tempfile.TemporaryDirectory() as folder:
        course = parity.course_folder(Path(folder) / "course")
        theirs = sum(timed(parity, course, [str(parity.NBGRADER), "autograde", name, "--force",
                                            "--Autograde.create_student=True"])
                     for name in parity.ASSIGNMENTS)
        ours = timed(parity, course, [str(parity.BIN / "packlab"), "grade", "submitted",
                                      "--out", "out"])
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{len(parity.HANDED_IN)} submissions of {len(parity.ASSIGNMENTS)} plain assignments")
    print(f"nbgrader autograde: {theirs:.1f} s; packlab grade: {ours:.1f} s "
          f"(ratio {ours / theirs:.2f}); load average {load}")


if __name__ == "__main__":
    main()
