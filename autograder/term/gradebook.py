"""Writing packlab's scores into nbgrader's gradebook, through nbgrader's own API.

The gradebook is the one truth for the term. `packlab grade` on the submitted/ folder of an
nbgrader course (a folder holding nbgrader_config.py), or given ``--gradebook URL``, records
each graded test cell's auto score and the submission's timestamp (nbgrader's timestamp.txt) as
`nbgrader autograde` would: the student is created when missing, and what a person did in
formgrader is never undone (manual scores, comments, and the manual-grading queue: a rerun does
not flag a hand-graded cell again, as nbgrader's autograde does, unless its auto score changed).
packlab's corrections (the late penalty, the override, an earlier submission that counts) are
extra credit on the submission's first test cell, added to whatever extra credit a grader gave
there, and nbgrader's own late penalty is left at 0: formgrader, which shows no late penalty,
then shows the same total as `nbgrader export`. Then it reads back what graders gave (`Marks`:
manual scores, extra credit and written comments), so grades.csv, the feedback, the bundles and
the Canvas and Moodle files all total auto + manual + extra credit - late as `nbgrader export`
does.
A submission that could not be graded gets 0 in every cell (its reason is in grades.csv).
In a course folder it also writes the autograded folders `nbgrader generate_feedback` and
`release_feedback` use (`autograder.term.autograded`: the notebook, with the submission's
timestamp.txt and submission_secret.txt as `nbgrader autograde` copies them).

`roster` puts a class list's names and emails into the gradebook (formgrader lists them);
`extend` gives one student a later due date (nbgrader's extension, which `packlab grade` reads;
formgrader shows none): a student the course does not know is refused, the close ids named.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from autograder import names, outfolder
from autograder.escape import for_csv
from autograder.run import nbgrader_course
from autograder.term import autograded, late
from autograder.term.corrections import (
    Marks,
    comments,
    from_results,
    marks_line,
    nbgrader_lines,
    number,
)
from packlab.manifest import Exercise, PlainAssignment, load, plain_assignments

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

# SQLAlchemy (0.2 CPU-s to import) is imported where the gradebook is opened: `packlab grade`
# of a class outside any nbgrader course asks `find` and never needs it.


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
        from sqlalchemy.engine import make_url

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
    corrected: int = 0  # late penalties and overrides written as extra credit
    graders: list[str] = field(default_factory=list)  # manual grades and extra credit found
    missing: set[str] = field(default_factory=set)  # assignments the gradebook does not have
    problems: list[str] = field(default_factory=list)
    marks: dict[tuple[str, str], Marks] = field(default_factory=dict)  # what graders gave


def course_folder(submitted: Path) -> Path | None:
    """The nbgrader course SUBMITTED belongs to: its parent, when that holds nbgrader_config.py."""
    parent = submitted.resolve().parent
    return parent if (parent / nbgrader_course.CONFIG).is_file() else None


def find(submitted: Path, url: str | None = None) -> Target | None:
    """The gradebook to write: ``url``, else that of the course holding SUBMITTED (or None)."""
    return in_course(course_folder(submitted), url)


def in_course(course: Path | None, url: str | None = None) -> Target | None:
    """The gradebook ``url``, else that of the nbgrader course folder ``course`` (or None)."""
    settings = nbgrader_course.settings(course) if course else None
    if url is None and settings is None:
        return None  # before SQLAlchemy is imported: the usual `packlab grade` stops here
    from sqlalchemy.engine import make_url

    url = nbgrader_course.in_folder(url or settings.db_url, Path.cwd() if url else course)
    target = Target(url, settings.course_id if settings else "", course)
    parsed = make_url(target.url)
    if parsed.drivername.startswith("sqlite") and not Path(parsed.database or "").is_file():
        raise NoGradebook(f"there is no gradebook at {target.describe()} (run `nbgrader "
                          "generate_assignment` in the course folder first)")
    return target


def results(out: Path, row: dict) -> dict:
    """The results.json packlab wrote for one grades.csv row ({} when it could not be read)."""
    path = outfolder.submission_folder(out, row["student"], row["assignment"]) / "results.json"
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


def correction(data: dict) -> float:
    """What packlab's corrections (the late penalty, then the override) change the tests' score
    by: the extra credit packlab writes on the submission's first test cell."""
    extra = data.get("extra_data", {})
    raw = extra.get("raw_score", data.get("score", 0))
    return number(extra.get("corrected_score", data.get("score", 0)) - raw)


