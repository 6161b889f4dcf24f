"""Late work: when a submission was handed in, when it was due, and what lateness costs.

nbgrader writes the time of each submission to ``timestamp.txt`` in its folder (the exchange's
`submit` and `collect`, and `zip_collect`) and reads it with `nbgrader.utils.parse_utc`; so do
we, reading it as the student's file it is (`handed_in.read`: a small regular file, no symlink
followed, no FIFO opened). The due date is nbgrader's gradebook's when it has one for the
assignment, else course.toml's `due`; a student's extension in the gradebook (nbgrader's
`Gradebook.grant_extension`) moves it for that student. When the assignment has a due date, a
missing, unreadable or future timestamp is flagged (`Lateness.flag`, grades.csv's
``timestamp_flag``) and counts as course.toml's ``late_policy.missing_timestamp`` says.

A resubmission whose timestamp claims a time before the one its earlier submission gave (which
the grader had already collected) is flagged ``backdated`` and its claim is not believed: it
counts as handed in when graded, the latest it can have come in.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autograder.run import handed_in
from packlab.manifest import LatePolicy

TIMESTAMP = "timestamp.txt"
TIMESTAMP_BYTES = 1_000  # nbgrader's timestamps are about 30 characters; a student can write more
DAY = 86_400
FROM_GRADEBOOK = "nbgrader's gradebook"
FROM_COURSE = "course.toml"


class GradebookUnreadable(Exception):
    """nbgrader's gradebook could not be read; the message says why, in plain words."""


@dataclass(frozen=True)
class Lateness:
    """When one submission came in against its due date, and the points that cost."""

    submitted_at: str = ""  # ISO 8601, UTC; "" when unknown
    due: str = ""  # ISO 8601, UTC; "" when the assignment has none
    due_from: str = ""  # FROM_GRADEBOOK or FROM_COURSE
    late_days: int | None = None  # started days late; None when it cannot be told
    penalty: float = 0  # points taken off
    note: str = ""  # what happened, in plain words
    flag: str = ""  # "backdated"; with a due date: "missing", "unreadable", "in the future"
    free_days: int = 0  # of the student's free late days, those this submission used

    def to_dict(self) -> dict:
        return asdict(self)


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="seconds")


NO_TIMESTAMP = f"no {TIMESTAMP} in the submission"
BACKDATED = "backdated"  # `Lateness.flag` of a resubmission claiming a time before its last one
FUTURE_SLACK = 300  # seconds: a clock a little ahead of the grader's is not "in the future"


def submitted_at(folder: Path, now: datetime | None = None,
                 below: Path | None = None) -> tuple[datetime | None, str]:
    """The time in the folder's timestamp.txt (UTC), or None and why it cannot be told (a
    missing file: `NO_TIMESTAMP`). A time after ``now`` (the grader's clock) is refused.
    ``below``: SUBMITTED, when the folder is a submission's (no link followed under it)."""
    try:  # a regular file only: a FIFO would block the grader, a link read another's
        raw = handed_in.read(folder / TIMESTAMP, TIMESTAMP_BYTES, TIMESTAMP, below)
    except FileNotFoundError:
        return None, NO_TIMESTAMP
    except handed_in.Refused as exc:
        return None, str(exc)  # says which kind of file it is, or how large
    except OSError as exc:
        return None, f"{TIMESTAMP} could not be read ({type(exc).__name__})"
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return None, f"{TIMESTAMP} is empty"
    from nbgrader.utils import parse_utc  # here: importing nbgrader costs a second of CPU

    try:
        when = parse_utc(text).replace(tzinfo=UTC)
    except (ValueError, OverflowError, TypeError, AttributeError):
        return None, f"{TIMESTAMP} does not hold a date nbgrader can read"
    now = now or datetime.now(UTC)
    if (when - now).total_seconds() > FUTURE_SLACK:
        return None, f"{TIMESTAMP} holds a time in the future ({_iso(when)})"
    return when, ""


def _flag(why: str) -> str:
    """A timestamp problem in one word or two, for grades.csv."""
    if why == NO_TIMESTAMP:
        return "missing"
    return "in the future" if "in the future" in why else "unreadable"


@dataclass(frozen=True)
class GradebookDates:
    """nbgrader's gradebook's due dates (by assignment) and extensions (by student and
    assignment: what nbgrader adds to the due date for that student)."""

    due: dict[str, datetime]
    extensions: dict[tuple[str, str], timedelta]


