"""Dates and corrections: what happens to a graded score after the tests.

First the late penalty (`autograder.term.late`), then the instructor's override
(`autograder.term.overrides`), then what graders gave in nbgrader's gradebook (`Marks`: manual
scores and extra credit, read back from it by `autograder.term.gradebook`). The tests' own score is
kept (``raw_score``); ``score`` is the final one, the total `nbgrader export` gives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from autograder.term.late import Lateness
from autograder.term.overrides import Override


@dataclass(frozen=True)
class Marks:
    """What graders gave in nbgrader's gradebook on top of packlab's scores: the difference
    their manual scores make to the auto scores, and their extra credit."""

    manual: float = 0
    extra_credit: float = 0

    def __bool__(self) -> bool:
        return bool(self.manual or self.extra_credit)

    def to_dict(self) -> dict:
        return {"manual": number(self.manual), "extra_credit": number(self.extra_credit)}

    @classmethod
    def from_dict(cls, data: object) -> Marks | None:
        """The marks stored in a results.json, or None if there are none (or not ours)."""
        if not isinstance(data, dict):
            return None
        values = (data.get("manual", 0), data.get("extra_credit", 0))
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            return None
        return cls(*values) or None


@dataclass(frozen=True)
class Corrections:
    late: Lateness = field(default_factory=Lateness)
    override: Override | None = None
    marks: Marks | None = None

    def to_dict(self) -> dict:
        """As stored in results.json's extra_data (compared on a rerun to see what changed)."""
        return {"late": self.late.to_dict(),
                "adjustment": self.override.to_dict() if self.override else None,
                "marks": self.marks.to_dict() if self.marks else None}


def number(x: float) -> int | float:
    """``x`` to two decimals, an int when it is whole (4.0 → 4)."""
    x = round(float(x), 2)
    return int(x) if x.is_integer() else x


@dataclass(frozen=True)
class Scored:
    raw: int | float  # what the tests gave
    after_late: int | float
    corrected: int | float  # after the override: what packlab writes into the gradebook
    final: int | float  # with the gradebook's manual scores and extra credit

    @property
    def adjustment(self) -> int | float:
        """What the override changed."""
        return number(self.corrected - self.after_late)


def scored(raw: float, max_score: float, corrections: Corrections) -> Scored:
    """The score after the late penalty, then after the override, then with the gradebook's
    marks (never below 0, as `nbgrader export` totals)."""
    after_late = number(max(0.0, raw - corrections.late.penalty))
    corrected = after_late
    if corrections.override is not None:
        corrected = number(corrections.override.applied(after_late, max_score))
    marks = corrections.marks or Marks()
    final = number(max(0.0, corrected + marks.manual + marks.extra_credit))
    return Scored(number(raw), after_late, corrected, final)


def _shown(iso: str) -> str:
    """An ISO 8601 UTC time as a person reads it: 2026-12-01 17:00:00 UTC."""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def override_line(override: Override) -> str:
    """The override as the student reads it: what changed, and why."""
    change = (f"score set to {number(override.score)}" if override.score is not None
              else f"{number(override.points):+g} point{'s' * (abs(override.points) != 1)}")
    return f"Adjustment by your instructor: {change}. Reason: {override.reason}"


def _signed(x: float) -> str:
    return f"{number(x):+g} point{'s' * (abs(x) != 1)}"


def marks_line(marks: Marks) -> str:
    """The gradebook's marks as the student reads them."""
    said = ([f"manual grading {_signed(marks.manual)}"] if marks.manual else []) \
        + ([f"extra credit {_signed(marks.extra_credit)}"] if marks.extra_credit else [])
    return f"Graded by hand by your instructor: {', '.join(said)}."


def lines(raw: float, max_score: float, corrections: Corrections) -> list[str]:
    """What the student is told about dates and corrections, one sentence a line."""
    late, override, score = corrections.late, corrections.override, \
        scored(raw, max_score, corrections)
    said = []
    if late.submitted_at:
        said.append(f"Handed in: {_shown(late.submitted_at)}.")
    if late.due:
        said.append(f"Due: {_shown(late.due)} (from {late.due_from}).")
    if late.note:
        said.append(f"Lateness: {late.note}.")
    if override is not None:
        said.append(override_line(override))
    if corrections.marks:
        said.append(marks_line(corrections.marks))
    if score.final != score.raw:
        said.append(f"The tests gave {score.raw} / {number(max_score)}; after these, "
                    f"{score.final} / {number(max_score)}.")
    return said
