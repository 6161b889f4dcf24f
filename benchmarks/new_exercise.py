"""How long the new-exercise guide's commands take, from nothing to a graded class (a script,
not a test).

Copies the course (its files as git lists them, new ones included) into a temporary folder and
runs every ```bash block of book/instructors/new-exercise.md there, in order, with that copy's
code first on the path; prints each block's wall time and the total. The author's own writing
(filling in the functions) is the copying of the guide's prepared files here, so this is the
machine's share of the walk, not the author's.

Run: .venv/bin/python benchmarks/new_exercise.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from packlab.manifest import ROOT

GUIDE = ROOT / "book" / "instructors" / "new-exercise.md"


def copy_course(folder: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)


def main() -> None:
    blocks = re.findall(r"^```bash\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.M | re.S)
    with tempfile.TemporaryDirectory(prefix="packlab-new-exercise-") as temporary:
        course = Path(temporary) / "course"
        copy_course(course)
        env = {**os.environ, "PYTHONPATH": f"{course / 'src'}{os.pathsep}{course}",
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
        start = time.perf_counter()
        for block in blocks:
            began = time.perf_counter()
            done = subprocess.run(["bash", "-e", "-c", block], cwd=course, env=env,
                                  capture_output=True, text=True)
            print(f"{time.perf_counter() - began:6.1f} s  exit {done.returncode}  "
                  f"{block.splitlines()[0][:70]}", flush=True)
        print(f"from nothing to a graded class: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
