"""Writing packlab's scores into nbgrader's gradebook, through nbgrader's own API.

`packlab grade` on the submitted/ folder of an nbgrader course (a folder holding
nbgrader_config.py), or given ``--gradebook URL``, records each graded test cell's auto score and
the submission's timestamp (nbgrader's timestamp.txt) as `nbgrader autograde` would: the student
is created when missing, and manual scores and comments are never touched. The late penalty goes
where nbgrader keeps its own, and an instructor's override becomes extra credit (nbgrader's own
field for a grader's adjustment) on the submission's first test cell. So formgrader shows the
sandboxed scores, manual grading works on top, and `nbgrader export` totals what grades.csv says.
A submission that could not be graded gets 0 in every cell (its reason is in grades.csv).
In a course folder it also writes the autograded notebooks `nbgrader generate_feedback` renders
(`autograder.autograded`).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SAWarning

from autograder import autograded, late, report
from autograder.overrides import Override
from packlab.course.manifest import Exercise, load

CONFIG = "nbgrader_config.py"


class NoGradebook(Exception):
    """The gradebook named cannot be used; the message says why."""


@dataclass(frozen=True)
class Target:
    """Where the scores go: the gradebook's URL, nbgrader's course id, and the course folder
    (None with ``--gradebook`` outside a course: then no autograded notebooks are written)."""

    url: str
    course_id: str
    course: Path | None = None

    def describe(self) -> str:
        """The gradebook in words: its file for SQLite, else its URL without a password."""
        url = make_url(self.url)
        if url.drivername.startswith("sqlite") and url.database:
            return str(url.database)
        return url.render_as_string(hide_password=True)


@dataclass
class Written:
    """What `record` did, to tell the instructor."""

    submissions: int = 0
    cells: int = 0
    timestamps: int = 0
    new_students: list[str] = field(default_factory=list)
    notebooks: int = 0  # autograded notebooks for `nbgrader generate_feedback`
    adjusted: int = 0  # overrides written as extra credit
    replaced: list[str] = field(default_factory=list)  # extra credit an override replaced
    unexplained: list[str] = field(default_factory=list)  # extra credit no override gave
    missing: set[str] = field(default_factory=set)  # assignments the gradebook does not have
    problems: list[str] = field(default_factory=list)


def course_folder(submitted: Path) -> Path | None:
    """The nbgrader course SUBMITTED belongs to: its parent, when that holds nbgrader_config.py."""
    parent = submitted.resolve().parent
    return parent if (parent / CONFIG).is_file() else None


def _course_settings(course: Path):
    """nbgrader's own reading of the course's nbgrader_config.py (its CourseDirectory)."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(CONFIG, path=str(course)).load_config()
    return CourseDirectory(config=config, root=str(course))


def _in_folder(url: str, folder: Path) -> str:
    """A relative SQLite path is relative to the course folder (as for nbgrader run there)."""
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite") and parsed.database \
            and parsed.database != ":memory:" and not os.path.isabs(parsed.database):
        parsed = parsed.set(database=str(folder / parsed.database))
    return parsed.render_as_string(hide_password=False)


def find(submitted: Path, url: str | None = None) -> Target | None:
    """The gradebook to write: ``url``, else that of the course holding SUBMITTED (or None)."""
    course = course_folder(submitted)
    settings = _course_settings(course) if course else None
    if url is None and settings is None:
        return None
    target = Target(_in_folder(url or settings.db_url, Path.cwd() if url else course),
                    settings.course_id if settings else "", course)
    parsed = make_url(target.url)
    if parsed.drivername.startswith("sqlite") and not Path(parsed.database or "").is_file():
        raise NoGradebook(f"there is no gradebook at {target.describe()} (run `nbgrader "
                          "generate_assignment` in the course folder first)")
    return target


def results(out: Path, row: dict) -> dict:
    """The results.json packlab wrote for one grades.csv row ({} when it could not be read)."""
    path = report.submission_folder(out, row["student"], row["assignment"]) / "results.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def graded_tests(data: dict) -> list[dict]:
    """The results.json ``tests``, each with its ``group`` (none when packlab could not grade
    it); their outputs are the learner's messages."""
    extra = data.get("extra_data", {})
    if not data or extra.get("error"):
        return []
    return [{**test, "group": group["group"]}
            for group, test in zip(extra["groups"], data["tests"], strict=True)]


def late_penalty(data: dict) -> float:
    """The points the late policy took off (nbgrader's late_submission_penalty): never more
    than the tests gave, as in grades.csv."""
    extra = data.get("extra_data", {})
    penalty = (extra.get("late") or {}).get("penalty") or 0
    return round(min(float(penalty), float(extra.get("raw_score", data.get("score", 0)))), 2)


def _extra_credit(grade, added: float | None, where: str, written: Written) -> None:
    """Write an override as the grade's extra credit; say what it replaced, or what extra
    credit is there without one (a formgrader entry, or an override since removed: kept)."""
    before = grade.extra_credit
    if added is None:
        if before:
            written.unexplained.append(f"{where}: {before:g}")
        return
    if before is not None and before != added:
        written.replaced.append(f"{where}: {before:g} → {added:g}")
    grade.extra_credit = added
    written.adjusted += 1


