"""Grades for a learning platform: the gradebook CSV that Canvas or Moodle imports.

Students are mapped through a roster file (columns ``id,name,email``; ``id`` is the nbgrader
student id, the folder name). The formats follow the platforms' own documentation and code:

- Canvas, "How do I import grades in the Gradebook?"
  (https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807,
  summarised at https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades)
  and its importer, canvas-lms app/models/gradebook_importer.rb: a header row ``Student, ID,
  SIS User ID, SIS Login ID, Section`` and one column per assignment, titled ``Name (canvas
  id)`` or, for an assignment Canvas matches by its exact title (or creates), ``Name``; then a
  row whose first cell is ``Points Possible``; then one row per student. Canvas finds the
  student by ID, then SIS User ID, then SIS Login ID, then name, and shows every change on its
  review page before it imports (an empty cell where Canvas has a score is such a change).
- Moodle, "Grade import" (https://docs.moodle.org/311/en/Grade_import, and
  https://docs.moodle.org/27/en/Grade_import): a header row, one row per student, one column
  per grade item; on the preview page the instructor maps "Email address" to ``useremail`` (or
  "ID number" to ``useridnumber``) and each column to a grade item. Moodle stops the whole
  import at a row whose user it cannot find, and a non-numeric grade is an error, so every
  row has an email address and every grade is a number or empty.

A score is grades.csv's, the total `nbgrader export` gives when the course has a gradebook
(manual grades and extra credit included); a submission the tests could not grade is left
empty unless a grader gave it points there. Only the course's assignments (course.toml) become
columns: a submitted folder of any other
name would otherwise become a new, empty assignment on the platform. Everything a student
controls (names, ids, emails, assignment folders) goes through `for_csv`: these files are
opened in spreadsheets. An identifier that escaping would change cannot be matched by the
platform, so it is reported. Nothing is dropped silently: grades of students missing from the
roster, roster entries without grades and cells left empty are all listed in the `Export`.

Names are identities (`autograder.names`): grades.csv's cells are read exactly as written, never
stripped or folded, and matched with the roster's ids as `for_csv` writes them (one-to-one), so
a folder ``ada`` + a no-break space is not ``ada``: it is a student missing from the roster.
Two rows of grades.csv for one student and assignment are reported, and neither is written.
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograder.escape import for_csv
from packlab.manifest import load, plain_assignments

LMS = ("canvas", "moodle")
ROSTER_COLUMNS = ("id", "name", "email")
CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_HEADER = ["Full name", "ID number", "Email address"]
GRADES_COLUMNS = ("student", "assignment", "score", "max_score", "status")


class InputError(ValueError):
    """grades.csv or the roster cannot be used; the message says why."""


@dataclass
class Export:
    """The CSV for the platform, and what did not make it into it (each line plain text)."""

    text: str
    grades: int = 0  # scores written
    lost: list[str] = field(default_factory=list)  # grades in grades.csv that are not in text
    notes: list[str] = field(default_factory=list)  # empty cells, roster entries without grades


def _rows(path: Path, required: tuple[str, ...], what: str, strip: bool) -> list[dict]:
    """The rows of a CSV file, keyed by its lower-cased header; the ``required`` columns exist.
    Cells are taken as written, or with their spaces stripped when ``strip`` (the instructor's
    roster: never grades.csv, whose names are identities)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {what} {path}: {exc}") from exc
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = [name.strip().lower() for name in rows[0]] if rows else []
    missing = [name for name in required if name not in header]
    if missing:
        raise InputError(f"{what} {path} has no column {', '.join(missing)} "
                         f"(it needs {', '.join(required)})")
    return [{key: (row[i].strip() if strip else row[i]) if i < len(row) else ""
             for i, key in enumerate(header) if key} for row in rows[1:]]


def read_grades(out: Path) -> list[dict]:
    """OUT/grades.csv as written by `packlab grade`: one dict per student and assignment."""
    return _rows(out / "grades.csv", GRADES_COLUMNS, "the grades file", strip=False)


def read_roster(path: Path) -> list[dict]:
    """The roster's students: ``id``, ``name``, ``email``, and for Canvas any of ``canvas_id``,
    ``sis_user_id``, ``sis_login_id`` (the email when absent) and ``section``.

    Every row needs an id; an id or an email that appears twice is an error (the platform
    would give one student's grade to the other).
    """
    rows = _rows(path, ROSTER_COLUMNS, "the roster", strip=True)
    for number, row in enumerate(rows, start=2):
        if any(row.values()) and not row["id"]:
            raise InputError(f"the roster {path}, line {number}, has no id")
    roster = [row for row in rows if any(row.values())]
    for column in ("id", "email"):
        values = [row[column] for row in roster if row[column]]
        twice = sorted({value for value in values if values.count(value) > 1})
        if twice:
            raise InputError(f"the roster {path} has the same {column} more than once: "
                             + ", ".join(twice))
    return roster


def _number(cell: str) -> float | int | None:
    """A score cell of grades.csv as a number (a leading ``'`` from escaping is ignored)."""
    try:
        value = float(cell.removeprefix("'"))
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else round(value, 2)


