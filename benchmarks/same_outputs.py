"""Does this checkout grade exactly as an earlier revision did? (A script, not a test.)

It writes the benchmark class of `grading.py` (right, wrong, broken and looping answers to every
assignment), grades it with the grader of ``--rev`` (an archive of that commit, run from its own
source tree with this checkout's virtualenv) and with this checkout's, then compares every file
of the two output folders byte for byte: grades.csv, summary.md, class.json, class.png,
misconceptions.csv, and every submission's feedback.html, results.json and graded.json. In
graded.json, the grader's fingerprint (a hash of the grader's own files) and the time of grading
are expected to differ and are left out of the comparison; nothing else is.

Run: .venv/bin/python benchmarks/same_outputs.py --rev 3053472 [--students 40] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grading import make_class

from packlab.manifest import ROOT, load

EXPECTED_TO_DIFFER = ("grader", "graded_at")  # graded.json's keys that name the grader and time


def grade(python: str, tree: Path | None, submitted: Path, out: Path) -> None:
    """Grade ``submitted`` into ``out`` with the source ``tree`` (None: this checkout)."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = f"{tree / 'src'}:{tree}"
    done = subprocess.run([python, "-m", "packlab.course.cli", "grade", str(submitted), "--out",
                           str(out), "--jobs", "2"], env=env, capture_output=True, text=True,
                          cwd=tree or ROOT)
    if done.returncode not in (0, 1) or not (out / "grades.csv").is_file():
        sys.exit(f"grading with {tree or 'this checkout'} failed ({done.returncode}):\n"
                 f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def same(old: Path, new: Path) -> bool:
    """Whether two files say the same (graded.json: apart from the grader and the time)."""
    if old.name != "graded.json":
        return old.read_bytes() == new.read_bytes()
    records = [json.loads(path.read_text(encoding="utf-8")) for path in (old, new)]
    for record in records:
        for key in EXPECTED_TO_DIFFER:
            record.pop(key, None)
    return records[0] == records[1]


def compare(old: Path, new: Path) -> tuple[int, list[str]]:
    """How many files the new output has, and every path that differs or is in one only."""
    found = {p.relative_to(old) for p in old.rglob("*") if p.is_file()}
    made = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    differ = sorted(str(p) for p in found ^ made)
    differ += sorted(str(p) for p in found & made if not same(old / p, new / p))
    return len(made), differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", required=True, help="the earlier commit to compare with")
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--keep", action="store_true", help="keep the class and both outputs")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="packlab-same-"))
    try:
        tree = base / "earlier"
        tree.mkdir()
        archive = subprocess.run(["git", "archive", args.rev], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        make_class(base / "submitted", args.students, load().exercises)
        python = os.path.abspath(sys.executable)  # the virtualenv's, not the one it links to
        grade(python, tree, base / "submitted", base / "old")
        grade(python, None, base / "submitted", base / "new")
        files, differ = compare(base / "old", base / "new")
        print(f"{files} output files of {args.students} students x {len(load().exercises)} "
              f"assignments; differing from {args.rev}: {len(differ)}")
        for path in differ[:20]:
            print(f"  {path}")
        return 1 if differ else 0
    finally:
        if args.keep:
            print(f"kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
