"""Grading a class: every SUBMITTED/<student>/<assignment>/<notebook>.ipynb, in parallel.

Each submission is graded in its own worker process (which runs the student's code in a sandbox of
its own), here or on a Dask cluster's workers (`autograder.cohort.cluster`), and its results are
written here as soon as it is done. A rerun skips what is already written for the same notebook
bytes and the same grader (`autograder.cohort.record`), so a killed run resumes where it stopped and
a changed submission (nbgrader's `collect --update`) is graded again, its earlier score kept in its
record's history; a `Regrade` grades again just the students, assignments or test groups it names.

After the tests come the dates and corrections (`autograder.term.corrections`): the late penalty,
from nbgrader's timestamp.txt and the due date, then the instructor's override. They are worked
out again on every run, for every submission, from the grader's record of it
(`autograder.cohort.record`): changing a due date or an override never runs a student's code again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from autograder import names, outfolder
from autograder.checks import example_cache
from autograder.cohort import cluster, record, report, set_aside, summary
from autograder.cohort.record import Graded
from autograder.cohort.task import Task, grade_one, max_score
from autograder.run import handed_in, isolation, submission
from autograder.run.engine import Result, confinement
from autograder.run.isolation import Limits
from autograder.run.plain import TRUST
from autograder.term import counts, late
from autograder.term.corrections import Corrections, Marks, number
from autograder.term.counts import Attempt, Counted
from autograder.term.overrides import Key, Override
from packlab.manifest import (
    Exercise,
    PlainAssignment,
    load,
    plain_assignments,
)

SHOWN_NOTEBOOKS = 10  # a problem names at most this many of the notebooks found


def _folders(fd: int) -> dict[str, bool] | None:
    """The folders in the open folder ``fd``, each with whether it is a link to one rather than
    a folder (files are ignored), or None if it cannot be read."""
    try:
        with os.scandir(fd) as entries:
            return {e.name: e.is_symlink() for e in sorted(entries, key=lambda e: e.name)
                    if _is_folder(e)}
    except OSError:
        return None


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _assignments(submitted: int, student: str) -> dict[str, bool] | None:
    """The folders in a student's folder (see `_folders`), opened with no link followed."""
    try:
        fd = handed_in.folder(student, submitted)
    except (OSError, handed_in.Refused):
        return None
    try:
        return _folders(fd)
    finally:
        os.close(fd)


LINKED = "is a link to another folder, and links are never followed: hand in the files themselves"


def _notebooks_of(assignment: str) -> list[str]:
    """The notebooks a submission of ``assignment`` holds: an exercise's one, or each notebook
    of a plain nbgrader assignment."""
    plain = plain_assignments().get(assignment)
    return [f"{n}.ipynb" for n in plain.notebooks] if plain else [f"{assignment}.ipynb"]


def _problem(submitted: Path, student: str, assignment: str, student_linked: bool,
             assignments: dict[str, bool] | None) -> tuple[str | None, str | None]:
    """Why the submission SUBMITTED/``student``/``assignment`` cannot be graded (links and odd
    files refused, at every name below SUBMITTED; a notebook over the size limit refused from
    its size alone, before a byte of it is read or hashed), else None and the first of its
    notebooks handed in (a plain assignment's others may be missing: they score 0)."""
    if student_linked:
        return f"the student's folder {LINKED}", None
    if assignments is None:
        return "the student's folder could not be read", None
    if assignment not in assignments:
        return "no submission", None
    if assignments[assignment]:
        return f"the assignment's folder {LINKED}", None
    expected, first = _notebooks_of(assignment), None
    with handed_in.inside(submitted, (student, assignment)) as folder:
        for name in expected:
            found = handed_in.kind_at(name, folder)
            if found is None:
                continue
            if found != "a file":
                return f"{name} is {found}; only regular files are graded", None
            too_large = submission.too_large(handed_in.size_at(name, folder))
            if too_large:
                return (f"{name}: {too_large}" if len(expected) > 1 else too_large), None
            first = first or name
        if first is None:
            return f"no notebook called {' or '.join(expected)}" + _notebooks(folder), None
    return None, first


