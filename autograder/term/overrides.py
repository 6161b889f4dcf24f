"""Overrides: an instructor's corrections to grades, read from a CSV file, each with its reason.

Columns: ``student``, ``assignment`` (its name or number), then ``points`` (added to the
score: ``+1``, ``-0.5``) or ``score`` (the score to give), and ``reason`` (shown to the student).
An override applies after grading and after the late penalty, and the score stays between 0 and
the assignment's points. A row that cannot be used gets a message naming its line; every other
row still applies.
"""

from __future__ import annotations

import csv
import itertools
import math
from dataclasses import asdict, dataclass
from pathlib import Path

REQUIRED = ("student", "assignment", "reason")
REASON_CHARS = 500  # a reason is shown on the student's page: a few sentences at most
MAX_ROWS = 100_000

Key = tuple[str, str]  # (student, assignment)


class OverridesUnreadable(Exception):
    """The overrides file as a whole cannot be used; the message says why."""


@dataclass(frozen=True)
class Override:
    """One correction: ``points`` added, or ``score`` given; and why."""

    reason: str
    points: float | None = None
    score: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Override | None:
        """The override stored in a results.json, or None if there is none (or it is not ours)."""
        if not isinstance(data, dict) or not isinstance(data.get("reason"), str):
            return None
        points, score = data.get("points"), data.get("score")
        if not all(v is None or isinstance(v, int | float) for v in (points, score)):
            return None
        return cls(data["reason"][:REASON_CHARS], points, score)

    def applied(self, score: float, max_score: float) -> float:
        """The score after this override, kept between 0 and ``max_score``."""
        new = self.score if self.score is not None else score + (self.points or 0)
        return round(min(max(new, 0), max_score), 2)


def _number(text: str, column: str) -> float | None:
    if not text.strip():
        return None
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"{column} {text.strip()[:40]!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{column} must be a finite number")
    return int(value) if value.is_integer() else value


def _override(row: dict) -> Override:
    """The override one CSV row asks for; ValueError says what is wrong with it."""
    if not (row.get("student") or "").strip() or not (row.get("assignment") or "").strip():
        raise ValueError("student and assignment must both be given")
    points = _number(row.get("points") or "", "points")
    score = _number(row.get("score") or "", "score")
    if (points is None) == (score is None):
        raise ValueError("give either points (added to the score) or score (the score to give), "
                         "not both and not neither")
    if score is not None and score < 0:
        raise ValueError("score cannot be negative")
    reason = (row.get("reason") or "").strip()
    if not reason:
        raise ValueError("the reason is empty (it is shown to the student)")
    if len(reason) > REASON_CHARS:
        raise ValueError(f"the reason is longer than {REASON_CHARS} characters")
    return Override(reason, points, score)


def _assignment(name: str) -> str:
    """An assignment's name as given, or the course's exercise it names ("02" → 02-greedy-pack)."""
    from packlab.manifest import load

    course = load()
    if name in {e.name for e in course.exercises}:
        return name
    try:
        return course.exercise(name).name
    except KeyError:
        return name  # matches no submission: `unmatched` says so


def read(path: Path) -> tuple[dict[Key, Override], list[str]]:
    """The overrides in a CSV file, and a message for each row that cannot be used.

    `OverridesUnreadable` when the file cannot be read or lacks a column.
    """
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = set(reader.fieldnames or ())
            missing = [c for c in REQUIRED if c not in columns]
            if missing or not columns & {"points", "score"}:
                raise OverridesUnreadable(
                    f"{path} needs the columns student, assignment, points or score, and reason "
                    f"(missing: {', '.join(missing or ['points or score'])})")
            rows = [(reader.line_num, row) for row in itertools.islice(reader, MAX_ROWS)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise OverridesUnreadable(f"{path} could not be read ({type(exc).__name__}: "
                                  f"{str(exc)[:200]})") from None
    found: dict[Key, Override] = {}
    lines: dict[Key, int] = {}
    problems = []
    for line, row in rows:
        try:
            override = _override(row)
        except ValueError as exc:
            problems.append(f"{path.name}, line {line}: {exc}; this row was not applied")
            continue
        key = (row["student"].strip(), _assignment(row["assignment"].strip()))
        if key in found:
            problems.append(f"{path.name}, line {line}: a second override for {key[0]} / "
                            f"{key[1]}; the one on line {lines[key]} was applied")
            continue
        found[key], lines[key] = override, line
    return found, problems


def unmatched(overrides: dict[Key, Override], rows: list[dict]) -> list[str]:
    """A message for each override that names no row of grades.csv (a typo in a name?)."""
    known = {(r["student"], r["assignment"]) for r in rows}
    return [f"an override for {student} / {assignment} matches no submission, so it was not "
            "applied" for student, assignment in overrides if (student, assignment) not in known]