WRITTEN = "gradebook.json"  # beside results.json: the extra credit packlab last wrote


def _last_written(out: Path, student: str, assignment: str) -> float:
    """The extra credit packlab last wrote for this submission into the gradebook (the results
    in OUT are written into one course's gradebook, even when its folder is moved)."""
    path = outfolder.submission_folder(out, student, assignment) / WRITTEN
    try:
        value = json.loads(path.read_text(encoding="utf-8"))["extra_credit"]
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    return value if isinstance(value, int | float) else 0


def cell_of(exercise: Exercise | PlainAssignment, group: str) -> tuple[str, str]:
    """(notebook, grade_id) of a test group: nbgrader's grade_ids are unique within a notebook."""
    if isinstance(exercise, PlainAssignment):
        return exercise.cell_of(group)
    return exercise.name, exercise.grade_id(group)


def _write_scores(gb, exercise: Exercise | PlainAssignment, row: dict, data: dict, timestamp,
                  last: float) -> float:
    """Create or update the student's submission: its time, its test cell scores in each of
    its notebooks, and packlab's corrections as extra credit on its first test cell, beside a
    grader's own extra credit there (what is there beyond ``last``, the correction packlab
    wrote before). Returns the number of test cell scores written."""
    student = row["student"]
    scores = {cell_of(exercise, t["group"]): float(t["score"]) for t in graded_tests(data)}
    first = first_cell(exercise)
    by_hand = {(c.notebook, c.grade_id) for c in exercise.cells if c.manual} \
        if isinstance(exercise, PlainAssignment) else set()
    extra = {"timestamp": timestamp} if timestamp else {}
    submission = gb.update_or_create_submission(exercise.name, student, **extra)
    cells = 0
    for notebook in submission.notebooks:
        notebook.late_submission_penalty = None  # in the extra credit: formgrader shows it
        for grade in notebook.grades:
            key = (notebook.name, grade.name)
            if key not in scores and (scores or key in by_hand):
                _flag_manual(by_hand, key, grade)
                continue  # not one of packlab's test cells: left as it is
            _score(grade, scores.get(key, 0.0))
            cells += 1
            if key == first:
                by_graders = (grade.extra_credit or 0) - last
                total = number(by_graders + correction(data))
                grade.extra_credit = total if total or grade.extra_credit is not None else None
    gb.db.commit()
    return cells


def first_cell(exercise: Exercise | PlainAssignment) -> tuple[str, str] | None:
    """The cell packlab's corrections go on as extra credit, as (notebook, grade_id): the first
    test cell, else (a plain assignment a person grades, or one of no points) its first graded
    cell, else None."""
    if exercise.points:
        return cell_of(exercise, next(iter(exercise.points)))
    cells = exercise.cells if isinstance(exercise, PlainAssignment) else ()
    return (cells[0].notebook, cells[0].grade_id) if cells else None


def _score(grade, auto: float) -> None:
    """Write a test cell's auto score. A cell a person graded keeps their score and their
    flag (formgrader's queue is theirs): only a changed auto score (a new notebook) puts it
    back in the manual-grading queue, for them to look again. nbgrader's autograde flags every
    hand-graded cell on each run; a rerun of `packlab grade` resets nothing a person did."""
    if grade.manual_score is not None:
        if grade.auto_score != auto:
            grade.needs_manual_grade = True
    else:
        grade.needs_manual_grade = False
    grade.auto_score = auto


def _flag_manual(by_hand: set[tuple[str, str]], key: tuple[str, str], grade) -> None:
    """A plain assignment's answer a person grades (``key`` in ``by_hand``), not graded yet,
    waits for formgrader (as nbgrader's autograde flags it)."""
    if key in by_hand and grade.manual_score is None:
        grade.needs_manual_grade = True


def _marks(gb, exercise: Exercise, student: str, written_extra: float) -> Marks:
    """What graders gave this submission in the gradebook: the difference their manual scores
    make, and their extra credit (all of it but packlab's ``written_extra``)."""
    manual = extra = 0.0
    said: list[str] = []
    for notebook in gb.find_submission(exercise.name, student).notebooks:
        for grade in notebook.grades:
            if grade.manual_score is not None:
                manual += grade.manual_score - (grade.auto_score or 0)
            extra += grade.extra_credit or 0
        said += [c.manual_comment for c in sorted(notebook.comments, key=_order)
                 if c.manual_comment and c.manual_comment.strip()]
    return Marks(number(manual), number(extra - written_extra), comments(said))