def _notebooks(folder: int) -> str:
    """The notebooks an open submission folder holds, to name in a problem (at most a few)."""
    try:
        with os.scandir(folder) as entries:
            found = sorted(e.name for e in entries if e.name.endswith(".ipynb"))
    except OSError:
        return ""
    if not found:
        return ""
    more = len(found) - SHOWN_NOTEBOOKS
    return (f" (found {', '.join(found[:SHOWN_NOTEBOOKS])}"
            + (f" and {more:,} more" if more > 0 else "") + ")")


def assignment_names() -> set[str]:
    """The names of the course's assignments: the only folders of a student's that are graded
    (its exercises, and the plain nbgrader assignments of solutions/)."""
    return {e.name for e in load().exercises} | set(plain_assignments())


def _not_ours(folders: list[str]) -> str:
    """The problem of a student's folders that are not assignments of the course (one row)."""
    first, rest = folders[0], folders[1:]
    why = names.problem(first)
    said = f"`{first}` is not an assignment of this course" + (f" (its name {why})" if why else "")
    if rest:
        more = len(rest) - SHOWN_NOTEBOOKS
        said += (f"; nor {'is' if len(rest) == 1 else 'are'} "
                 + ", ".join(f"`{name}`" for name in rest[:SHOWN_NOTEBOOKS])
                 + (f" and {more:,} more folders" if more > 0 else ""))
    return said


def _tasks(submitted: Path, student: str, linked: bool, found: dict[str, bool] | None,
           course: list[str], known: set[str]) -> list[Task]:
    """One student's tasks: one per assignment of the course that the class handed in, and one
    for all of their folders that are not assignments of the course."""
    refused = names.problem(student)
    tasks = []
    for assignment in course:
        first = None
        try:
            problem, first = (f"the student's folder is not graded: its name {refused}; "
                              "rename it and grade again", None) if refused else \
                _problem(submitted, student, assignment, linked, found)
        except handed_in.Refused as exc:  # a folder swapped for a link since it was listed
            problem = str(exc)
        except OSError as exc:  # e.g. a folder that may be listed but not entered
            problem = f"the submission could not be read ({type(exc).__name__})"
        notebook = None if problem or first is None else submitted / student / assignment / first
        tasks.append(Task(student, assignment, notebook, problem, submitted))
    others = sorted(name for name in found or {} if name not in known)
    if others:
        tasks.append(Task(student, others[0], None, _not_ours(others), submitted))
    return tasks


def discover(submitted: Path) -> list[Task]:
    """One task per student × assignment of the course handed in by anyone, problems included,
    and one per student for all of their other folders.

    Students and assignments are the folders found (files are ignored), used exactly as named:
    spaces, unicode, leading dashes, markup or `grades.csv` are all just names. A name that
    could pass for another (`autograder.names`: not UTF-8, invisible characters, look-alikes)
    is refused with its reason, never cleaned up: a student's rows say why, and a folder that
    is not exactly an assignment of the course is not one. A folder that cannot be read, a
    link to a folder (never followed: it could be a classmate's) and a notebook that is not a
    regular file or is too large get their rows with the reason; discovery itself never fails
    on a submission (only when SUBMITTED cannot be listed at all). Every folder below
    SUBMITTED is opened with no link followed (`handed_in.inside`), so a folder swapped for a
    link after it was listed is refused too.
    """
    known = assignment_names()
    try:
        with handed_in.inside(submitted) as root:
            students = _folders(root)
            seen = {s: None if linked else _assignments(root, s)
                    for s, linked in (students or {}).items()}
    except OSError:
        students = None
    if students is None:
        raise OSError(f"cannot list the folders in {submitted}")
    course = sorted({a for found in seen.values() if found for a in found if a in known})
    return [task for student, linked in students.items()
            for task in _tasks(submitted, student, linked, seen[student], course, known)]