def _write_scores(gb, exercise: Exercise, row: dict, data: dict, timestamp,
                  written: Written) -> None:
    """Create or update the student's submission: its time, late penalty, test cell scores and
    the override (grades.csv's ``adjustment``, as extra credit on its first test cell)."""
    student = row["student"]
    adjusted = None if row.get("adjustment", "") == "" else float(row["adjustment"])
    scores = {exercise.grade_id(t["group"]): float(t["score"]) for t in graded_tests(data)}
    first = exercise.grade_id(next(iter(exercise.points)))
    extra = {"timestamp": timestamp} if timestamp else {}
    submission = gb.update_or_create_submission(exercise.name, student, **extra)
    for notebook in submission.notebooks:
        notebook.late_submission_penalty = late_penalty(data) or None
        for grade in notebook.grades:
            if scores and grade.name not in scores:
                continue  # not one of packlab's test cells: left as it is
            grade.auto_score = scores.get(grade.name, 0.0)
            grade.needs_manual_grade = grade.manual_score is not None  # as nbgrader's autograde
            written.cells += 1
            where = f"{student}/{exercise.name} cell {grade.name}"
            _extra_credit(grade, adjusted if grade.name == first else None, where, written)
    gb.db.commit()


def _known(gb, assignment: str, written: Written) -> bool:
    from nbgrader.api import MissingEntry

    if assignment in written.missing:
        return False
    try:
        gb.find_assignment(assignment)
    except MissingEntry:
        written.missing.add(assignment)
        return False
    return True


def _record_row(gb, exercise: Exercise, row: dict, folder: Path, data: dict,
                written: Written) -> None:
    """One submission: its student, time, late penalty and test cell scores."""
    from nbgrader.api import MissingEntry

    student = row["student"]
    timestamp, why = late.submitted_at(folder)
    if timestamp is None and (folder / late.TIMESTAMP).exists():
        written.problems.append(f"{student}/{exercise.name}: {why}; left out.")
    try:
        gb.find_student(student)
    except MissingEntry:
        gb.update_or_create_student(student)
        written.new_students.append(student)
    _write_scores(gb, exercise, row, data, timestamp, written)
    written.submissions += 1
    written.timestamps += timestamp is not None


def _autograded(settings, exercise: Exercise, row: dict, submitted: Path, data: dict) -> None:
    """The notebook `nbgrader generate_feedback` renders, where nbgrader keeps it."""
    folder = Path(settings.format_path(settings.autograded_directory, row["student"],
                                       exercise.name))
    override = Override.from_dict(data.get("extra_data", {}).get("adjustment"))
    autograded.write(folder / f"{exercise.name}.ipynb", exercise,
                     submitted / row["student"] / exercise.name / f"{exercise.name}.ipynb", row,
                     graded_tests(data), override)


UNQUOTED = re.compile(r'[,"\r\n]|^[=+\-@\t]')


def exportable(student: str) -> bool:
    """Can ``student`` go into the gradebook? `nbgrader export` writes ids into CSV unquoted."""
    return UNQUOTED.search(student) is None


def record(target: Target, submitted: Path, out: Path, rows: list[dict]) -> Written:
    """Write every submission of grades.csv's ``rows`` (graded or not) into the gradebook."""
    from nbgrader.api import Gradebook

    exercises = {e.name: e for e in load().exercises}
    written = Written()
    settings = _course_settings(target.course) if target.course else None
    # nbgrader's add_submission makes SQLAlchemy warn about its own session (harmless, and
    # printed by `nbgrader autograde` too): not for the instructor's terminal.
    with warnings.catch_warnings(), Gradebook(target.url, target.course_id) as gb:
        warnings.simplefilter("ignore", SAWarning)
        for row in rows:
            exercise = exercises.get(row["assignment"])
            if row["reason"] == report.NO_SUBMISSION or exercise is None \
                    or not _known(gb, exercise.name, written):
                continue  # nothing handed in (nbgrader counts 0), or not in this gradebook
            if not exportable(row["student"]):
                written.problems.append(
                    f"student folder {row['student']!r} left out of the gradebook: `nbgrader "
                    "export` writes ids unquoted, so a comma, quote, line break or leading "
                    "=, +, - or @ would break or inject into its CSV (grades.csv has the row).")
                continue
            data = results(out, row)
            _record_row(gb, exercise, row, submitted / row["student"] / exercise.name, data,
                        written)
            if settings is not None:
                _autograded(settings, exercise, row, submitted, data)
                written.notebooks += 1
    return written


def _n(count: int, thing: str) -> str:
    return f"{count} {thing}{'s' * (count != 1)}"


def _listed(items: list[str], shown: int = 10) -> str:
    more = f"; and {len(items) - shown} more" if len(items) > shown else ""
    return "; ".join(items[:shown]) + more


def summary(target: Target, written: Written) -> list[str]:
    """What was written to which gradebook, in plain words (lines to print, not yet escaped)."""
    course = f" (course {target.course_id})" if target.course_id else ""
    added = f", and added {_n(len(written.new_students), 'student')}" if written.new_students \
        else ""
    lines = [f"Gradebook {target.describe()}{course}: wrote {_n(written.cells, 'test cell score')}"
             f" for {_n(written.submissions, 'submission')} ({written.timestamps} with the time "
             f"in their timestamp.txt){added}."]
    if written.notebooks:
        lines.append(f"Wrote {_n(written.notebooks, 'autograded notebook')} for `nbgrader "
                     "generate_feedback`.")
    for assignment in sorted(written.missing):
        lines.append(f"Not in the gradebook, so left out: {assignment} (run `nbgrader "
                     f"generate_assignment {assignment}` first).")
    if written.adjusted:
        lines.append(f"Wrote {_n(written.adjusted, 'override')} as extra credit on the "
                     "submission's first test cell.")
    if written.replaced:
        lines.append(f"Replaced by an override, extra credit that was there before: "
                     f"{_listed(written.replaced)}.")
    if written.unexplained:
        lines.append("Left as it is, extra credit on packlab's test cells that no override "
                     "gives (entered in formgrader, or left by an override you have since "
                     f"removed: change it there if so): {_listed(written.unexplained)}.")
    return lines + [f"Note: {problem}" for problem in written.problems]
