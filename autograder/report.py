"""What grading writes: per submission a feedback page and a Gradescope results.json; grades.csv.

OUT/grades.csv, summary.md, misconceptions.csv, class.json and class.png are the class's (what
they say of misconceptions is `autograder.misconceptions`); each submission's
feedback.html and results.json are in OUT/students/<student>/<assignment>/, so no student's
folder name can collide with the class's files.

Everything a student controls (folder names, messages, printed output) is escaped for where it
goes (`autograder.escape`, `html.escape`), and each per-submission file is at most `MAX_BYTES`
whatever the result holds: long notes, failure texts and output are cut, and the file says so.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

from autograder import corrections as dates
from autograder import submission
from autograder.corrections import Corrections
from autograder.engine import RAN, GroupScore, Result
from autograder.escape import for_csv, for_markdown
from autograder.submission import CellProblem
from autograder.unwritten import KEY as UNWRITTEN

GROUP_TITLES = {"visible": "Visible tests", "edge-cases": "Hidden tests: edge cases",
                "properties": "Hidden tests: properties"}
STUDENTS = "students"  # OUT/students/<student>/<assignment>/{feedback.html,results.json}
NO_SANDBOX = ("This submission was graded WITHOUT a sandbox: its code was not isolated from the "
              "grading machine.")

# Size bounds of one submission's feedback.html and results.json (UTF-8 bytes), and of what
# goes into them. Within the per-item limits a file is far below MAX_BYTES; if one is still
# over (text that escaping makes longer), it is rendered again with smaller limits.
MAX_BYTES = 200_000
LIMITS = {"notes": 40, "note": 1_000, "failures": 40, "field": 2_000, "output": 20_000}
NAME_CHARS = 1_000  # student and assignment names are folder names (≤ 255 bytes): never cut


def write_atomically(path: Path, text: str) -> None:
    """Write a whole file or nothing: a killed run never leaves half a file behind.

    Text that cannot be UTF-8 (a lone surrogate from an undecodable file name) is written
    with a backslash escape, never an error.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(text)
    os.replace(tmp, path)


def _size(text: str) -> int:
    return len(text.encode("utf-8", "backslashreplace"))


def submission_folder(out: Path, student: str, assignment: str) -> Path:
    """OUT/students/<student>/<assignment>: where one submission's files are written.

    Each name must be one path component (as folder names are); anything else is refused.
    """
    for name in (student, assignment):
        if not name or name in (".", "..") or "/" in name or "\0" in name or os.sep in name:
            raise ValueError(f"not a folder name: {name!r}")
    return out / STUDENTS / student / assignment


def remove_partial(out: Path) -> list[Path]:
    """Delete the temp files a killed run left (never read as results); return them."""
    if not out.is_dir():
        return []
    found = [p for pattern in (".results.json.*", ".feedback.html.*", ".graded.json.*")
             for p in out.glob(f"{STUDENTS}/*/*/{pattern}")]
    found += [p for pattern in (".grades.csv.*", ".summary.md.*", ".misconceptions.csv.*",
                                ".class.json.*", ".class.png.*") for p in out.glob(pattern)]
    found = [p for p in found if p.is_file() and not p.is_symlink()]
    for path in found:
        path.unlink(missing_ok=True)
    return found


# --- bounded results: what one submission's files may hold --------------------------------


