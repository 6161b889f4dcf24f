"""Which of a student's submissions counts: the instructor's choice, and the history behind it.

A student may hand in again (nbgrader's `collect --update`): packlab grades the new notebook and
keeps what the earlier ones scored in the submission's record (`autograder.cohort.record`), each
with when it was handed in and the late penalty it had. `counts` in course.toml (course-wide, or
in an exercise's entry) or `packlab counts` (one student, stored in OUT/counts.json) says which
counts:

- ``latest``: the last one handed in (nbgrader's own rule, and the default);
- ``on-time``: the last one handed in on time, when a later one came in late (else the latest);
- ``best``: the one with the highest score after its late penalty (the latest of equals).

The counted one's score (after its late penalty) is what the override and the gradebook's marks
then apply to; the difference from the latest is written with packlab's other corrections.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder import outfolder

POLICIES = ("latest", "on-time", "best")
CHOICES = "counts.json"  # in OUT: the per-student choices `packlab counts` made
SHOWN = 20  # attempts kept in results.json (the newest)


@dataclass(frozen=True)
class Attempt:
    """One notebook a student handed in, as graded."""

    graded_at: str = ""  # ISO 8601, UTC
    submitted_at: str = ""  # its timestamp.txt, ISO 8601 UTC; "" when unknown
    raw: float = 0  # what the tests gave
    penalty: float = 0  # the late penalty it had
    late_days: int | None = None  # started days late; None when it cannot be told
    error: str | None = None  # why it could not be graded
    backdated: bool = False  # its timestamp claimed a time before an earlier submission's

    @property
    def after_late(self) -> float:
        return 0 if self.error else round(max(0.0, self.raw - self.penalty), 2)

    @property
    def on_time(self) -> bool:
        return self.late_days == 0 and not self.penalty and not self.backdated


@dataclass(frozen=True)
class Counted:
    """A submission's attempts (oldest first, this notebook last), the policy, and which one
    counts."""

    policy: str
    attempts: tuple[Attempt, ...]
    chosen: int

    @property
    def is_latest(self) -> bool:
        return self.chosen == len(self.attempts) - 1

    def to_dict(self) -> dict:
        return {"policy": self.policy, "chosen": self.chosen,
                "attempts": [asdict(a) for a in self.attempts]}

    @classmethod
    def from_dict(cls, data: object) -> Counted | None:
        """The choice stored in a results.json, or None when there is none (or not ours)."""
        if not isinstance(data, dict) or data.get("policy") not in POLICIES:
            return None
        try:
            attempts = tuple(Attempt(**a) for a in data["attempts"])
        except (KeyError, TypeError):
            return None
        chosen = data.get("chosen")
        if not attempts or not isinstance(chosen, int) or not 0 <= chosen < len(attempts) \
                or not all(_finite(a.raw) and _finite(a.penalty) for a in attempts):
            return None
        return cls(data["policy"], attempts, chosen)


def _finite(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def choose(policy: str, attempts: tuple[Attempt, ...]) -> int:
    """The index of the attempt that counts under ``policy`` (attempts oldest first)."""
    last = len(attempts) - 1
    if policy == "on-time" and not attempts[last].on_time:
        on_time = [i for i, a in enumerate(attempts) if a.on_time and not a.error]
        return on_time[-1] if on_time else last
    if policy == "best":
        return max(range(len(attempts)), key=lambda i: (attempts[i].after_late, i))
    return last


def attempts(history: tuple[dict, ...], notebook: str | None, current: Attempt) -> tuple[
        Attempt, ...]:
    """The distinct notebooks a record's ``history`` graded (the last grading of each, the
    current ``notebook``'s left out), oldest first, then ``current``."""
    last: dict[str, dict] = {}
    for entry in history:
        key = entry.get("notebook") or f"problem:{entry.get('error')}"
        if key == notebook:
            continue
        last.pop(key, None)
        last[key] = entry  # kept in the order each notebook was last graded
    earlier = [_attempt(entry) for entry in last.values()]
    return (*[a for a in earlier if a is not None], current)[-SHOWN:]


def _attempt(entry: dict) -> Attempt | None:
    score, penalty = entry.get("score"), entry.get("late_penalty", 0)
    if not _finite(score) or not _finite(penalty):
        return None
    days = entry.get("late_days")
    return Attempt(str(entry.get("graded_at", "")), str(entry.get("submitted_at", "")),
                   score, penalty, days if isinstance(days, int) else None,
                   entry.get("error") if isinstance(entry.get("error"), str) else None,
                   entry.get("flag") == "backdated")


def read_choices(out: Path) -> dict[tuple[str, str], str]:
    """The per-student choices `packlab counts` stored in OUT ({} when there are none)."""
    try:
        data = json.loads((out / CHOICES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, list):
        return {}
    return {(c["student"], c["assignment"]): c["counts"] for c in data
            if isinstance(c, dict) and c.get("counts") in POLICIES
            and isinstance(c.get("student"), str) and isinstance(c.get("assignment"), str)}


def write_choice(out: Path, student: str, assignment: str, policy: str | None) -> None:
    """Store (or, with None, remove) one student's choice for one assignment in OUT."""
    choices = read_choices(out)
    choices.pop((student, assignment), None)
    if policy is not None:
        choices[student, assignment] = policy
    data = [{"student": s, "assignment": a, "counts": p}
            for (s, a), p in sorted(choices.items())]
    outfolder.write_atomically(out / CHOICES, json.dumps(data, indent=1) + "\n")
