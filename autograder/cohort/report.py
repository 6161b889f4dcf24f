"""What grading writes of each submission (feedback page, Gradescope results.json) and grades.csv.

Each submission's feedback.html and results.json are in OUT/students/<student>/<assignment>/
(`autograder.outfolder`); the class's summary.md, class.json and class.png are
`autograder.cohort.summary`'s.

Everything a student controls (folder names, messages, printed output) is escaped for where it
goes (`autograder.escape`, `html.escape`), and each per-submission file is at most `MAX_BYTES`
whatever the result holds: long notes, failure texts and output are cut, and the file says so.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import json
import tempfile
from pathlib import Path

from autograder.checks.ideas import start_here
from autograder.escape import NAME_CHARS, cut, for_csv, for_html, message_html
from autograder.outfolder import submission_folder, write_atomically
from autograder.run.engine import RAN, GroupScore, Result
from autograder.run.submission import CellProblem
from autograder.term import corrections as dates
from autograder.term.corrections import Corrections
from packlab.manifest import load as load_course

GROUP_TITLES = {"visible": "Visible tests", "edge-cases": "Hidden tests: edge cases",
                "properties": "Hidden tests: properties"}


def group_title(assignment: str, group: str) -> str:
    """A test group's name as the feedback gives it; a step's names the step ("Step 2 of 4,
    required items: hidden tests")."""
    exercise = next((e for e in load_course().exercises if e.name == assignment), None)
    return GROUP_TITLES.get(group, group) if exercise is None else \
        exercise.group_title(group, GROUP_TITLES)


NO_SANDBOX = ("This submission was graded WITHOUT a sandbox: its code was not isolated from the "
              "grading machine.")

# Size bounds of one submission's feedback.html and results.json (UTF-8 bytes), and of what
# goes into them. Within the per-item limits a file is far below MAX_BYTES; if one is still
# over (text that escaping makes longer), it is rendered again with smaller limits.
MAX_BYTES = 200_000
LIMITS = {"notes": 40, "note": 1_000, "failures": 40, "field": 2_000, "output": 20_000}


def _size(text: str) -> int:
    return len(text.encode("utf-8", "backslashreplace"))


# --- bounded results: what one submission's files may hold --------------------------------


def _cut_start(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text`` (printed output: its end matters most)."""
    if len(text) <= limit:
        return text
    return f"… ({len(text) - limit:,} earlier characters were cut)\n{text[-limit:]}"


def bounded(result: Result, scale: float = 1.0) -> Result:
    """A copy of ``result`` within `LIMITS` (times ``scale``), saying what was cut.

    Notes beyond the limit are replaced by one note "… N more notes were cut", and a failing
    check's texts, the error and the printed output are cut to a length.
    """
    limit = {key: max(4, int(value * scale)) for key, value in LIMITS.items()}
    notes = [cut(note, limit["note"]) for note in result.notes[:limit["notes"]]]
    if len(result.notes) > limit["notes"]:
        notes.append(f"… {len(result.notes) - limit['notes']:,} more notes were cut")

    def failure(f):
        return dataclasses.replace(f, check=cut(f.check, limit["field"]),
                                   call=cut(f.call, limit["field"]),
                                   got=cut(f.got, limit["field"]),
                                   expected=cut(f.expected, limit["field"]))

    groups = []
    for group in result.groups:
        failures = [failure(f) for f in group.failures[:limit["failures"]]]
        passed = [cut(name, limit["field"]) for name in group.passed[:limit["failures"]]]
        if len(group.passed) > limit["failures"]:
            passed.append(f"… {len(group.passed) - limit['failures']:,} more passed checks")
        groups.append(GroupScore(group.name, cut(group.description, limit["field"]),
                                 group.visible, group.points, group.max_points, passed, failures))
        if len(group.failures) > limit["failures"]:
            notes.append(f"… {len(group.failures) - limit['failures']:,} more failing checks "
                         f"in {group_title(result.assignment, group.name)} were cut")
    # Names identify the submission (a rerun finds its results.json by them): never scaled.
    return dataclasses.replace(
        result, student=cut(result.student, NAME_CHARS),
        assignment=cut(result.assignment, NAME_CHARS), groups=groups, notes=notes,
        error=None if result.error is None else cut(result.error, limit["field"]),
        output=_cut_start(result.output or "", limit["output"]))


def _fitted(render, result: Result, cut_line: str):
    """``render(bounded(result))``, with smaller limits while it is over `MAX_BYTES`.

    ``render(result, cut)`` returns the document (a str) or the JSON object; ``cut`` is the
    line to add when the document had to be cut further than `LIMITS`, else None.
    """
    for scale in (1.0, 0.25, 0.05, 0.01, 0.0):
        doc = render(bounded(result, scale), cut_line if scale < 1 else None)
        text = doc if isinstance(doc, str) else json.dumps(doc, indent=2) + "\n"
        if _size(text) <= MAX_BYTES:
            return doc
    # Still over with a few characters of each text: drop the notes and output and keep one
    # failing check per group (its status); only a suite with very many groups gets here.
    least = bounded(result, 0.0)
    least = dataclasses.replace(least, notes=[], output="", groups=[
        dataclasses.replace(g, passed=[], failures=g.failures[:1]) for g in least.groups])
    return render(least, cut_line)


def summary_lines(result: Result, corrections: Corrections | None = None) -> list[str]:
    """The headline of a submission's results: its final score, dates and corrections, notes,
    and which idea to fix first when its failing checks name several (`start_here`)."""
    head = [NO_SANDBOX] if result.sandbox == "none" else []
    fixes = corrections or Corrections()
    said = dates.lines(result.score, result.max_score, fixes) if corrections else []
    if result.error:
        return [*head, f"Not graded: {result.error}", *said]
    final = dates.scored(result.score, result.max_score, fixes).final
    lines = [*head, f"Score: {final} / {result.max_score}", *said]
    lines += [f"Note: {note}" for note in result.notes]
    first = start_here([f for group in result.groups for f in group.failures])
    return [*lines, first] if first else lines


def problem(result: Result) -> str:
    """Why a graded submission lost marks when its own code could not run (for grades.csv's
    reason), or ""."""
    if result.error or result.score >= result.max_score:
        return ""
    said = [note.removeprefix(RAN).removesuffix(".") for note in result.notes
            if note.startswith(RAN)]
    return cut("; ".join(said), LIMITS["field"]) if said else ""


def gradescope(result: Result, corrections: Corrections | None = None) -> dict:
    """The Gradescope autograder schema: score, output, tests[] — plus our own data.

    ``score`` is the final score (after a late penalty and an override, `corrections`); the
    tests' own is ``extra_data.raw_score``, and ``extra_data.late`` and ``.adjustment`` say why.

    At most `MAX_BYTES` as written (``json.dumps(..., indent=2)``): what does not fit is cut,
    and the output says so.
    """
    from autograder.cohort.misconceptions import found

    # Per test group, its name and the misconception of each failing check, and per
    # misconception its text, lesson and one example call: what the class picture, summary.md
    # and misconceptions.csv say, so a resumed run needs nothing but the results.json files.
    # (From the whole result: cutting failure texts must not change the class's counts.)
    held = found(result)
    groups = [{"group": g.name, "passed": not g.failures, "points": g.points,
               "max_points": g.max_points,
               "misconceptions": list(dict.fromkeys(f.misconception.key for f in g.failures))}
              for g in result.groups]
    fixes = corrections or Corrections()
    scored = dates.scored(result.score, result.max_score, fixes)

    def render(shown: Result, cut: str | None) -> dict:
        tests = []
        for group in shown.groups:
            tests.append({
                "name": group_title(shown.assignment, group.name),
                "score": group.points,
                "max_score": group.max_points,
                "status": "failed" if group.failures else "passed",
                "output": "\n\n".join(f.message() for f in group.failures)
                or "All checks passed.",
                "visibility": "visible" if group.visible else "after_published",
            })
        lines = summary_lines(shown, corrections) + ([cut] if cut else [])
        return {"score": scored.final, "output": "\n".join(lines), "tests": tests,
                "extra_data": {"student": shown.student, "assignment": shown.assignment,
                               "max_score": shown.max_score, "error": shown.error,
                               "notes": shown.notes, "sandbox": shown.sandbox,
                               "memory": shown.memory,
                               "groups": groups, "misconceptions": held,
                               "raw_score": scored.raw, "after_late": scored.after_late,
                               "corrected_score": scored.corrected,
                               "problem": problem(shown) or None, **fixes.to_dict()}}

    return _fitted(render, result, "(These results were cut to 200 KB.)")


def feedback_html(result: Result, corrections: Corrections | None = None,
                  cells: list[CellProblem] | tuple = ()) -> str:
    """A page a learner can read: per failing check the call, what came back and why; the
    dates and corrections; the student's cells that failed to run, the failing line marked.

    At most `MAX_BYTES`: what does not fit is cut, and the page says so.
    """
    def render(shown: Result, cut: str | None) -> str:
        return _page(shown, cut, corrections, cells[:SHOWN_CELLS] if cut is None else cells[:1])

    return _fitted(render, result, "(This page was cut to 200 KB.)")


SHOWN_CELLS = 3  # failing cells shown on a page, with their code


def _code(cell: CellProblem) -> str:
    """One failing cell's code, numbered, its failing line marked."""
    esc = html.escape
    rows = []
    for number, line in enumerate(cell.lines, cell.first_line):
        mark = number == cell.marked
        rows.append(f"<span{' class=bad' if mark else ''}>{'→' if mark else ' '} "
                    f"{number:>3} | {esc(line)}</span>")
    code = "\n".join(rows)
    return f"<h3>{esc(cell.problem)}</h3><pre class=code>{code}</pre>"


def _page(result: Result, cut: str | None, corrections: Corrections | None = None,
          cells: list[CellProblem] | tuple = ()) -> str:
    esc = html.escape
    parts = [f"<h1>{for_html(result.assignment)} — feedback for {for_html(result.student)}</h1>"]
    if result.sandbox == "none":
        parts.append(f"<p><b>{esc(NO_SANDBOX)}</b></p>")
    parts += [f"<p>{esc(line)}</p>" for line in summary_lines(result, corrections)
              if line != NO_SANDBOX]
    if cells:
        parts.append("<h2>Your code that did not run</h2>")
        parts += [_code(cell) for cell in cells]
    for group in result.groups:
        title = group_title(result.assignment, group.name)
        parts.append(f"<h2>{esc(title)}: {group.points} / {group.max_points}</h2>")
        parts.append(f"<p><i>{esc(group.description)}</i></p><ul>")
        parts += [f"<li>✓ {esc(name)}</li>" for name in group.passed]
        for failure in group.failures:
            parts.append(
                f"<li>✗ <b>{esc(failure.check)}</b><dl>"
                f"<dt>The call</dt><dd><code>{esc(failure.call)}</code></dd>"
                f"<dt>Came back</dt><dd><code>{esc(failure.got)}</code></dd>"
                f"<dt>Expected</dt><dd><code>{esc(failure.expected)}</code></dd>"
                f"<dt>This suggests</dt><dd>{message_html(failure.misconception.text)}</dd>"
                + (f"<dt>Revisit</dt><dd>lessons/{esc(failure.misconception.lesson)}.ipynb</dd>"
                   if failure.misconception.lesson else "")  # a plain assignment's has none
                + "</dl></li>")
        parts.append("</ul>")
    if result.output.strip():
        parts.append(f"<h2>What your code printed (last lines)</h2><pre>{esc(result.output)}</pre>")
    if cut:
        parts.append(f"<p><i>{esc(cut)}</i></p>")
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
             "dt{font-weight:bold}code{background:#f3f3f3}"
             "pre.code{background:#f6f6f6;padding:.5em}.bad{background:#fdd;font-weight:bold}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{for_html(result.assignment)}"
            f"</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n")


def write_submission(out: Path, result: Result, corrections: Corrections | None = None,
                     cells: list[CellProblem] | tuple = ()) -> None:
    """OUT/students/<student>/<assignment>/feedback.html and results.json for one result."""
    folder = submission_folder(out, result.student, result.assignment)
    write_atomically(folder / "feedback.html", feedback_html(result, corrections, cells))
    # results.json last: its presence means this submission is done (a rerun resumes after it).
    write_atomically(folder / "results.json",
                     json.dumps(gradescope(result, corrections), indent=2) + "\n")


GRADES_FIELDS = ["student", "assignment", "score", "max_score", "status", "reason", "sandbox",
                 # dates and corrections (`autograder.term.corrections`): score is after them
                 "raw_score", "submitted_at", "due", "late_days", "late_penalty", "late_note",
                 "timestamp_flag", "adjustment", "adjustment_reason",
                 # nbgrader's gradebook: what graders gave there (score includes it)
                 "manual", "extra_credit",
                 # free late days this submission used (course.toml's free_late_days)
                 "free_late_days"]
# Then one column per test group of any assignment (item analysis): the points it earned.
GROUP_COLUMN = "points_"  # + the group's name: points_visible, points_edge-cases, ...
GROUP_ORDER = ("visible", "edge-cases", "properties")  # packlab's groups; any other by name


def group_columns(rows: list[dict]) -> list[str]:
    """The per-group columns of ``rows`` (keys `GROUP_COLUMN` + group), packlab's groups first,
    then the steps' in course order, then any other by name."""
    groups = {key.removeprefix(GROUP_COLUMN) for row in rows for key in row
              if key.startswith(GROUP_COLUMN)}
    steps = [group for exercise in load_course().exercises for group in exercise.points]
    order = {name: number for number, name in enumerate(dict.fromkeys((*GROUP_ORDER, *steps)))}
    return [GROUP_COLUMN + g for g in sorted(groups, key=lambda g: (order.get(g, len(order)), g))]


def write_grades(out: Path, rows: list[dict]) -> None:
    """grades.csv: one row per student and assignment, with the reason when ungraded.

    Every text cell goes through `for_csv` (no formulas), the header's too. ``sandbox`` is
    ``bubblewrap``, or ``none (graded WITHOUT a sandbox)`` when the instructor graded with
    --no-sandbox. After `GRADES_FIELDS`, one column per test group (`group_columns`): the
    points the submission earned in it, blank where its assignment has no such group.
    """
    fields = GRADES_FIELDS + group_columns(rows)
    with tempfile.SpooledTemporaryFile(mode="w+", newline="", encoding="utf-8",
                                       errors="backslashreplace") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writerow({key: for_csv(key) for key in fields})
        for row in sorted(rows, key=lambda r: (r["student"], r["assignment"])):
            cells = {**row, "sandbox": row.get("sandbox", "bubblewrap")}
            if cells["sandbox"] == "none":
                cells["sandbox"] = "none (graded WITHOUT a sandbox)"
            writer.writerow({key: for_csv(cells.get(key, "")) for key in fields})
        handle.seek(0)
        text = handle.read()
    write_atomically(out / "grades.csv", text)