def gradebook_dates(url: str, course_id: str = "") -> GradebookDates:
    """The due dates and students' extensions in nbgrader's gradebook at ``url``.

    ``course_id`` is the course's nbgrader id (nbgrader adds the course it is given when missing).
    """
    from nbgrader.api import Gradebook, SubmittedAssignment

    try:
        with Gradebook(url, course_id) as gradebook:
            due = {a.name: a.duedate.replace(tzinfo=UTC)
                   for a in gradebook.assignments if a.duedate is not None}
            extended = gradebook.db.query(SubmittedAssignment).filter(
                SubmittedAssignment.extension.isnot(None)).all()
            extensions = {(s.student_id, s.assignment.name): s.extension for s in extended}
    except Exception as exc:  # noqa: BLE001 - sqlalchemy and nbgrader raise many kinds
        raise GradebookUnreadable(f"nbgrader's gradebook {url} could not be read "
                                  f"({type(exc).__name__}: {str(exc)[:200]})") from None
    return GradebookDates(due, extensions)


def extended(due: datetime | None, extension: timedelta | None) -> datetime | None:
    """A due date moved by a student's extension."""
    return due + extension if due is not None and extension else due


def _days(n: int) -> str:
    return f"{n} day{'s' * (n != 1)}"


def _points(x: float) -> str:
    x = round(x, 2)
    return f"{int(x) if float(x).is_integer() else x} point{'s' * (x != 1)}"


def assess(folder: Path | None, due: datetime | None, due_from: str, policy: LatePolicy,
           score: float, max_score: float, now: datetime | None = None,
           below: Path | None = None, free: int = 0,
           claimed_before: datetime | None = None) -> Lateness:
    """How late the submission in ``folder`` was and what that costs a ``score`` (never below 0).

    Days late are counted up: a minute late is one day. ``free``: the student's free late days
    still left, used up first (before the late policy; a cutoff still gives 0). ``folder``
    None: nothing handed in.
    ``below``: SUBMITTED (see `submitted_at`). Without a time to trust,
    `LatePolicy.missing_timestamp` says how it counts: "on-time", "when-graded" (handed in at
    ``now``, the grader's clock) or "zero". ``claimed_before``: the latest time an earlier
    submission of the same student and assignment claimed; a timestamp before it is backdated.
    """
    if folder is None:
        return Lateness(due=_iso(due) if due else "", due_from=due_from if due else "")
    now = now or datetime.now(UTC)
    when, why = submitted_at(folder, now, below)
    stamp = Lateness(submitted_at=_iso(when) if when else "", due=_iso(due) if due else "",
                     due_from=due_from if due else "")
    if when is not None and claimed_before is not None and when < claimed_before:
        stamp = replace(stamp, flag=BACKDATED)
        when, why = now, (f"its {TIMESTAMP} claims {_iso(when)}, before the time the submission "
                          f"it replaced gave ({_iso(claimed_before)}), so it is counted as "
                          f"handed in when graded ({_iso(now)})")
        if due is None and policy.zero_after is None:
            return replace(stamp, note=why)
    if when is None:
        if due is None and policy.zero_after is None:
            return stamp
        stamp = replace(stamp, flag=_flag(why))
        if policy.missing_timestamp == "zero":
            return replace(stamp, penalty=score,
                           note=f"{why}, so the score is 0 (the course's late policy)")
        if policy.missing_timestamp == "on-time":
            return replace(stamp, note=f"{why}, so it is not counted late")
        when, why = now, f"{why}, so it is counted as handed in when graded ({_iso(now)})"
    days = max(0, math.ceil((when - due).total_seconds() / DAY)) if due else None
    stamp = replace(stamp, late_days=days)
    said = f"{why}; " if why else ""
    if policy.zero_after is not None and when > policy.zero_after:
        return replace(stamp, penalty=score, note=f"{said}handed in after the cutoff "
                                                  f"({_iso(policy.zero_after)}): the score is 0")
    if not days:
        return replace(stamp, note=f"{said}on time" if days == 0 else said.removesuffix("; "))
    used = min(days, max(0, free))
    if used:
        stamp = replace(stamp, free_days=used)
        said += (f"{_days(days)} late, {used} of your free late days used "
                 f"({_days(free - used)} left); ")
        days -= used
        if not days:
            return replace(stamp, note=f"{said}so no penalty".replace("; so", ", so"))
    if not policy.per_day:
        return replace(stamp, note=f"{said}{_days(days)} late (no penalty)")
    penalty = round(min(score, policy.per_day * max_score * days), 2)
    return replace(stamp, penalty=penalty,
                   note=f"{said}{_days(days)} late: {_points(penalty)} off "
                        f"({policy.per_day * 100:g} % of the points per day late, "
                        "a started day counts)")


def days_late(folder: Path | None, due: datetime | None, policy: LatePolicy,
              now: datetime | None = None, below: Path | None = None) -> int:
    """The started days late of the submission in ``folder`` (0 when it cannot be told): what
    it would take of a student's free late days."""
    lateness = assess(folder, due, "", policy, 0, 1, now, below)
    return lateness.late_days or 0
