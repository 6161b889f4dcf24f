"""The grader's own limits: its memory and time on hostile submissions (a script, not a test).

Three classes, each graded by `packlab grade --jobs 1` under GNU time (`/usr/bin/time -v`, which
reports the largest resident set of the grading processes):

* four students whose `pack` returns an 8 MB answer, wrong for every call (so each gets a
  Hypothesis search, which the grader remembers to replay for the next student);
* one notebook just over the 16 MB limit (refused before it is read);
* one notebook just under it, of 100,000 one-line cells (read, parsed and run).

Run: .venv/bin/python benchmarks/trusted_side.py [--keep]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.run import submission
from autograder.run.handed_in import NOTEBOOK_BYTES
from packlab.course.release import BIN
from packlab.manifest import load

PACK = load().exercise("02")
HUGE_ANSWER = '''
def pack(parts, budget):
    return ["{letter}" * 8_000_000]  # 8 MB, and wrong for every call
'''


def notebook(code: str | None = None):
    """The released notebook with ``code`` as its answer (None: the reference answer)."""
    if code is None:
        return nbformat.read(PACK.source, as_version=4)
    found = nbformat.read(PACK.release, as_version=4)
    for cell in found.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == PACK.grade_id("answer"):
            cell.source = code
    return found


def hand_in(submitted: Path, student: str, content) -> Path:
    path = submitted / student / PACK.name / f"{PACK.name}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(content, path)
    return path


def four_huge_answers(submitted: Path) -> None:
    for letter in "abcd":
        hand_in(submitted, letter, notebook(HUGE_ANSWER.replace("{letter}", letter)))


def over_the_limit(submitted: Path) -> None:
    path = hand_in(submitted, "over", notebook())
    with path.open("ab") as handle:  # valid JSON is not needed: it is never read
        handle.truncate(NOTEBOOK_BYTES + 1)
    started = time.perf_counter()
    try:
        submission.read(path, PACK)
    except submission.Ungradable as refused:
        print(f"refused in {(time.perf_counter() - started) * 1000:.2f} ms: {refused}")


def many_cells(submitted: Path) -> None:
    found = notebook()
    found.cells += [nbformat.v4.new_code_cell("x = 1") for _ in range(100_000)]
    path = hand_in(submitted, "many", found)
    size = path.stat().st_size
    assert size <= NOTEBOOK_BYTES, f"{size:,} bytes: make fewer cells"


def graded(name: str, build, base: Path) -> None:
    submitted, out = base / name / "submitted", base / name / "out"
    build(submitted)
    sizes = sum(p.stat().st_size for p in submitted.rglob("*.ipynb"))
    command = ["/usr/bin/time", "-v", str(BIN / "packlab"), "grade", str(submitted),
               "--out", str(out), "--jobs", "1"]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - started
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    rows = (out / "grades.csv").read_text().splitlines()[1:]
    print(f"{name}: {sizes / (1 << 20):.1f} MB of notebooks, exit {done.returncode}, "
          f"{seconds:.1f} s, peak resident set {peak / 1024:.0f} MB")
    for row in rows:
        print(f"  {row[:160]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the classes and results")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="packlab-trusted-"))
    try:
        graded("four 8 MB answers", four_huge_answers, base)
        graded("a notebook over 16 MB", over_the_limit, base)
        graded("100,000 cells under 16 MB", many_cells, base)
    finally:
        if args.keep:
            print(f"kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
