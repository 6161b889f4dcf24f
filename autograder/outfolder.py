"""The grader's output folder: where each file of a class's results goes, written whole.

OUT/grades.csv and the class's summaries are at the top; each submission's files are in
OUT/students/<student>/<assignment>/ (`submission_folder`), so no student's folder name can
collide with the class's files; hand-ins set aside as forged are kept in
OUT/set-aside/<student>/<assignment>/ (`set_aside_folder`). Used by the class layer that writes
them and the term layer that reads them back (gradebook, bundles).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

STUDENTS = "students"  # OUT/students/<student>/<assignment>/{feedback.html,results.json}
NO_SUBMISSION = "no submission"  # a grades.csv row's reason when nothing was handed in
SET_ASIDE = "set aside"  # a grades.csv row's status when its hand-in was set aside as forged
ASIDE = "set-aside"  # OUT/set-aside/: the forged hand-ins taken out of SUBMITTED, and their record


def write_atomically(path: Path, text: str) -> None:
    """Write a whole file or nothing: a killed run never leaves half a file behind.

    Text that cannot be UTF-8 (a lone surrogate from an undecodable file name) is written
    with a backslash escape, never an error.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(text)
    os.replace(tmp, path)


def submission_folder(out: Path, student: str, assignment: str) -> Path:
    """OUT/students/<student>/<assignment>: where one submission's files are written.

    Each name must be one path component (as folder names are); anything else is refused.
    """
    return out / STUDENTS / _component(student) / _component(assignment)


def set_aside_folder(out: Path, student: str, assignment: str) -> Path:
    """OUT/set-aside/<student>/<assignment>: where the forged hand-ins of one submission are
    kept (each in a folder named as in the exchange)."""
    return out / ASIDE / _component(student) / _component(assignment)


def _component(name: str) -> str:
    """``name``, which must be one path component (as folder names are); else ValueError."""
    if not name or name in (".", "..") or "/" in name or "\0" in name or os.sep in name:
        raise ValueError(f"not a folder name: {name!r}")
    return name


def remove_partial(out: Path) -> list[Path]:
    """Delete the temp files a killed run left (never read as results); return them."""
    if not out.is_dir():
        return []
    found = [p for pattern in (".results.json.*", ".feedback.html.*", ".graded.json.*")
             for p in out.glob(f"{STUDENTS}/*/*/{pattern}")]
    found += [p for pattern in (".grades.csv.*", ".summary.md.*", ".misconceptions.csv.*",
                                ".class.json.*", ".class.png.*") for p in out.glob(pattern)]
    found = [p for p in found if p.is_file() and not p.is_symlink()]
    for path in found:
        path.unlink(missing_ok=True)
    return found
