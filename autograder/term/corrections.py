"""Dates and corrections: what happens to a graded score after the tests.

First the late penalty (`autograder.term.late`), then the instructor's override
(`autograder.term.overrides`), then what graders gave in nbgrader's gradebook (`Marks`: manual
scores and extra credit, read back from it by `autograder.term.gradebook`). The tests' own score is
kept (``raw_score``); ``score`` is the final one, the total `nbgrader export` gives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from autograder.term.counts import Counted
from autograder.term.late import Lateness
from autograder.term.overrides import Override

COMMENTS = 20  # a submission's comments kept, at most
COMMENT_CHARS = 2_000  # characters of one comment


def comments(said: list[str]) -> tuple[str, ...]:
    """Graders' written comments as kept: plain text, each cut to `COMMENT_CHARS`, at most
    `COMMENTS` (escaped where shown: they sit beside what a student wrote)."""
    kept = []
    for text in said[:COMMENTS]:
        text = text.strip()
        kept.append(text if len(text) <= COMMENT_CHARS else f"{text[:COMMENT_CHARS]} (cut)")
    return tuple(kept)


@dataclass(frozen=True)
class Marks:
    """What graders gave in nbgrader's gradebook on top of packlab's scores: the difference
    their manual scores make to the auto scores, their extra credit, and the comments they
    wrote in formgrader (`Comment.manual_comment`)."""

    manual: float = 0
    extra_credit: float = 0
    comments: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.manual or self.extra_credit or self.comments)

    def to_dict(self) -> dict:
        return {"manual": number(self.manual), "extra_credit": number(self.extra_credit),
                "comments": list(self.comments)}

    @classmethod
    def from_dict(cls, data: object) -> Marks | None:
        """The marks stored in a results.json, or None if there are none (or not ours)."""
        if not isinstance(data, dict):
            return None
        values = (data.get("manual", 0), data.get("extra_credit", 0))
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            return None
        said = data.get("comments", [])
        if not isinstance(said, list):
            return None
        return cls(*values, comments([c for c in said if isinstance(c, str)])) or None


@dataclass(frozen=True)
class Corrections:
    late: Lateness = field(default_factory=Lateness)
    override: Override | None = None
    marks: Marks | None = None
    counted: Counted | None = None  # which of the student's submissions counts

    def to_dict(self) -> dict:
        """As stored in results.json's extra_data (compared on a rerun to see what changed)."""
        return {"late": self.late.to_dict(),
                "adjustment": self.override.to_dict() if self.override else None,
                "marks": self.marks.to_dict() if self.marks else None,
                "counted": self.counted.to_dict() if self.counted else None}


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
    counted = corrections.counted
    if counted is not None and not counted.is_latest:  # an earlier submission counts
        after_late = number(counted.attempts[counted.chosen].after_late)
    corrected = after_late
    if corrections.override is not None:
        corrected = number(corrections.override.applied(after_late, max_score))
    marks = corrections.marks or Marks()
    final = number(max(0.0, corrected + marks.manual + marks.extra_credit))
    return Scored(number(raw), after_late, corrected, final)


def _shown(iso: str) -> str:
    """An ISO 8601 UTC time as a person reads it: 2026-12-01 17:00:00 UTC."""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def override_line(override: Override, applied: float | None = None) -> str:
    """The override as the student reads it: what changed (``applied``: what it really changed
    the score by, when a score kept within 0 and the maximum made that less), and why."""
    change = (f"score set to {number(override.score)}" if override.score is not None
              else _signed(override.points or 0))
    if applied is not None and override.score is None \
            and number(applied) != number(override.points or 0):
        change = f"{_signed(applied)} ({change} given; a score stays within 0 and the maximum)"
    return f"Adjustment by your instructor: {change}. Reason: {override.reason}"


def _signed(x: float) -> str:
    return f"{number(x):+g} point{'s' * (abs(x) != 1)}"


def marks_line(marks: Marks) -> str:
    """The gradebook's marks as the student reads them."""
    said = ([f"manual grading {_signed(marks.manual)}"] if marks.manual else []) \
        + ([f"extra credit {_signed(marks.extra_credit)}"] if marks.extra_credit else [])
    if not said:
        return f"Commented by your instructor ({len(marks.comments)})."
    return f"Graded by hand by your instructor: {', '.join(said)}."


def comment_lines(marks: Marks | None) -> list[str]:
    """The instructor's written comments as the student reads them."""
    return [f"Comment from your instructor: {text}" for text in (marks.comments if marks else ())]


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
    said += counted_lines(corrections.counted, max_score)
    if override is not None:
        said.append(override_line(override, score.adjustment))
    if corrections.marks and (corrections.marks.manual or corrections.marks.extra_credit):
        said.append(marks_line(corrections.marks))
    said += comment_lines(corrections.marks)
    if score.final != score.raw:
        said.append(f"The tests gave {score.raw} / {number(max_score)}; after these, "
                    f"{score.final} / {number(max_score)}.")
    return said


def counted_lines(counted: Counted | None, max_score: float) -> list[str]:
    """The student's submissions, one line each, and which one counts (nothing for one)."""
    if counted is None or len(counted.attempts) < 2:
        return []
    said = [f"You handed in {len(counted.attempts)} times; the one that counts is the "
            f"{RULES[counted.policy]}:"]
    for n, attempt in enumerate(counted.attempts):
        handed = _shown(attempt.submitted_at) if attempt.submitted_at else "time unknown"
        if attempt.backdated:
            handed += (" (so its timestamp.txt says, before the submission it replaced: not "
                       "believed, it counts as handed in when graded)")
        result = (f"not graded ({attempt.error})" if attempt.error else
                  f"tests {number(attempt.raw)} / {number(max_score)}"
                  + (f", late penalty {number(attempt.penalty)}" if attempt.penalty else ""))
        mark = " ← counts" if n == counted.chosen else ""
        said.append(f"Submission {n + 1}: handed in {handed}; {result}{mark}.")
    return said


RULES = {"latest": "latest", "on-time": "latest one handed in on time",
         "best": "best after its late penalty"}


def from_results(extra: dict) -> Corrections:
    """The corrections a results.json's ``extra_data`` was written with (what is not ours is
    left out)."""
    stored = extra.get("late")
    known = {f.name for f in fields(Lateness)}
    try:
        lateness = Lateness(**{k: v for k, v in stored.items() if k in known}) \
            if isinstance(stored, dict) else Lateness()
    except TypeError:
        lateness = Lateness()
    return Corrections(lateness, Override.from_dict(extra.get("adjustment")),
                       Marks.from_dict(extra.get("marks")), Counted.from_dict(extra.get("counted")))


def nbgrader_lines(raw: float, max_score: float, corrections: Corrections,
                   first_cell: str) -> list[str]:
    """What nbgrader's own feedback page must say on top (its scores come from the gradebook,
    where packlab writes the late penalty and the override as extra credit on the first test
    cell, so that cell alone would read 0.7 / 1 or 2 / 1 with no word why). Manual grades and
    comments are left out: nbgrader's page shows them itself."""
    fixes = Corrections(corrections.late, corrections.override, None, corrections.counted)
    said = lines(raw, max_score, fixes)
    change = scored(raw, max_score, fixes)
    if change.corrected != change.raw:
        said.append(f"On this page the change of {_signed(change.corrected - change.raw)} "
                    f"is counted in the score of the first test cell ({first_cell}), as extra "
                    "credit: that cell can read less than its checks earned, or more than its "
                    "maximum.")
    return said
