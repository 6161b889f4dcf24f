"""What grading writes: per submission a feedback page and a Gradescope results.json; grades.csv."""

from __future__ import annotations

import csv
import html
import json
import os
import tempfile
from pathlib import Path

from autograder.engine import Result

GROUP_TITLES = {"visible": "Visible tests", "edge-cases": "Hidden tests: edge cases",
                "properties": "Hidden tests: properties"}


def write_atomically(path: Path, text: str) -> None:
    """Write a whole file or nothing: a killed run never leaves half a file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def summary_lines(result: Result) -> list[str]:
    if result.error:
        return [f"Not graded: {result.error}"]
    lines = [f"Score: {result.score} / {result.max_score}"]
    lines += [f"Note: {note}" for note in result.notes]
    return lines


def gradescope(result: Result) -> dict:
    """The Gradescope autograder schema: score, output, tests[] — plus our own data."""
    tests = []
    for group in result.groups:
        tests.append({
            "name": GROUP_TITLES.get(group.name, group.name),
            "score": group.points,
            "max_score": group.max_points,
            "status": "failed" if group.failures else "passed",
            "output": "\n\n".join(f.message() for f in group.failures) or "All checks passed.",
            "visibility": "visible" if group.visible else "after_published",
        })
    return {"score": result.score, "output": "\n".join(summary_lines(result)), "tests": tests,
            "extra_data": {"student": result.student, "assignment": result.assignment,
                           "max_score": result.max_score, "error": result.error,
                           "notes": result.notes}}


def feedback_html(result: Result) -> str:
    """A page a learner can read: per failing check the call, what came back and why."""
    esc = html.escape
    parts = [f"<h1>{esc(result.assignment)} — feedback for {esc(result.student)}</h1>"]
    parts += [f"<p>{esc(line)}</p>" for line in summary_lines(result)]
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
    style = ("body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.4}"
             "dt{font-weight:bold}code{background:#f3f3f3}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(result.assignment)}"
            f"</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n")


def write_submission(out: Path, result: Result) -> None:
    folder = out / result.student / result.assignment
    write_atomically(folder / "feedback.html", feedback_html(result))
    # results.json last: its presence means this submission is done (a rerun resumes after it).
    write_atomically(folder / "results.json", json.dumps(gradescope(result), indent=2) + "\n")


def write_grades(out: Path, rows: list[dict]) -> None:
    """grades.csv: one row per student and assignment, with the reason when ungraded."""
    fields = ["student", "assignment", "score", "max_score", "status", "reason"]
    with tempfile.SpooledTemporaryFile(mode="w+", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda r: (r["student"], r["assignment"])))
        handle.seek(0)
        text = handle.read()
    write_atomically(out / "grades.csv", text)