def _scores(grades: list[dict], export: Export) -> tuple[list[str], dict, dict]:
    """The assignments in order, their points possible and each (student, assignment) cell.

    Points possible is an assignment's largest max_score. A cell is a number, or "" with a
    note saying why (not graded, or not a number).
    """
    assignments = list(dict.fromkeys(row["assignment"] for row in grades))
    possible: dict[str, float | int] = {}
    cells: dict[tuple[str, str], float | int | str] = {}
    count = Counter((row["student"], row["assignment"]) for row in grades)
    for (student, assignment), rows in count.items():
        if rows > 1:
            export.lost.append(f"{student} / {assignment}: grades.csv has {rows} rows for it "
                               "(names are identities: none is taken over another), so the "
                               "cell is left empty; enter this grade by hand")
    for row in grades:
        where = f"{row['student']} / {row['assignment']}"
        if count[row["student"], row["assignment"]] > 1:
            cells[(row["student"], row["assignment"])] = ""
            continue
        top = _number(row["max_score"])
        if top is not None:
            possible[row["assignment"]] = max(possible.get(row["assignment"], top), top)
        score = _number(row["score"])
        by_hand = row.get("manual", "") or row.get("extra_credit", "")  # in nbgrader's gradebook
        if row["status"] != "graded" and not by_hand:
            export.notes.append(f"{where}: left empty ({row['status']}: "
                                f"{row.get('reason') or 'no reason given'})")
            score = ""
        elif score is None:
            export.notes.append(f"{where}: left empty (the score {row['score']!r} is not a "
                                "number)")
            score = ""
        cells[(row["student"], row["assignment"])] = score
    return assignments, possible, cells


def _course_only(grades: list[dict], export: Export) -> list[dict]:
    """The rows of the course's assignments (its plain ones last), in course order; a note for
    any other folder."""
    order = [for_csv(name) for name in [e.name for e in load().exercises]  # grades.csv is
             + list(plain_assignments())]  # escaped; plain nbgrader assignments last
    for name in dict.fromkeys(row["assignment"] for row in grades):
        if name not in order:
            export.notes.append(f"{name}: not an assignment of this course, left out")
    return sorted((row for row in grades if row["assignment"] in order),
                  key=lambda row: order.index(row["assignment"]))


def _canvas_student(entry: dict, export: Export) -> list:
    login = entry.get("sis_login_id") or entry["email"]
    if login and for_csv(login) != login:
        export.notes.append(f"{entry['id']}: SIS Login ID {login!r} is written escaped, so "
                            "Canvas will match this student by name")
    return [for_csv(entry["name"] or entry["id"]), for_csv(entry.get("canvas_id", "")),
            for_csv(entry.get("sis_user_id", "")), for_csv(login),
            for_csv(entry.get("section", ""))]


def _moodle_student(entry: dict, export: Export) -> list | None:
    """The row's identifying cells, or None when Moodle could not find this student."""
    email = entry["email"]
    if not email or for_csv(email) != email:
        why = "has no email" if not email else f"has an email ({email!r}) no spreadsheet-safe " \
              "file can hold as written"
        export.lost.append(f"{entry['id']} {why}: Moodle would stop the whole import at "
                           "this row, so it is left out; enter these grades by hand")
        return None
    return [for_csv(entry["name"]), for_csv(entry["id"]), for_csv(email)]


def _header(lms: str, assignments: list[str], possible: dict, canvas_ids: dict[str, str],
            export: Export) -> list[list]:
    """The rows before the students': Canvas's header and Points Possible, or Moodle's header."""
    if lms == "moodle":
        return [MOODLE_HEADER + [for_csv(a) for a in assignments]]
    ids = {for_csv(name): number for name, number in canvas_ids.items()}
    for name in sorted(ids.keys() - set(assignments)):
        export.notes.append(f"--canvas-id {name}: no such assignment in grades.csv, unused")
    # Canvas matches "Name (id)" by its id, and a plain title by the assignment's title.
    titles = [for_csv(f"{a} ({ids[a]})" if a in ids else a) for a in assignments]
    return [CANVAS_HEADER + titles,
            ["Points Possible", "", "", "", ""] + [possible.get(a, "") for a in assignments]]


def export(out: Path, roster_path: Path, lms: str,
           canvas_ids: dict[str, str] | None = None) -> Export:
    """The gradebook CSV of OUT/grades.csv for ``lms`` ("canvas" or "moodle").

    Only the course's assignments (course.toml) become columns, in course order. ``canvas_ids``
    maps an assignment to its Canvas assignment id (its column is then titled ``Name (id)``).
    Raises `InputError` when grades.csv or the roster cannot be used.
    """
    if lms not in LMS:
        raise InputError(f"unknown learning platform {lms!r} (choose {' or '.join(LMS)})")
    canvas_ids = canvas_ids or {}
    bad = [f"{name}={number}" for name, number in canvas_ids.items() if not number.isdigit()]
    if bad:
        raise InputError(f"a Canvas assignment id is a number: {', '.join(bad)}")
    grades, roster = read_grades(out), read_roster(roster_path)
    result = Export(text="")
    grades = _course_only(grades, result)
    assignments, possible, cells = _scores(grades, result)
    on_roster = {for_csv(entry["id"]) for entry in roster}  # grades.csv cells are escaped
    for student in dict.fromkeys(row["student"] for row in grades):
        if student not in on_roster:
            count = sum(row["student"] == student for row in grades)
            result.lost.append(f"{student} is not on the roster: their {count} row(s) of "
                               "grades.csv are left out")
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerows(_header(lms, assignments, possible, canvas_ids, result))
    graded = {student for student, _ in cells}
    for entry in roster:
        key = for_csv(entry["id"])
        if key not in graded:
            result.notes.append(f"{entry['id']} is on the roster but has no grades: "
                                "written with empty cells")
        who = (_canvas_student(entry, result) if lms == "canvas"
               else _moodle_student(entry, result))
        if who is not None:
            row = [cells.get((key, a), "") for a in assignments]
            result.grades += sum(cell != "" for cell in row)
            writer.writerow(who + row)
    result.text = buffer.getvalue()
    return result
