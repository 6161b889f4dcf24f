"""Dates and corrections: what happens to a graded score after the tests.

First the late penalty (`autograder.late`), then the instructor's override
(`autograder.overrides`). The tests' own score is kept (``raw_score``); ``score`` is the final one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.late import Lateness
from autograder.overrides import Override


@dataclass(frozen=True)
class Corrections:
    late: Lateness = field(default_factory=Lateness)
    override: Override | None = None

    def to_dict(self) -> dict:
        """As stored in results.json's extra_data (compared on a rerun to see what changed)."""
        return {"late": self.late.to_dict(),
                "adjustment": self.override.to_dict() if self.override else None}


def number(x: float) -> int | float:
    """``x`` to two decimals, an int when it is whole (4.0 → 4)."""
    x = round(float(x), 2)
    return int(x) if x.is_integer() else x


@dataclass(frozen=True)
class Scored:
    raw: int | float  # what the tests gave
    after_late: int | float
    final: int | float

    @property
    def adjustment(self) -> int | float:
        return number(self.final - self.after_late)


def scored(raw: float, max_score: float, corrections: Corrections) -> Scored:
    """The score after the late penalty, then after the override."""
    after_late = number(max(0.0, raw - corrections.late.penalty))
    final = after_late
    if corrections.override is not None:
        final = number(corrections.override.applied(after_late, max_score))
    return Scored(number(raw), after_late, final)


def _shown(iso: str) -> str:
    """An ISO 8601 UTC time as a person reads it: 2026-12-01 17:00:00 UTC."""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def override_line(override: Override) -> str:
    """The override as the student reads it: what changed, and why."""
    change = (f"score set to {number(override.score)}" if override.score is not None
              else f"{number(override.points):+g} point{'s' * (abs(override.points) != 1)}")
    return f"Adjustment by your instructor: {change}. Reason: {override.reason}"


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
    if score.final != score.raw:
        said.append(f"The tests gave {score.raw} / {number(max_score)}; after these, "
                    f"{score.final} / {number(max_score)}.")
    return said