def _order(comment) -> str:
    """A notebook's comments in a fixed order: by their cell's name."""
    return comment.cell.name if comment.cell is not None else ""


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


def _record_row(gb, target: Target, exercise: Exercise, row: dict, submitted: Path, out: Path,
                data: dict, written: Written) -> None:
    """One submission: its student, time, test cell scores and corrections; then read back what
    graders gave it."""
    from nbgrader.api import MissingEntry

    student = row["student"]
    timestamp, why = late.submitted_at(submitted / student / exercise.name, below=submitted)
    if timestamp is None and why != late.NO_TIMESTAMP:
        written.problems.append(f"{student}/{exercise.name}: {why}; left out.")
    try:
        gb.find_student(student)
    except MissingEntry:
        gb.update_or_create_student(student)
        written.new_students.append(student)
    where = target.describe()
    last = _last_written(out, student, exercise.name)
    written.cells += _write_scores(gb, exercise, row, data, timestamp, last)
    fix = correction(data)
    outfolder.write_atomically(outfolder.submission_folder(out, student, exercise.name) / WRITTEN,
                            json.dumps({"gradebook": where, "extra_credit": fix}) + "\n")
    written.corrected += bool(fix)
    marks = _marks(gb, exercise, student, fix)
    written.marks[student, exercise.name] = marks
    if marks:
        written.graders.append(f"{student}/{exercise.name}: {marks_line(marks)}")
    written.submissions += 1
    written.timestamps += timestamp is not None


def _autograded(settings, exercise: Exercise | PlainAssignment, row: dict, submitted: Path,
                data: dict) -> tuple[int, list[str]]:
    """The notebooks `nbgrader generate_feedback` renders, where nbgrader keeps them, with the
    files `nbgrader release_feedback` needs; returns how many notebooks were written and what
    could not be copied. A plain assignment's notebook that was not handed in gets none, as
    under `nbgrader autograde`."""
    folder = Path(settings.format_path(settings.autograded_directory, row["student"],
                                       exercise.name))
    extra = data.get("extra_data", {})
    first = first_cell(exercise)
    said = nbgrader_lines(extra.get("raw_score", data.get("score", 0)),
                          extra.get("max_score", exercise.max_score), from_results(extra),
                          first[1] if first else "none")
    handed_in = submitted / row["student"] / exercise.name
    plain = isinstance(exercise, PlainAssignment)
    notebooks = exercise.notebooks if plain else (exercise.name,)
    tests = graded_tests(data)
    graded = bool(data) and not data.get("extra_data", {}).get("error")
    written = 0
    for notebook in notebooks:
        path = handed_in / f"{notebook}.ipynb"
        if plain and len(notebooks) > 1 and not (path.is_file() or path.is_symlink()):
            (folder / f"{notebook}.ipynb").unlink(missing_ok=True)  # none left from before
            continue
        messages = {cell_of(exercise, t["group"])[1]: t["output"] for t in tests
                    if cell_of(exercise, t["group"])[0] == notebook}
        autograded.write(folder / f"{notebook}.ipynb",
                         exercise.release(notebook) if plain else exercise.release, path, row,
                         messages if graded else None,
                         said if first is None or first[0] == notebook else [], submitted)
        written += 1
    if plain:
        autograded.copy_source_files(exercise.folder, folder)
    return written, [f"{row['student']}/{exercise.name}: {problem}"
                     for problem in autograded.copy_exchange_files(handed_in, folder, submitted)]


UNQUOTED = re.compile(r'[,;"\t\r\n]')  # what `nbgrader export`, writing ids unquoted, breaks at


def not_exportable(student: str) -> str | None:
    """Why ``student`` cannot go into the gradebook (None when it can).

    It must be an identity (`names.problem`: UTF-8, nothing invisible, no look-alikes), and
    `nbgrader export` writes ids into its CSV unquoted, so it may hold no separator of any
    locale (``,`` ``;`` tab), quote or line break, and nothing a spreadsheet would run
    (`for_csv` must leave it as it is: no leading ``=``, ``+``, ``-`` or ``@``)."""
    why = names.problem(student)
    if why:
        return f"its name {why}"
    if UNQUOTED.search(student) or for_csv(student) != student:
        return ("`nbgrader export` writes ids unquoted, so a comma, semicolon, tab, quote, line "
                "break or leading =, +, - or @ would break or inject into its CSV")
    return None