@dataclass(frozen=True)
class Regrade:
    """What to grade again (`packlab grade --student/--assignment/--group`); empty: as usual."""

    students: frozenset[str] = frozenset()
    assignments: frozenset[str] = frozenset()
    groups: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.students or self.assignments or self.groups)

    def picks(self, task: Task) -> bool:
        return (not self.students or task.student in self.students) and \
            (not self.assignments or task.assignment in self.assignments)


def _results(out: Path, task: Task) -> dict | None:
    """The task's results.json, or None if there is none that can be read (grade it again).

    It is OUT/students/<student>/<assignment>/results.json, and must be a document of ours
    about this very task.
    """
    try:
        path = outfolder.submission_folder(out, task.student, task.assignment) / "results.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        extra = data["extra_data"]
        if (extra["student"], extra["assignment"]) != (task.student, task.assignment) \
                or not isinstance(data["score"], int | float) \
                or not isinstance(extra["max_score"], int | float) \
                or not isinstance(extra["error"], str | None):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data


def grades_row(data: dict) -> dict:
    """The grades.csv row of one results.json document (``sandbox``: bubblewrap, none, or
    empty when nothing of the student's ran)."""
    extra = data["extra_data"]
    lateness = extra.get("late") or {}
    adjustment = extra.get("adjustment") or {}
    marks = Marks.from_dict(extra.get("marks"))
    raw = extra.get("raw_score", data["score"])
    after_late = extra.get("after_late", number(max(0, raw - lateness.get("penalty", 0))))
    corrected = extra.get("corrected_score", data["score"])
    days = lateness.get("late_days")
    return {"student": extra["student"], "assignment": extra["assignment"],
            "score": data["score"], "max_score": extra["max_score"],
            "status": "not graded" if extra["error"] else "graded",
            "reason": extra["error"] or "; ".join(filter(None, [extra.get("problem"),
                                                                 _trust(extra["assignment"])])),
            "sandbox": extra.get("sandbox", "bubblewrap"), "memory": extra.get("memory", ""),
            "raw_score": raw, "submitted_at": lateness.get("submitted_at", ""),
            "due": lateness.get("due", ""), "late_days": "" if days is None else days,
            "late_penalty": lateness.get("penalty", 0), "late_note": lateness.get("note", ""),
            "timestamp_flag": lateness.get("flag", ""),
            "adjustment": number(corrected - after_late) if adjustment else "",
            "adjustment_reason": adjustment.get("reason", ""),
            "manual": number(marks.manual) if marks else "",
            "extra_credit": number(marks.extra_credit) if marks else "",
            "free_late_days": lateness.get("free_days", 0),
            **_group_points(extra)}


def _group_points(extra: dict) -> dict:
    """grades.csv's per-group cells (`report.GROUP_COLUMN` + group): the points each test group
    earned (none from an older results.json, which did not keep them)."""
    return {report.GROUP_COLUMN + str(g["group"]): number(g["points"])
            for g in extra.get("groups") or [] if isinstance(g, dict)
            and isinstance(g.get("points"), int | float) and not isinstance(g["points"], bool)}


def _trust(assignment: str) -> str:
    """grades.csv's reason for a graded plain nbgrader assignment: the trust it was graded at."""
    return f"graded as {TRUST}" if assignment in plain_assignments() else ""


def _unwritten(task: Task, sandboxed: bool) -> dict:
    """The row of a submission whose results could not be written (the grader's fault)."""
    return {"student": task.student, "assignment": task.assignment, "score": 0,
            "max_score": max_score(task.assignment), "status": "not graded",
            "reason": "the grader could not write this submission's results; run again",
            "sandbox": confinement(sandboxed)}


