"""Feedback bundles: one folder (or zip) per student with every assignment's feedback.

From OUT/students/<student>/<assignment>/{feedback.html,results.json} (what `packlab grade`
writes) it makes FOLDER/<student>/<assignment>/ with both files and FOLDER/<student>/index.html,
which lists the assignments with their scores from OUT/grades.csv; or, zipped,
FOLDER/<student>.zip holding the same (index.html at its top).

Student and assignment names are hostile: each stays one path component (as
`outfolder.submission_folder` checks), is escaped in the index (`for_html`) and quoted in its
links. Inside a bundle an assignment name becomes a folder on the student's own machine, so a
name that cannot be a folder everywhere (Windows forbids ``\\ : * ? " < > |`` and control
characters) is not bundled, and is reported. Names are identities (`autograder.names`): a
student or assignment whose name could pass for another (a no-break space after it, a
zero-width character, a Cyrillic look-alike) is not bundled either, and is reported, so no
bundle can pass for a classmate's; each index looks its scores up in grades.csv by the exact
names (as grades.csv writes them, `for_csv`, which is one-to-one), and two rows of grades.csv
for one student and assignment are reported, never one silently taken over the other.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from autograder import names
from autograder.escape import for_csv, for_html
from autograder.outfolder import STUDENTS, submission_folder, write_atomically
from autograder.term.lms import InputError, read_grades

FILES = ("feedback.html", "results.json")
NOT_PORTABLE = re.compile(r'[\\:*?"<>|\x00-\x1f\x7f]')


@dataclass
class Bundles:
    """The bundles written and what was left out of them (each line plain text)."""

    written: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _folders(path: Path) -> list[str]:
    """The names of the real folders in ``path`` (no symlinks), sorted."""
    with os.scandir(path) as entries:
        return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))


def _portable(name: str) -> bool:
    """Whether ``name`` (an identity, `names.problem`) can be a folder on any system the
    student unpacks the bundle on."""
    return not NOT_PORTABLE.search(name) and name.strip(" .") != ""


TWICE = "grades.csv has more than one row for it"


def _grades(out: Path, problems: list[str]) -> dict[tuple[str, str], dict | None]:
    """grades.csv's rows by (student, assignment) cell, exactly as written; None for a pair
    that has more than one row (reported: neither row is taken over the other)."""
    rows: dict[tuple[str, str], dict | None] = {}
    for row in read_grades(out):
        key = (row["student"], row["assignment"])
        if key in rows and rows[key] is not None:
            problems.append(f"{key[0]} / {key[1]}: {TWICE}, so its score is left out of the "
                            "student's index")
            rows[key] = None
        elif key not in rows:
            rows[key] = row
    return rows


def _score(row: dict | None) -> str:
    if row is None:
        return "not in grades.csv"
    if row["status"] != "graded" and not (row.get("manual") or row.get("extra_credit")):
        return f"not graded: {row.get('reason') or row['status']}"
    return f"{row['score']} / {row['max_score']}"  # with the gradebook's manual grades


def _scored(grades: dict, student: str, assignment: str) -> str:
    key = (for_csv(student), for_csv(assignment))
    return TWICE if key in grades and grades[key] is None else _score(grades.get(key))


def index_html(student: str, entries: list[tuple[str, str]]) -> str:
    """The student's index page: each (assignment, score) linked to its feedback page."""
    esc = html.escape
    items = "".join(f"<tr><td><a href='./{esc(quote(name, safe=''))}/feedback.html'>"
                    f"{for_html(name)}</a></td><td>{esc(score)}</td></tr>"
                    for name, score in entries)
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
             "td,th{padding:.3em 1em;text-align:left}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Feedback for "
            f"{for_html(student)}</title><style>{style}</style></head><body>"
            f"<h1>Feedback for {for_html(student)}</h1><table><tr><th>assignment</th>"
            f"<th>score</th></tr>{items}</table></body></html>\n")


def _student_files(out: Path, student: str, problems: list[str]) -> dict[str, list[Path]]:
    """Per bundled assignment of ``student``, the files to put in its folder."""
    found = {}
    for assignment in _folders(out / STUDENTS / student):
        folder = submission_folder(out, student, assignment)
        files = [folder / name for name in FILES
                 if (folder / name).is_file() and not (folder / name).is_symlink()]
        where = f"{student} / {assignment}"
        why = names.problem(assignment)
        if why:
            problems.append(f"{where}: not bundled (its name {why})")
        elif not _portable(assignment):
            problems.append(f"{where}: not bundled (its name cannot be a folder on every "
                            "system)")
        elif not files:
            problems.append(f"{where}: not bundled (no feedback.html or results.json)")
        else:
            found[assignment] = files
    return found


def _write_folder(target: Path, index: str, files: dict[str, list[Path]]) -> Path:
    for assignment, paths in files.items():
        (target / assignment).mkdir(parents=True, exist_ok=True)
        for path in paths:
            shutil.copyfile(path, target / assignment / path.name)
    write_atomically(target / "index.html", index)
    return target


def _write_zip(target: Path, index: str, files: dict[str, list[Path]]) -> Path:
    """The zip, written whole or not at all (a temp file in its folder, then renamed)."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as handle, zipfile.ZipFile(handle, "w",
                                                            zipfile.ZIP_DEFLATED) as bundle:
            bundle.writestr("index.html", index.encode("utf-8", "backslashreplace"))
            for assignment, paths in files.items():
                for path in paths:
                    bundle.writestr(f"{assignment}/{path.name}", path.read_bytes())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def bundle(out: Path, to: Path, zipped: bool = False) -> Bundles:
    """Write each student's bundle from OUT into ``to``; return what was written and left out.

    Raises `InputError` when OUT has no graded students or no grades.csv.
    """
    if not (out / STUDENTS).is_dir():
        raise InputError(f"{out} has no {STUDENTS}/ folder: grade first (packlab grade)")
    result = Bundles()
    grades = _grades(out, result.problems)
    to.mkdir(parents=True, exist_ok=True)
    for student in _folders(out / STUDENTS):
        why = names.problem(student)
        if why:
            result.problems.append(f"{student}: no bundle (its name {why}; the student's "
                                   "rows in grades.csv say so)")
            continue
        try:
            files = _student_files(out, student, result.problems)
            if not files:
                result.problems.append(f"{student}: no bundle (nothing to put in it)")
                continue
            index = index_html(student, [(a, _scored(grades, student, a)) for a in files])
            result.written.append(_write_zip(to / f"{student}.zip", index, files) if zipped
                                  else _write_folder(to / student, index, files))
        except OSError as exc:
            result.problems.append(f"{student}: no bundle ({exc})")
    return result
