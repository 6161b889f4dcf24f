"""Late work: when a submission was handed in, when it was due, and what lateness costs.

nbgrader writes the time of each submission to ``timestamp.txt`` in its folder (the exchange's
`submit` and `collect`, and `zip_collect`) and reads it with `nbgrader.utils.parse_utc`; so do
we. The due date is nbgrader's gradebook's when it has one for the assignment, else
course.toml's `due`. A missing or unreadable timestamp never costs anything: the note says so.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from autograder import handed_in
from packlab.course.manifest import LatePolicy

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

    def to_dict(self) -> dict:
        return asdict(self)


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="seconds")


def submitted_at(folder: Path) -> tuple[datetime | None, str]:
    """The time in the folder's timestamp.txt (UTC), or None and why it cannot be told."""
    from nbgrader.utils import parse_utc

    try:  # a regular file only: a FIFO would block the grader, a link read another's
        with handed_in.opened(folder / TIMESTAMP, TIMESTAMP) as handle:
            raw = handle.read(TIMESTAMP_BYTES + 1)
    except FileNotFoundError:
        return None, f"no {TIMESTAMP} in the submission"
    except handed_in.Refused as exc:
        return None, str(exc)
    except OSError as exc:
        return None, f"{TIMESTAMP} could not be read ({type(exc).__name__})"
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return None, f"{TIMESTAMP} is empty"
    try:
        if len(raw) > TIMESTAMP_BYTES:
            raise ValueError("too long")
        return parse_utc(text).replace(tzinfo=UTC), ""
    except (ValueError, OverflowError, TypeError, AttributeError):
        return None, f"{TIMESTAMP} does not hold a date nbgrader can read"


def gradebook_due_dates(url: str, course_id: str = "") -> dict[str, datetime]:
    """Each assignment's due date in nbgrader's gradebook at ``url`` (those that have one).

    ``course_id`` is the course's nbgrader id (nbgrader adds the course it is given when missing).
    """
    from nbgrader.api import Gradebook

    try:
        with Gradebook(url, course_id) as gradebook:
            return {a.name: a.duedate.replace(tzinfo=UTC)
                    for a in gradebook.assignments if a.duedate is not None}
    except Exception as exc:  # noqa: BLE001 - sqlalchemy and nbgrader raise many kinds
        raise GradebookUnreadable(f"nbgrader's gradebook {url} could not be read "
                                  f"({type(exc).__name__}: {str(exc)[:200]})") from None


def _days(n: int) -> str:
    return f"{n} day{'s' * (n != 1)}"


def _points(x: float) -> str:
    x = round(x, 2)
    return f"{int(x) if float(x).is_integer() else x} point{'s' * (x != 1)}"


def assess(folder: Path | None, due: datetime | None, due_from: str, policy: LatePolicy,
           score: float, max_score: float) -> Lateness:
    """How late the submission in ``folder`` was and what that costs a ``score`` (never below 0).

    Days late are counted up: a minute late is one day. ``folder`` None: nothing handed in.
    """
    if folder is None:
        return Lateness(due=_iso(due) if due else "", due_from=due_from if due else "")
    when, why = submitted_at(folder)
    stamp = Lateness(submitted_at=_iso(when) if when else "", due=_iso(due) if due else "",
                     due_from=due_from if due else "")
    if when is None:
        if due is None and policy.zero_after is None:
            return stamp
        return replace(stamp, note=f"{why}, so it is not counted late")
    days = max(0, math.ceil((when - due).total_seconds() / DAY)) if due else None
    stamp = replace(stamp, late_days=days)
    if policy.zero_after is not None and when > policy.zero_after:
        return replace(stamp, penalty=score,
                     note=f"handed in after the cutoff ({_iso(policy.zero_after)}): the score is 0")
    if not days:
        return replace(stamp, note="on time" if days == 0 else "")
    if not policy.per_day:
        return replace(stamp, note=f"{_days(days)} late (no penalty)")
    penalty = round(min(score, policy.per_day * max_score * days), 2)
    return replace(stamp, penalty=penalty,
                 note=f"{_days(days)} late: {_points(penalty)} off "
                      f"({policy.per_day * 100:g} % of the points per day late, "
                      "a started day counts)")