@dataclass(frozen=True)
class Dates:
    """What dates and corrections are judged by: the course's exercises, the gradebook's due
    dates and the overrides."""

    exercises: dict[str, Exercise | PlainAssignment]
    gradebook: late.GradebookDates
    overrides: dict[Key, Override] | None  # None: keep each submission's last override
    marks: dict[Key, Marks] | None = None  # the gradebook's; None: keep each one's last
    choices: dict[Key, str] = dataclasses.field(default_factory=dict)  # `packlab counts`
    free: dict[Key, int] = dataclasses.field(default_factory=dict)  # free late days left

    def corrections(self, task: Task, result: Result, stored: dict | None,
                    graded_at: str = "", graded: Graded | None = None) -> Corrections:
        """The late penalty, override, gradebook marks and counted submission of one graded
        task (``graded_at``: when it was graded, the time a submission without a timestamp may
        count as; ``graded``: its record, whose history holds the earlier submissions)."""
        exercise = self.exercises.get(task.assignment)
        if exercise is None:
            lateness = late.Lateness()
        else:
            due, source = ((self.gradebook.due[exercise.name], late.FROM_GRADEBOOK)
                           if exercise.name in self.gradebook.due
                           else (exercise.due, late.FROM_COURSE))
            extension = self.gradebook.extensions.get((task.student, task.assignment))
            if extension and due is not None:
                due, source = late.extended(due, extension), f"{source}, with an extension"
            folder = task.notebook.parent if task.notebook else None
            lateness = late.assess(folder, due, source, exercise.late_policy,
                                   0 if result.error else result.score, result.max_score,
                                   _when(graded_at), task.submitted,
                                   self.free.get((task.student, task.assignment), 0),
                                   _latest_claim(graded))
        if self.overrides is not None:
            override = self.overrides.get((task.student, task.assignment))
        else:
            override = Override.from_dict((stored or {}).get("extra_data", {}).get("adjustment"))
        if self.marks is not None:
            marks = self.marks.get((task.student, task.assignment))
        else:
            marks = Marks.from_dict((stored or {}).get("extra_data", {}).get("marks"))
        return Corrections(lateness, override, marks,
                           self._counted(task, result, lateness, graded, graded_at))

    def due(self, task: Task) -> datetime | None:
        """The task's due date, with the student's extension."""
        exercise = self.exercises.get(task.assignment)
        if exercise is None:
            return None
        due = self.gradebook.due.get(exercise.name, exercise.due)
        return late.extended(due, self.gradebook.extensions.get((task.student, task.assignment)))

    def free_days(self, tasks: list[Task], budget: int) -> dict[Key, int]:
        """Each task's free late days left (course.toml's ``free_late_days``), used up by each
        student's late submissions in the order of their due dates."""
        if not budget:
            return {}
        last = datetime.max.replace(tzinfo=UTC)
        left: dict[str, int] = {}
        free = {}
        for task in sorted(tasks, key=lambda t: (self.due(t) or last, t.assignment)):
            exercise = self.exercises.get(task.assignment)
            now = left.get(task.student, budget)
            free[task.student, task.assignment] = now
            if exercise is not None and task.notebook is not None:
                days = late.days_late(task.notebook.parent, self.due(task), exercise.late_policy,
                                      below=task.submitted)
                left[task.student] = now - min(now, days)
        return free

    def _counted(self, task: Task, result: Result, lateness: late.Lateness,
                 graded: Graded | None, graded_at: str) -> Counted:
        """Which of the task's submissions counts (`autograder.term.counts`)."""
        exercise = self.exercises.get(task.assignment)
        policy = self.choices.get((task.student, task.assignment)) \
            or getattr(exercise, "counts", "latest")
        current = Attempt(graded_at, lateness.submitted_at, 0 if result.error else result.score,
                          lateness.penalty, lateness.late_days, result.error,
                          lateness.flag == late.BACKDATED)
        tried = counts.attempts(graded.history, graded.notebook, current) if graded \
            else (current,)
        return Counted(policy, tried, counts.choose(policy, tried))