def exportable(student: str) -> bool:
    """Can ``student`` go into the gradebook (see `not_exportable`)?"""
    return not_exportable(student) is None


def _no_implicit_begin(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None


def _begin(connection) -> None:
    connection.exec_driver_sql("BEGIN")


def _sqlite_savepoints(engine: Engine) -> None:
    """Let SQLite's driver nest savepoints in a transaction SQLAlchemy began (SQLAlchemy's
    documented recipe): left to itself, pysqlite begins no transaction until a write, so
    releasing a row's savepoint would commit everything."""
    from sqlalchemy import event

    for name, listener in (("connect", _no_implicit_begin), ("begin", _begin)):
        if not event.contains(engine, name, listener):
            event.listen(engine, name, listener)


@contextlib.contextmanager
def one_transaction(gb) -> Iterator[None]:
    """Everything nbgrader's API writes through ``gb`` within, in one database transaction,
    committed once at the end: each of its own commits only releases a savepoint and each
    rollback returns to the last one, so one row's error still loses no other. A commit per
    row cost a disk flush and reloading every object nbgrader had read (about 19 ms a row)."""
    from sqlalchemy.orm import scoped_session, sessionmaker

    gb.db.remove()
    if gb.engine.dialect.name == "sqlite":
        _sqlite_savepoints(gb.engine)
        gb.engine.dispose()  # the connection nbgrader opened predates the recipe
    with gb.engine.connect() as connection, connection.begin():
        # Nothing else writes what this transaction read, so what nbgrader loaded stays valid
        # after each savepoint (not reloaded row after row).
        gb.db = scoped_session(sessionmaker(bind=connection, autoflush=True,
                                            expire_on_commit=False,
                                            join_transaction_mode="create_savepoint"))
        try:
            yield
        finally:
            gb.db.remove()


def record(target: Target, submitted: Path, out: Path, rows: list[dict]) -> Written:
    """Write every submission of grades.csv's ``rows`` (graded or not) into the gradebook, in
    one transaction (`one_transaction`)."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning, SQLAlchemyError

    exercises = {**plain_assignments(), **{e.name: e for e in load().exercises}}
    written = Written()
    settings = nbgrader_course.settings(target.course) if target.course else None
    # nbgrader's add_submission makes SQLAlchemy warn about its own session (harmless, and
    # printed by `nbgrader autograde` too): not for the instructor's terminal.
    with warnings.catch_warnings(), Gradebook(target.url, target.course_id) as gb, \
            one_transaction(gb):
        warnings.simplefilter("ignore", SAWarning)
        for row in rows:
            exercise = exercises.get(row["assignment"])
            if row["reason"] == outfolder.NO_SUBMISSION or row["status"] == outfolder.SET_ASIDE \
                    or exercise is None or not _known(gb, exercise.name, written):
                continue  # nothing (genuine) handed in: nbgrader counts 0; or not in this book
            why = not_exportable(row["student"])
            if why:
                written.problems.append(f"student folder {row['student']!r} left out of the "
                                        f"gradebook: {why} (grades.csv has the row).")
                continue
            try:
                data = results(out, row)
                _record_row(gb, target, exercise, row, submitted, out, data, written)
                if settings is not None:
                    count, problems = _autograded(settings, exercise, row, submitted, data)
                    written.notebooks += count
                    written.problems += problems
            except (SQLAlchemyError, OSError, ValueError) as exc:  # one row never stops the rest
                gb.db.rollback()
                written.problems.append(f"{row['student']!r}/{exercise.name}: not written to "
                                        f"the gradebook ({type(exc).__name__}); every other "
                                        "row was.")
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
    if written.corrected:
        lines.append(f"Wrote {_n(written.corrected, 'correction')} (late penalties and "
                     "overrides) as extra credit on the submission's first test cell, so "
                     "formgrader shows the same total as `nbgrader export`.")
    if written.graders:
        lines.append("Counted in grades.csv, the feedback and the exports, what graders gave "
                     f"in the gradebook: {_listed(written.graders)}")
    return lines + [f"Note: {problem}" for problem in written.problems]


NAME_CHARS = 128  # nbgrader's columns for names and emails


def _names(entry: dict) -> tuple[str, str]:
    """(first name, last name) of a roster entry: its first_name and last_name columns, else
    its name split before the last word ("Ada King Lovelace" → "Ada King", "Lovelace")."""
    if entry.get("first_name") or entry.get("last_name"):
        return entry.get("first_name", ""), entry.get("last_name", "")
    first, _, last = entry.get("name", "").strip().rpartition(" ")
    return first.strip(), last


@dataclass
class Rostered:
    """What `roster` did: students added and updated, and entries left out (plain text)."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def roster(target: Target, entries: list[dict]) -> Rostered:
    """Put each roster entry (`lms.read_roster`: id, name or first_name and last_name, email)
    into the gradebook as nbgrader's student record: formgrader lists them by name."""
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    done = Rostered()
    with warnings.catch_warnings(), Gradebook(target.url, target.course_id) as gb:
        warnings.simplefilter("ignore", SAWarning)
        for entry in entries:
            student = entry["id"]
            why = not_exportable(student)
            if why:
                done.problems.append(f"{student!r} left out: {why}")
                continue
            first, last = _names(entry)
            try:
                gb.find_student(student)
                done.updated.append(student)
            except MissingEntry:
                done.added.append(student)
            gb.update_or_create_student(student, first_name=first[:NAME_CHARS] or None,
                                        last_name=last[:NAME_CHARS] or None,
                                        email=entry.get("email", "")[:NAME_CHARS] or None)
    return done


class CannotExtend(Exception):
    """An extension that cannot be given; the message says why in plain words."""


def known_students(gb, target: Target) -> set[str]:
    """The students the course knows: the gradebook's, and the folders of its submitted/."""
    known = {s.id for s in gb.students}
    if target.course is not None:
        settings = nbgrader_course.settings(target.course)
        folder = Path(settings.root) / settings.submitted_directory
        with contextlib.suppress(OSError):
            known |= {p.name for p in folder.iterdir() if p.is_dir()}
    return known


def unknown_student(student: str, known: set[str]) -> str:
    """Why ``student`` is refused: not known, with the close matches named (difflib)."""
    close = difflib.get_close_matches(student, sorted(known), n=3, cutoff=0.6)
    hint = (f"did you mean {' or '.join(repr(c) for c in close)}? " if close
            else "no id is close to it; ")
    return (f"there is no student {student!r} in the gradebook or submitted/: {hint}give "
            "--new to add a student who is not there yet")


def extend(target: Target, exercise: Exercise, student: str, until: datetime,
           new: bool = False) -> timedelta:
    """Give ``student`` until ``until`` for ``exercise``: nbgrader's extension (the time added
    to the assignment's due date, the gradebook's or else course.toml's) on their submission,
    which is created when they have handed in nothing yet. A student the course does not know
    (`known_students`) is refused, the close ids named, unless ``new``. Returns the
    extension."""
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings(), Gradebook(target.url, target.course_id) as gb:
        warnings.simplefilter("ignore", SAWarning)
        if not new and student not in (known := known_students(gb, target)):
            raise CannotExtend(unknown_student(student, known))
        try:
            assignment = gb.find_assignment(exercise.name)
        except MissingEntry:
            raise CannotExtend(f"{exercise.name} is not in the gradebook (run `nbgrader "
                               f"generate_assignment {exercise.name}` first)") from None
        due = assignment.duedate.replace(tzinfo=UTC) if assignment.duedate else exercise.due
        if due is None:
            raise CannotExtend(f"{exercise.name} has no due date (in the gradebook or "
                               "course.toml), so there is nothing to extend")
        if until <= due:
            raise CannotExtend(f"{until.isoformat()} is not after the due date, "
                               f"{due.isoformat()}")
        why = not_exportable(student)
        if why:
            raise CannotExtend(f"{student!r} cannot go into the gradebook: {why}")
        gb.update_or_create_student(student)
        gb.update_or_create_submission(exercise.name, student)
        extension = until - due
        gb.grant_extension(exercise.name, student, minutes=extension.total_seconds() / 60)
    return extension