def _cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, and how many more were cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters were cut)"


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
    notes = [_cut(note, limit["note"]) for note in result.notes[:limit["notes"]]]
    if len(result.notes) > limit["notes"]:
        notes.append(f"… {len(result.notes) - limit['notes']:,} more notes were cut")

    def failure(f):
        return dataclasses.replace(f, check=_cut(f.check, limit["field"]),
                                   call=_cut(f.call, limit["field"]),
                                   got=_cut(f.got, limit["field"]),
                                   expected=_cut(f.expected, limit["field"]))

    groups = []
    for group in result.groups:
        failures = [failure(f) for f in group.failures[:limit["failures"]]]
        passed = [_cut(name, limit["field"]) for name in group.passed[:limit["failures"]]]
        if len(group.passed) > limit["failures"]:
            passed.append(f"… {len(group.passed) - limit['failures']:,} more passed checks")
        groups.append(GroupScore(group.name, _cut(group.description, limit["field"]),
                                 group.visible, group.points, group.max_points, passed, failures))
        if len(group.failures) > limit["failures"]:
            notes.append(f"… {len(group.failures) - limit['failures']:,} more failing checks "
                         f"in {GROUP_TITLES.get(group.name, group.name)} were cut")
    # Names identify the submission (a rerun finds its results.json by them): never scaled.
    return dataclasses.replace(
        result, student=_cut(result.student, NAME_CHARS),
        assignment=_cut(result.assignment, NAME_CHARS), groups=groups, notes=notes,
        error=None if result.error is None else _cut(result.error, limit["field"]),
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
    """The headline of a submission's results: its final score, dates and corrections, notes."""
    head = [NO_SANDBOX] if result.sandbox == "none" else []
    fixes = corrections or Corrections()
    said = dates.lines(result.score, result.max_score, fixes) if corrections else []
    if result.error:
        return [*head, f"Not graded: {result.error}", *said]
    final = dates.scored(result.score, result.max_score, fixes).final
    lines = [*head, f"Score: {final} / {result.max_score}", *said]
    lines += [f"Note: {note}" for note in result.notes]
    return lines


def problem(result: Result) -> str:
    """Why a graded submission lost marks when its own code could not run (for grades.csv's
    reason), or ""."""
    if result.error or result.score >= result.max_score:
        return ""
    said = [note.removeprefix(RAN).removesuffix(".") for note in result.notes
            if note.startswith(RAN)]
    return _cut("; ".join(said), LIMITS["field"]) if said else ""


def gradescope(result: Result, corrections: Corrections | None = None) -> dict:
    """The Gradescope autograder schema: score, output, tests[] — plus our own data.

    ``score`` is the final score (after a late penalty and an override, `corrections`); the
    tests' own is ``extra_data.raw_score``, and ``extra_data.late`` and ``.adjustment`` say why.

    At most `MAX_BYTES` as written (``json.dumps(..., indent=2)``): what does not fit is cut,
    and the output says so.
    """
    from autograder.misconceptions import found

    # Per test group, its name and the misconception of each failing check, and per
    # misconception its text, lesson and one example call: what the class picture, summary.md
    # and misconceptions.csv say, so a resumed run needs nothing but the results.json files.
    # (From the whole result: cutting failure texts must not change the class's counts.)
    held = found(result)
    groups = [{"group": g.name, "passed": not g.failures,
               "misconceptions": list(dict.fromkeys(f.misconception.key for f in g.failures))}
              for g in result.groups]
    fixes = corrections or Corrections()
    scored = dates.scored(result.score, result.max_score, fixes)

    def render(shown: Result, cut: str | None) -> dict:
        tests = []
        for group in shown.groups:
            tests.append({
                "name": GROUP_TITLES.get(group.name, group.name),
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
                               "groups": groups, "misconceptions": held,
                               "raw_score": scored.raw, "corrected_score": scored.corrected,
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
    parts = [f"<h1>{esc(result.assignment)} — feedback for {esc(result.student)}</h1>"]
    if result.sandbox == "none":
        parts.append(f"<p><b>{esc(NO_SANDBOX)}</b></p>")
    parts += [f"<p>{esc(line)}</p>" for line in summary_lines(result, corrections)
              if line != NO_SANDBOX]
    if cells:
        parts.append("<h2>Your code that did not run</h2>")
        parts += [_code(cell) for cell in cells]
    for group in result.groups:
        title = GROUP_TITLES.get(group.name, group.name)
        parts.append(f"<h2>{esc(title)}: {group.points} / {group.max_points}</h2>")
        parts.append(f"<p><i>{esc(group.description)}</i></p><ul>")
        parts += [f"<li>✓ {esc(name)}</li>" for name in group.passed]
        for failure in group.failures:
            parts.append(
                f"<li>✗ <b>{esc(failure.check)}</b><dl>"
                f"<dt>The call</dt><dd><code>{esc(failure.call)}</code></dd>"
                f"<dt>Came back</dt><dd><code>{esc(failure.got)}</code></dd>"
                f"<dt>Expected</dt><dd><code>{esc(failure.expected)}</code></dd>"
                f"<dt>This suggests</dt><dd>{esc(failure.misconception.text)}</dd>"
                f"<dt>Revisit</dt><dd>lessons/{esc(failure.misconception.lesson)}.ipynb</dd>"
                "</dl></li>")
        parts.append("</ul>")
    if result.output.strip():
        parts.append(f"<h2>What your code printed (last lines)</h2><pre>{esc(result.output)}</pre>")
    if cut:
        parts.append(f"<p><i>{esc(cut)}</i></p>")
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
             "dt{font-weight:bold}code{background:#f3f3f3}"
             "pre.code{background:#f6f6f6;padding:.5em}.bad{background:#fdd;font-weight:bold}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(result.assignment)}"
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
                 # dates and corrections (`autograder.corrections`): score is after them
                 "raw_score", "submitted_at", "due", "late_days", "late_penalty", "late_note",
                 "timestamp_flag", "adjustment", "adjustment_reason",
                 # nbgrader's gradebook: what graders gave there (score includes it)
                 "manual", "extra_credit"]


def write_grades(out: Path, rows: list[dict]) -> None:
    """grades.csv: one row per student and assignment, with the reason when ungraded.

    Every text cell goes through `for_csv` (no formulas). The last column, ``sandbox``, is
    ``bubblewrap``, or ``none (graded WITHOUT a sandbox)`` when the instructor graded with
    --no-sandbox.
    """
    with tempfile.SpooledTemporaryFile(mode="w+", newline="", encoding="utf-8",
                                       errors="backslashreplace") as handle:
        writer = csv.DictWriter(handle, fieldnames=GRADES_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in sorted(rows, key=lambda r: (r["student"], r["assignment"])):
            cells = {**row, "sandbox": row.get("sandbox", "bubblewrap")}
            if cells["sandbox"] == "none":
                cells["sandbox"] = "none (graded WITHOUT a sandbox)"
            writer.writerow({key: for_csv(cells.get(key, "")) for key in GRADES_FIELDS})
        handle.seek(0)
        text = handle.read()
    write_atomically(out / "grades.csv", text)


# --- the class as a whole: summary text, summary.md, class.json and class.png ----------------

GROUP_SHORT = {"visible": "visible", "edge-cases": "edge cases", "properties": "properties"}
# Every suite's "it stopped with an error" / "it is not there" / "it is still the starter".
GENERIC = {"crash", "missing", UNWRITTEN}
NO_SUBMISSION = "no submission"
# The note on a submission whose answer cell is the starter as released (`misconceptions.state`).
UNTOUCHED = submission.UNTOUCHED


def _one_line(text: object) -> str:
    return str(text).replace("\r", "\\r").replace("\n", "\\n")


def _summary(rows: list[dict], name=_one_line) -> tuple[list[str], list[str]]:
    """The summary's headline(s) and the lines of what could not be graded (texts via ``name``)."""
    graded = [r for r in rows if r["status"] == "graded"]
    failed = [r for r in rows if r["status"] != "graded" and r["reason"] != NO_SUBMISSION]
    missing = len(rows) - len(graded) - len(failed)
    mean = sum(r["score"] / r["max_score"] for r in graded) / len(graded) if graded else 0
    head = [f"Graded {len(graded)} of {len(rows)} submissions; mean {mean:.0%}."
            + (f" {len(failed)} could not be graded." if failed else "")
            + (f" {missing} not handed in." if missing else "")]
    regraded = Counter(r["regraded"] for r in rows if r.get("regraded"))
    if regraded:
        head.append(f"Graded again: {sum(regraded.values())} "
                    f"({', '.join(f'{n} {why}' for why, n in sorted(regraded.items()))}); "
                    "their earlier scores are kept in their records' history.")
    flagged = [r for r in rows if r.get("timestamp_flag")]
    if flagged:
        head.append(f"{len(flagged)} submission{'s' * (len(flagged) != 1)} with a due date "
                    "had no timestamp.txt to trust (see grades.csv's timestamp_flag; course."
                    "toml's late_policy.missing_timestamp says how they count): "
                    + ", ".join(f"{name(r['student'])} / {name(r['assignment'])} "
                                f"({r['timestamp_flag']})" for r in flagged[:10])
                    + (f" and {len(flagged) - 10} more" if len(flagged) > 10 else "") + ".")
    ran = [r for r in rows if r.get("sandbox", "bubblewrap")]
    unsandboxed = sum(r.get("sandbox") == "none" for r in ran)
    if unsandboxed:
        head.append(("Every submission was" if unsandboxed == len(ran) else
                     f"{unsandboxed} of {len(ran)} submissions were")
                    + " graded WITHOUT a sandbox (--no-sandbox): the students' code was not "
                    "isolated from this machine.")
    listed = [f"not graded: {name(r['student'])} / {name(r['assignment'])}: {name(r['reason'])}"
              for r in failed]
    return head, listed


def summary(rows: list[dict]) -> str:
    """What `packlab grade` tells the instructor: graded, not graded (with reasons), the mean.

    ``rows`` are grade_class's grades.csv rows. A missing submission is counted, not listed.
    Plain text, one line per submission (a newline in a name is shown as ``\\n``): the caller
    escapes it for where it goes (the CLI: `autograder.escape.for_terminal`).
    """
    head, listed = _summary(rows)
    return "\n".join([*head, *(f"  {line}" for line in listed)])


def class_data(results: list[dict]) -> dict:
    """Per assignment (course order): scores, pass rate per test group, misconceptions.

    ``results`` are the results.json documents of a class (`gradescope`'s schema). A
    misconception counts each student once per assignment: ``found`` says what each means and
    how many hold it (`misconceptions.tally`), ``misconceptions`` maps its key to that number.
    """
    from autograder import misconceptions
    from packlab.course.manifest import load

    order = [e.name for e in load().exercises]
    assignments: dict[str, dict] = {}
    for data in results:
        extra = data["extra_data"]
        if extra["assignment"] not in order or extra["error"] == NO_SUBMISSION:
            continue
        entry = assignments.setdefault(extra["assignment"], {
            "max_score": extra["max_score"], "scores": [], "not_graded": 0, "groups": {},
            "held": [], "states": dict.fromkeys(misconceptions.STATES, 0)})
        if extra["error"]:
            entry["not_graded"] += 1
            continue
        entry["scores"].append(data["score"])
        state = misconceptions.state(data)
        if state:  # nothing of the student's ran: no idea of theirs to count
            entry["states"][state] += 1
        else:
            entry["held"].append(misconceptions.held(data))
        for group in extra.get("groups", []):
            tally = entry["groups"].setdefault(group["group"], {"passed": 0, "graded": 0})
            tally["graded"] += 1
            tally["passed"] += bool(group["passed"])
    for entry in assignments.values():
        held = entry.pop("held")
        entry["found"] = misconceptions.tally(held)
        entry["misconceptions"] = {key: found["students"]
                                   for key, found in entry["found"].items()}
        entry["crashed_or_missing"] = sum(any(e["key"] in GENERIC for e in listed)
                                          for listed in held)
    return {name: assignments[name] for name in order if name in assignments}


def top_misconception(entry: dict) -> tuple[str, int] | None:
    """The most common specific misconception (not a crash or a missing function), if any."""
    specific = [(k, n) for k, n in entry["misconceptions"].items() if k not in GENERIC]
    return specific[0] if specific else None


def summary_markdown(rows: list[dict], data: dict) -> str:
    """summary.md: the headline, what was not graded, scores and pass rates, misconceptions."""
    from autograder import misconceptions

    head, listed = _summary(rows, for_markdown)
    lines = ["# Class summary", "", "\n\n".join(head), *(f"- {line}" for line in listed), "",
             "| assignment | handed in | not graded | mean | full marks | "
             "most common misconception |", "|---|---|---|---|---|---|"]
    for name, entry in data.items():
        scores, top = entry["scores"], top_misconception(entry)
        mean = f"{sum(scores) / len(scores) / entry['max_score']:.0%}" if scores else "–"
        full = sum(s == entry["max_score"] for s in scores)
        lines.append(f"| {name} | {len(scores) + entry['not_graded']} | {entry['not_graded']} | "
                     f"{mean} | {full} | "
                     + (f"{top[0]}: {top[1]} student{'s' * (top[1] != 1)}" if top else "–")
                     + " |")
    lines += ["", "## Pass rate per test group (of graded submissions)", ""]
    for name, entry in data.items():
        for group, tally in entry["groups"].items():
            lines.append(f"- {name} · {GROUP_SHORT.get(group, group)}: "
                         f"{tally['passed'] / tally['graded']:.0%} "
                         f"({tally['passed']} of {tally['graded']})")
    lines += ["", *misconceptions.markdown(data)]
    return "\n".join(lines) + "\n"


def class_picture(data: dict, path: Path) -> None:
    """Top left: how the scores spread, per assignment. Top right: pass rate per test group.
    Below: students per misconception, per assignment, with the lesson to re-teach."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from autograder import misconceptions

    names = list(data)
    bars = [(name, group, tally) for name in names
            for group, tally in data[name]["groups"].items()]
    top = max(3.0, 0.5 + 0.36 * max(len(bars), 2 * len(names)))  # inches, both top panels
    below = 0.3 * len(misconceptions.picture_rows(data)) + 0.3  # inches, the bottom panel
    height = 0.5 + top + 1.1 + below + 0.6
    fig = Figure(figsize=(13, height), dpi=100)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(1, 2, width_ratios=[1, 1.25], left=0.13, right=0.97, wspace=0.55,
                            top=1 - 0.5 / height, bottom=(0.6 + below + 1.1) / height)
    left, right = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
    lower = fig.add_gridspec(1, 1, left=0.2, right=0.97, top=(0.6 + below) / height,
                             bottom=0.6 / height)
    misconceptions.draw(fig.add_subplot(lower[0]), data)

    # Left: one row per assignment, a bubble per score (area ~ students, number inside).
    biggest = max([1] + [max(Counter(data[n]["scores"]).values(), default=0) for n in names]
                  + [data[n]["not_graded"] for n in names])
    for row, name in enumerate(names):
        entry, y = data[name], len(names) - 1 - row
        points = [(100 * s / entry["max_score"], entry["scores"].count(s), "#3b7dd8")
                  for s in sorted(set(entry["scores"]))]
        if entry["not_graded"]:
            points.append((-20, entry["not_graded"], "#999999"))
        for x, count, colour in points:
            left.scatter(x, y, s=60 + 900 * count / biggest, color=colour, alpha=0.55,
                         edgecolors="none")
            left.annotate(str(count), (x, y), ha="center", va="center", fontsize=9)
        if entry["scores"]:
            mean = 100 * sum(entry["scores"]) / len(entry["scores"]) / entry["max_score"]
            left.plot([mean], [y + 0.36], marker="v", color="#d1495b", markersize=9)
            left.annotate(f"mean {mean:.0f} %", (mean, y + 0.36), xytext=(7, 0),
                          textcoords="offset points", va="center", fontsize=8,
                          color="#d1495b")
    left.set_yticks(range(len(names)), [f"{n}\n(of {data[n]['max_score']} points)"
                                        for n in reversed(names)], fontsize=9)
    left.set_ylim(-0.6, len(names) - 0.4)
    left.set_xlim(-32, 112)
    left.set_xticks([-20, 0, 25, 50, 75, 100], ["not\ngraded", "0 %", "25 %", "50 %", "75 %",
                                                "100 %"])
    left.set_title("Scores: how many students got each score", fontsize=11, loc="left")
    left.grid(axis="x", alpha=0.3)

    # Right: pass rate of every test group, the weakest in red.
    rates = [100 * t["passed"] / t["graded"] if t["graded"] else 0 for _, _, t in bars]
    ys = list(range(len(bars)))[::-1]
    colours = ["#d1495b" if r < 50 else "#edae49" if r < 80 else "#66a182" for r in rates]
    right.barh(ys, rates, color=colours, height=0.7)
    right.set_yticks(ys, [f"{name} · {GROUP_SHORT.get(group, group)}"
                          for name, group, _ in bars], fontsize=9)
    for y, rate, (_, _, tally) in zip(ys, rates, bars, strict=True):
        right.annotate(f"{rate:.0f} %  ({tally['passed']}/{tally['graded']})", (rate, y),
                       xytext=(4, 0), textcoords="offset points", va="center", fontsize=8.5)
    right.set_xlim(0, 125)
    right.set_xticks([0, 25, 50, 75, 100], ["0 %", "25 %", "50 %", "75 %", "100 %"])
    right.set_title("Pass rate per test group (of graded submissions)", fontsize=11, loc="left")
    right.grid(axis="x", alpha=0.3)

    fig.savefig(path, format="png")


def write_class(out: Path, rows: list[dict], results: list[dict]) -> dict:
    """summary.md, misconceptions.csv, class.json and class.png for the whole class; returns
    the class data."""
    from autograder import misconceptions
    from packlab.course.manifest import load

    data = class_data(results)
    write_atomically(out / "summary.md", summary_markdown(rows, data))
    order = [e.name for e in load().exercises]
    write_atomically(out / misconceptions.CSV_NAME, misconceptions.csv_text(results, order))
    write_atomically(out / "class.json", json.dumps(data, indent=2) + "\n")
    if data:
        fd, tmp = tempfile.mkstemp(dir=out, prefix=".class.png.")
        os.close(fd)
        class_picture(data, Path(tmp))
        os.replace(tmp, out / "class.png")
    return data