def _latest_claim(graded: Graded | None) -> datetime | None:
    """The latest time an earlier submission in ``graded``'s history claimed (its timestamp)."""
    if graded is None:
        return None
    earlier = counts.attempts(graded.history, graded.notebook, Attempt())[:-1]
    claims = [when for a in earlier if (when := _when(a.submitted_at)) is not None]
    return max(claims, default=None)


def _when(iso: str) -> datetime | None:
    try:
        return datetime.fromisoformat(iso)
    except ValueError:
        return None


def _due_dates(gradebook: str | None, course_id: str) -> late.GradebookDates:
    """The gradebook's due dates and extensions (none when there is no gradebook, or no such
    SQLite file)."""
    none = late.GradebookDates({}, {})
    if gradebook is None:
        return none
    from sqlalchemy.engine import make_url

    url = make_url(gradebook)
    if url.drivername.startswith("sqlite") and not (url.database and Path(url.database).is_file()):
        return none
    return late.gradebook_dates(gradebook, course_id)


def _stored(data: dict | None) -> dict | None:
    """The dates and corrections a results.json was written with."""
    if data is None:
        return None
    extra = data["extra_data"]
    return {"late": extra.get("late"), "adjustment": extra.get("adjustment"),
            "marks": extra.get("marks"), "counted": extra.get("counted")}


def grade_class(submitted: Path, out: Path, jobs: int | None = None, force: bool = False,
                limits: Limits | None = None,
                progress: Callable[[Iterator, int], Iterator] | None = None,
                sandboxed: bool = True, regrade: Regrade = Regrade(),
                overrides: dict[Key, Override] | None = None,
                gradebook: str | None = None, course_id: str = "",
                scheduler: str | None = None, book: Book | None = None,
                said: Callable[[str], None] | None = None) -> list[dict]:
    """Grade everything under ``submitted`` into ``out``; return the grades.csv rows.

    With ``sandboxed`` (the default) grading refuses to start (`isolation.SandboxUnavailable`)
    unless bubblewrap works here; ``sandboxed=False`` grades without one, and says so everywhere.
    ``regrade`` grades again just what it names and keeps every other result. ``overrides``
    replaces every submission's override (None keeps them); ``gradebook`` is the URL of
    nbgrader's gradebook (of the course ``course_id``) whose due dates come before course.toml's
    (`late.GradebookUnreadable` when it cannot be read). With ``scheduler`` the submissions are
    graded on that Dask cluster's workers instead of ``jobs`` processes here
    (`cluster.ClusterUnavailable` when it cannot grade as this machine would). ``book``, when
    given, writes the rows into nbgrader's gradebook and returns what graders gave there
    (`Marks`, by student and assignment; None when it could not be read): every results.json,
    feedback page and row then totals them as `nbgrader export` does.

    Also writes the class's summary.md, class.json and class.png; `summary.summary(rows)` is
    the text to print. ``said`` is told, in a line, each step after the grading itself (on a
    class of hundreds they take a while, with nothing else to show).
    """
    limits = limits or Limits()
    with _grader(jobs, scheduler, sandboxed) as grader:
        return _grade_class(grader, submitted, out, force, limits, progress, sandboxed, regrade,
                            overrides, gradebook, course_id, book, said or (lambda _: None))


Start = Callable[..., Future]  # start grading (task, limits, sandboxed, groups)
Book = Callable[[list[dict]], dict[Key, Marks] | None]  # grades.csv rows -> the gradebook's


@dataclass(frozen=True)
class _Grader:
    """Where submissions are graded: ``start`` grades one; ``prepare`` is given the check suites
    of everything about to be graded, before the first ``start``."""
    start: Start
    prepare: Callable[[list[str]], object] = lambda suites: None


