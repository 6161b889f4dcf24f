"""`packlab history` (every submission a student handed in, and which counts) and `packlab counts`
(which counts for one student)."""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path

from packlab.course.cli.terminal import console, shown


def _results(out: Path) -> list[dict]:
    """The extra_data of every results.json `packlab grade` wrote in OUT."""
    from autograder import outfolder

    found = []
    for path in sorted((out / outfolder.STUDENTS).glob("*/*/results.json")):
        try:
            extra = json.loads(path.read_text(encoding="utf-8"))["extra_data"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(extra, dict) and isinstance(extra.get("student"), str) \
                and isinstance(extra.get("assignment"), str):
            found.append(extra)
    return found


def _table(extras: list[dict]):
    """The history as a rich table: one row per submission handed in."""
    from rich.table import Table
    from rich.text import Text

    from autograder.escape import visible
    from autograder.term.corrections import number
    from autograder.term.counts import Attempt, Counted

    table = Table("student", "assignment", "#", "handed in", "graded", "tests", "late penalty",
                  "counts", title="Submissions, oldest first")
    for extra in extras:
        counted = Counted.from_dict(extra.get("counted"))
        if counted is None:  # graded before packlab kept the choice: this one alone
            counted = Counted("latest", (Attempt(raw=extra.get("raw_score", 0)),), 0)
        for n, attempt in enumerate(counted.attempts):
            mark = f"✓ ({counted.policy})" if n == counted.chosen else ""
            tests = "not graded" if attempt.error else \
                f"{number(attempt.raw)} / {number(extra.get('max_score', 0))}"
            handed = (attempt.submitted_at or "?") + (" BACKDATED" if attempt.backdated else "")
            table.add_row(*(Text(visible(cell, keep_lines=False)) for cell in (
                extra["student"], extra["assignment"], n + 1, handed,
                attempt.graded_at or "?", tests, number(attempt.penalty), mark)))
    return table


def cmd_history(args: argparse.Namespace) -> int:
    """Show each student's submissions of each assignment, and which one counts."""
    out = Path(args.out)
    extras = [e for e in _results(out)
              if (not args.student or e["student"] == args.student)
              and (not args.assignment or e["assignment"] == args.assignment)]
    if not extras:
        console.print(f"No graded submissions in {shown(out)} for that (run `packlab grade "
                      "SUBMITTED --out OUT` first).")
        return 2
    console.print(_table(extras))
    return 0


def cmd_counts(args: argparse.Namespace) -> int:
    """Say which submission counts for one student and assignment (stored in OUT)."""
    from autograder.term import counts

    out = Path(args.out)
    known = {(e["student"], e["assignment"]) for e in _results(out)}
    if (args.student, args.assignment) not in known:
        students = sorted({s for s, _ in known})
        close = difflib.get_close_matches(args.student, students, n=3)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        console.print(f"[bold red]Not set:[/] {shown(args.student)} has no graded submission of "
                      f"{shown(args.assignment)} in {shown(out)}.{shown(hint)}")
        return 2
    policy = None if args.policy == "course" else args.policy
    counts.write_choice(out, args.student, args.assignment, policy)
    said = f"the {policy} submission counts" if policy else "course.toml's `counts` applies"
    console.print(f"For {shown(args.student)}'s {shown(args.assignment)}, {said}; the next "
                  "`packlab grade` applies it (without running any code again).")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`packlab history` and `packlab counts`."""
    history = sub.add_parser(
        "history", help="every submission each student handed in, and which counts",
        description="Show, from the folder `packlab grade --out` wrote, each submission a "
        "student handed in (oldest first): when, what the tests gave, its late penalty, and "
        "which one counts (course.toml's `counts`, or `packlab counts`). BACKDATED marks a "
        "submission whose timestamp.txt claims a time before the one it replaced.")
    history.add_argument("out", metavar="OUT", help="the folder `packlab grade --out` wrote")
    history.add_argument("--student", help="only this student")
    history.add_argument("--assignment", help="only this assignment (its full name)")
    history.set_defaults(run=cmd_history)
    choose = sub.add_parser(
        "counts", help="which submission counts for one student: latest, on-time or best",
        description="Set which of STUDENT's submissions of ASSIGNMENT counts: latest, on-time "
        "(the last handed in on time, when a later one came in late), best (the highest score "
        "after its late penalty), or course (course.toml's `counts` again). Stored in "
        "OUT/counts.json; the next `packlab grade` applies it.")
    choose.add_argument("out", metavar="OUT", help="the folder `packlab grade --out` wrote")
    choose.add_argument("student")
    choose.add_argument("assignment", help="the assignment's full name, e.g. 02-greedy-pack")
    choose.add_argument("policy", choices=["latest", "on-time", "best", "course"])
    choose.set_defaults(run=cmd_counts)
