"""What grading writes: per submission a feedback page and a Gradescope results.json; grades.csv."""

from __future__ import annotations

import csv
import html
import json
import os
import tempfile
from collections import Counter
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


def remove_partial(out: Path) -> list[Path]:
    """Delete the temp files a killed run left (never read as results); return them."""
    if not out.is_dir():
        return []
    found = [p for pattern in (".results.json.*", ".feedback.html.*")
             for p in out.glob(f"*/*/{pattern}")]
    found += [p for pattern in (".grades.csv.*", ".summary.md.*", ".class.json.*",
                                ".class.png.*") for p in out.glob(pattern)]
    for path in found:
        path.unlink(missing_ok=True)
    return found


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
    # Per test group, its name and the misconception of each failing check: what the class
    # picture and summary.md count, so a resumed run needs nothing but the results.json files.
    groups = [{"group": g.name, "passed": not g.failures,
               "misconceptions": [f.misconception.key for f in g.failures]}
              for g in result.groups]
    return {"score": result.score, "output": "\n".join(summary_lines(result)), "tests": tests,
            "extra_data": {"student": result.student, "assignment": result.assignment,
                           "max_score": result.max_score, "error": result.error,
                           "notes": result.notes, "groups": groups}}


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


# --- the class as a whole: summary text, summary.md, class.json and class.png ----------------

GROUP_SHORT = {"visible": "visible", "edge-cases": "edge cases", "properties": "properties"}
GENERIC = {"crash", "missing"}  # every suite's "it stopped with an error" / "it is not there"
NO_SUBMISSION = "no submission"


def summary(rows: list[dict]) -> str:
    """What `packlab grade` tells the instructor: graded, not graded (with reasons), the mean.

    ``rows`` are grade_class's grades.csv rows. A missing submission is counted, not listed.
    """
    graded = [r for r in rows if r["status"] == "graded"]
    failed = [r for r in rows if r["status"] != "graded" and r["reason"] != NO_SUBMISSION]
    missing = len(rows) - len(graded) - len(failed)
    mean = sum(r["score"] / r["max_score"] for r in graded) / len(graded) if graded else 0
    lines = [f"Graded {len(graded)} of {len(rows)} submissions; mean {mean:.0%}."
             + (f" {len(failed)} could not be graded." if failed else "")
             + (f" {missing} not handed in." if missing else "")]
    lines += [f"  not graded: {r['student']} / {r['assignment']}: {r['reason']}" for r in failed]
    return "\n".join(lines)


def class_data(results: list[dict]) -> dict:
    """Per assignment (course order): scores, pass rate per test group, misconceptions.

    ``results`` are the results.json documents of a class (`gradescope`'s schema). A
    misconception counts each student once per assignment.
    """
    from packlab.course import load

    order = [e.name for e in load().exercises]
    assignments: dict[str, dict] = {}
    for data in results:
        extra = data["extra_data"]
        if extra["assignment"] not in order or extra["error"] == NO_SUBMISSION:
            continue
        entry = assignments.setdefault(extra["assignment"], {
            "max_score": extra["max_score"], "scores": [], "not_graded": 0, "groups": {},
            "misconceptions": {}, "crashed_or_missing": 0})
        if extra["error"]:
            entry["not_graded"] += 1
            continue
        entry["scores"].append(data["score"])
        seen = set()
        for group in extra.get("groups", []):
            tally = entry["groups"].setdefault(group["group"], {"passed": 0, "graded": 0})
            tally["graded"] += 1
            tally["passed"] += bool(group["passed"])
            seen.update(group["misconceptions"])
        for key in seen:
            entry["misconceptions"][key] = entry["misconceptions"].get(key, 0) + 1
        entry["crashed_or_missing"] += bool(seen & GENERIC)
    for entry in assignments.values():
        entry["misconceptions"] = dict(sorted(entry["misconceptions"].items(),
                                              key=lambda kv: (-kv[1], kv[0])))
    return {name: assignments[name] for name in order if name in assignments}


def top_misconception(entry: dict) -> tuple[str, int] | None:
    """The most common specific misconception (not a crash or a missing function), if any."""
    specific = [(k, n) for k, n in entry["misconceptions"].items() if k not in GENERIC]
    return specific[0] if specific else None


def summary_markdown(rows: list[dict], data: dict) -> str:
    lines = ["# Class summary", "", summary(rows).replace("\n  ", "\n- "), "",
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
    lines += ["", "## Misconceptions (students per assignment)", ""]
    for name, entry in data.items():
        found = ", ".join(f"{k}: {n}" for k, n in entry["misconceptions"].items()) or "none"
        lines.append(f"- {name}: {found}")
    return "\n".join(lines) + "\n"


def class_picture(data: dict, path: Path) -> None:
    """Left: how the scores spread, per assignment. Right: pass rate per test group."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(data)
    bars = [(name, group, tally) for name in names
            for group, tally in data[name]["groups"].items()]
    height = max(4.0, 1.2 + 0.36 * max(len(bars), 2 * len(names)) + 0.3 * len(names))
    fig = Figure(figsize=(13, height), dpi=100)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(1, 2, width_ratios=[1, 1.25], left=0.13, right=0.97, wspace=0.55,
                            top=1 - 0.5 / height, bottom=(1.0 + 0.2 * len(names)) / height)
    left, right = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])

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

    lines = []
    for name in names:
        top = top_misconception(data[name])
        generic = data[name]["crashed_or_missing"]
        text = (f"{top[0]}: {top[1]} student{'s' * (top[1] != 1)}" if top
                else "no specific misconception")
        if generic:
            text += f"   (+ {generic} crashed, looped or had no such function)"
        lines.append(f"{name}:  {text}")
    fig.text(0.02, 0.15 / height, "Most common misconception\n" + "\n".join(lines), fontsize=9,
             va="bottom", family="monospace", linespacing=1.4)
    fig.savefig(path, format="png")


def write_class(out: Path, rows: list[dict], results: list[dict]) -> dict:
    """summary.md, class.json and class.png for the whole class; returns the class data."""
    data = class_data(results)
    write_atomically(out / "summary.md", summary_markdown(rows, data))
    write_atomically(out / "class.json", json.dumps(data, indent=2) + "\n")
    if data:
        fd, tmp = tempfile.mkstemp(dir=out, prefix=".class.png.")
        os.close(fd)
        class_picture(data, Path(tmp))
        os.replace(tmp, out / "class.png")
    return data