@contextmanager
def _grader(jobs: int | None, scheduler: str | None, sandboxed: bool) -> Iterator[_Grader]:
    """Where submissions are graded: ``jobs`` processes here, or the Dask cluster at
    ``scheduler`` (whose workers read their own examples); fails closed when it has no working
    sandbox (unless not ``sandboxed``)."""
    if scheduler:
        with cluster.connected(scheduler, sandboxed) as start:
            yield _Grader(start)
        return
    if sandboxed:
        isolation.require_sandbox()  # fail closed: no sandbox, no grading
    # Each grading process dies with this one (killed outright, say), and its sandboxes with
    # it: the sandboxes die with their own grading process only. The property checks'
    # examples of the suites to be graded are read (or drawn) once here, before the processes
    # fork at the first submit, not in every process; the other suites' are never read.
    with ProcessPoolExecutor(max_workers=max(1, jobs or os.cpu_count() or 1),
                             initializer=isolation.die_with, initargs=(os.getpid(),)) as pool:
        yield _Grader(partial(pool.submit, grade_one), example_cache.prepare)


def _suites(tasks: list[Task]) -> list[str]:
    """The check suites of the course's exercises among ``tasks``."""
    suites = {e.name: e.suite for e in load().exercises}
    return sorted({suites[t.assignment] for t in tasks if t.assignment in suites})


def _stopped(future: Future) -> BaseException | None:
    """Why grading one task never finished (a worker killed mid-task, a lost cluster), or None."""
    return CancelledError() if future.cancelled() else future.exception()


def _not_finished(out: Path, task: Task, why: BaseException, sandboxed: bool) -> Graded:
    """The result of a task whose grading stopped. Nothing of it is recorded, so the next run
    grades it again."""
    (outfolder.submission_folder(out, task.student, task.assignment) / record.RECORD).unlink(
        missing_ok=True)
    detail = f": {why}" if isinstance(why, cluster.ClusterUnavailable) else ""
    problem = (f"grading stopped before it finished ({type(why).__name__}{detail}); "
               "run the command again to grade it")
    return grade_one(dataclasses.replace(task, notebook=None, problem=problem), Limits(),
                     sandboxed)


def _correct(out: Path, tasks: list[Task], records: dict[Task, Graded | None],
             dates: Dates) -> None:
    """Dates and corrections: write again the results of ``tasks`` whose changed."""
    for task in tasks:
        graded, stored = records[task], _results(out, task)
        if graded is not None and stored is not None:
            fixes = dates.corrections(task, graded.result, stored, graded.graded_at, graded)
            if fixes.to_dict() != _stored(stored):
                report.write_submission(out, graded.result, fixes, graded.cells)


def _rows(out: Path, tasks: list[Task], why: dict[Task, str | None],
          sandboxed: bool) -> tuple[list[dict], list[dict]]:
    """The results.json documents of ``tasks`` (those that can be read) and grades.csv's rows,
    each with why it was graded again (`regraded`; not a column of grades.csv) and what was set
    aside as forged (`set_aside`)."""
    results = [_results(out, t) for t in tasks]
    rows = [{**(grades_row(data) if data else _unwritten(task, sandboxed)),
             "regraded": why[task] if why[task] not in (None, "new") else ""}
            for task, data in zip(tasks, results, strict=True)]
    return [data for data in results if data], set_aside.marked(rows, set_aside.read(out),
                                                               max_score)


ASKED = "asked to regrade"  # --force, --student, --assignment or --group


def _why(task: Task, old: Graded | None, digest: str | None, has_results: bool,
         force: bool, regrade: Regrade) -> str | None:
    """Why ``task`` is graded on this run: "new", `ASKED`, or why its record is stale; None
    when its record stands."""
    if not regrade.picks(task):
        return None
    if old is None or not has_results:
        return "new"
    if force or regrade:
        return ASKED
    return record.stale(old, digest, task.problem)


def _dated() -> dict:
    """What has a due date and a late policy: the course's exercises and its plain nbgrader
    assignments (course.toml's [[plain]] entries)."""
    return {**plain_assignments(), **{e.name: e for e in load().exercises}}


