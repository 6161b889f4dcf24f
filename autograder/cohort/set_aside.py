"""The hand-ins `packlab grade` set aside as forged, and what they make of grades.csv's rows.

A hand-in that another account wrote than the learner it names (`autograder.glue.forgeries`)
is taken out of SUBMITTED and kept in OUT/set-aside/<student>/<assignment>/ (`outfolder`); its
record, OUT/set-aside/set-aside.json, is read on every run, so a forgery stays named in
grades.csv and the summary until the instructor deletes OUT/set-aside/. A learner with no hand-in
of their own left gets a row whose status is `outfolder.SET_ASIDE` (never written to nbgrader's
gradebook); a learner whose own hand-in was collected in its place is graded as usual, the row
saying what was set aside.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder import outfolder

RECORD = "set-aside.json"


@dataclass(frozen=True)
class SetAside:
    """One forged hand-in taken out of SUBMITTED."""

    student: str
    assignment: str
    hand_in: str  # its folder's name in the exchange's inbound folder
    why: str  # what in it the learner did not write, in words
    own: str = ""  # the learner's own hand-in collected in its place ("": none)

    def said(self) -> str:
        """The forgery, in words."""
        return f"the hand-in {self.hand_in!r} was set aside: {self.why}, so it may be forged"


def record(out: Path, found: list[SetAside]) -> None:
    """Add ``found`` to OUT's record (each hand-in once)."""
    kept = {(s.student, s.assignment, s.hand_in): s for s in [*read(out), *found]}
    outfolder.write_atomically(out / outfolder.ASIDE / RECORD,
                               json.dumps([asdict(s) for s in kept.values()], indent=2) + "\n")


def read(out: Path) -> list[SetAside]:
    """OUT's record of the hand-ins set aside (none when there is none, or it is unreadable)."""
    try:
        listed = json.loads((out / outfolder.ASIDE / RECORD).read_text(encoding="utf-8"))
        return [SetAside(**{key: str(entry[key]) for key in ("student", "assignment", "hand_in",
                                                             "why", "own")})
                for entry in listed]
    except (OSError, ValueError, TypeError, KeyError):
        return []


def marked(rows: list[dict], found: list[SetAside], max_score) -> list[dict]:
    """grades.csv's ``rows`` with what was set aside: each row of a forgery's learner and
    assignment says it (``set_aside``: the summary's words); one with nothing else handed in
    is `outfolder.SET_ASIDE`, and a forgery whose row is gone gets one."""
    by_key: dict[tuple[str, str], list[SetAside]] = {}
    for entry in found:
        by_key.setdefault((entry.student, entry.assignment), []).append(entry)
    marked_rows = []
    for row in rows:
        entries = by_key.pop((row["student"], row["assignment"]), [])
        marked_rows.append(_marked(row, entries) if entries else row)
    for (student, assignment), entries in by_key.items():
        row = {"student": student, "assignment": assignment, "score": 0,
               "max_score": max_score(assignment), "status": "not graded",
               "reason": outfolder.NO_SUBMISSION, "sandbox": ""}
        marked_rows.append(_marked(row, entries))
    return marked_rows


def _marked(row: dict, entries: list[SetAside]) -> dict:
    said = "; ".join(entry.said() for entry in entries)
    if row["reason"] == outfolder.NO_SUBMISSION:
        said += "; nothing of the learner's own was collected in its place: nothing graded"
        return {**row, "status": outfolder.SET_ASIDE, "reason": said, "set_aside": said}
    own = next((entry.own for entry in reversed(entries) if entry.own), "")
    said += f"; graded instead: the learner's own hand-in {own!r}" if own else \
        "; graded instead: the submission now in the submitted folder"
    return {**row, "reason": "; ".join(filter(None, [row["reason"], said])), "set_aside": said}