def _digest(task: Task) -> str | None:
    """What a rerun compares: the SHA-256 of the task's notebook; for a plain assignment, of
    each of its notebooks (a missing one too), so a change to any of them grades it again."""
    notebooks = _notebooks_of(task.assignment)
    if len(notebooks) == 1 or task.notebook is None:
        return record.digest(task.notebook, task.submitted)
    each = "\n".join(f"{name}:{record.digest(task.notebook.parent / name, task.submitted)}"
                     for name in notebooks)
    return hashlib.sha256(each.encode()).hexdigest()


def _grade_class(grader: _Grader, submitted: Path, out: Path, force: bool, limits: Limits,
                 progress: Callable[[Iterator, int], Iterator] | None, sandboxed: bool,
                 regrade: Regrade, overrides: dict[Key, Override] | None,
                 gradebook: str | None, course_id: str, book: Book | None,
                 said: Callable[[str], None]) -> list[dict]:
    tasks = discover(submitted)
    dates = Dates(_dated(), _due_dates(gradebook, course_id),
                  overrides, choices=counts.read_choices(out))
    dates = dataclasses.replace(dates, free=dates.free_days(tasks, load().free_late_days))
    outfolder.remove_partial(out)  # what a killed run was writing when it died
    records = {t: record.read(out, t.student, t.assignment) for t in tasks}
    digests = {t: _digest(t) for t in tasks}
    why = {t: _why(t, records[t], digests[t], _results(out, t) is not None, force, regrade)
           for t in tasks}
    todo = [t for t in tasks if why[t] is not None]

    def groups(task: Task) -> tuple[str, ...] | None:
        old = records[task]
        return regrade.groups if regrade.groups and why[task] == ASKED and old \
            and not old.result.error else None

    if todo:
        grader.prepare(_suites(todo))
    futures = {grader.start(task, limits, sandboxed, groups(task)): task for task in todo}
    # Only now, with every grading process started (forked): none inherits a half-done import.
    # Nothing to grade: the class picture is most likely kept as it is (summary.write_class).
    if todo:
        threading.Thread(target=summary.prepare_picture, daemon=True).start()
    finished = as_completed(futures)
    shown = progress(finished, len(futures)) if progress and futures else finished
    for future in shown:
        task, stopped = futures[future], _stopped(future)
        if stopped is not None:
            graded, records[task] = _not_finished(out, task, stopped, sandboxed), None
            report.write_submission(out, graded.result, dates.corrections(
                task, graded.result, _results(out, task)))
            continue
        graded = future.result()
        if groups(task) and not graded.result.error:
            graded = record.merged(records[task], graded)
        stored = _results(out, task)
        graded = record.stamped(graded, digests[task], records[task],
                                None if why[task] == "new" else why[task],
                                (stored or {}).get("extra_data", {}).get("late"))
        record.write(out, graded)
        records[task] = graded
        report.write_submission(out, graded.result, dates.corrections(
            task, graded.result, stored, graded.graded_at, graded), graded.cells)
    said(f"Reading the results of {len(tasks):,} submission{'s' * (len(tasks) != 1)} (and "
         "writing again those whose dates or corrections changed)…")
    _correct(out, [t for t in tasks if t not in futures.values()], records, dates)
    results, rows = _rows(out, tasks, why, sandboxed)
    marks = book(rows) if book is not None else None
    if marks is not None:  # the gradebook's manual grades and extra credit, on every row
        said("Totalling what graders gave in nbgrader's gradebook on every result…")
        _correct(out, tasks, records, dataclasses.replace(dates, marks=marks))
        results, rows = _rows(out, tasks, why, sandboxed)
    said("Writing grades.csv, summary.md, misconceptions.csv and the class picture class.png…")
    report.write_grades(out, rows)
    summary.write_class(out, rows, results)  # summary.md, class.*
    return rows
