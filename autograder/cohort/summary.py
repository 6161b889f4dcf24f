"""The class as a whole: the summary `packlab grade` prints, summary.md, class.json, class.png.

What they say of misconceptions comes from `autograder.cohort.misconceptions`; each submission's own
files are `autograder.cohort.report`'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from importlib.metadata import version
from pathlib import Path

from autograder import names
from autograder.cohort import misconceptions
from autograder.escape import for_markdown
from autograder.outfolder import ASIDE, NO_SUBMISSION, SET_ASIDE, write_atomically
from autograder.term import late
from packlab.manifest import load, plain_assignments

GROUP_SHORT = {"visible": "visible", "edge-cases": "edge cases", "properties": "properties"}
PICTURE_KEY = "packlab-class"  # class.png's text chunk: the stamp of what it was drawn from


def _one_line(text: object) -> str:
    return str(text).replace("\r", "\\r").replace("\n", "\\n")


def share(score: float, max_score: float) -> float:
    """``score`` as a share of ``max_score``; an assignment worth nothing (nbgrader allows a
    notebook of 0 points) is all there."""
    return score / max_score if max_score else 1.0


def _summary(rows: list[dict], name=_one_line) -> tuple[list[str], list[str]]:
    """The summary's headline(s) and the lines of what could not be graded (texts via ``name``)."""
    graded = [r for r in rows if r["status"] == "graded"]
    aside = [r for r in rows if r["status"] == SET_ASIDE]
    failed = [r for r in rows if r["status"] not in ("graded", SET_ASIDE)
              and r["reason"] != NO_SUBMISSION]
    missing = len(rows) - len(graded) - len(failed) - len(aside)
    mean = sum(share(r["score"], r["max_score"]) for r in graded) / len(graded) if graded else 0
    head = [f"Graded {len(graded)} of {len(rows)} submissions; mean {mean:.0%}."
            + (f" {len(failed)} could not be graded." if failed else "")
            + (f" {len(aside)} set aside as forged." if aside else "")
            + (f" {missing} not handed in." if missing else "")]
    forged = [r for r in rows if r.get("set_aside")]
    if forged:
        head.append(f"SET ASIDE: {len(forged)} submission{'s' * (len(forged) != 1)} came from "
                    "a hand-in that another account wrote than the learner it names: nothing "
                    "of a forgery is graded or written to nbgrader's gradebook; each is kept in "
                    f"{ASIDE}/ beside grades.csv (delete that folder once you have dealt with "
                    "them) and stays in the exchange until root removes it: "
                    + "; ".join(f"{name(r['student'])} / {name(r['assignment'])}: "
                                f"{name(r['set_aside'])}" for r in forged[:10])
                    + (f"; and {len(forged) - 10} more" if len(forged) > 10 else "") + ".")
    regraded = Counter(r["regraded"] for r in rows if r.get("regraded"))
    if regraded:
        head.append(f"Graded again: {sum(regraded.values())} "
                    f"({', '.join(f'{n} {why}' for why, n in sorted(regraded.items()))}); "
                    "their earlier scores are kept in their records' history.")
    backdated = [r for r in rows if r.get("timestamp_flag") == late.BACKDATED]
    if backdated:
        head.append(f"{len(backdated)} resubmission{'s' * (len(backdated) != 1)} claimed an "
                    "earlier time than an attempt already collected (grades.csv's timestamp_flag "
                    f"{late.BACKDATED}): each counts as handed in when it was graded: "
                    + ", ".join(f"{name(r['student'])} / {name(r['assignment'])}"
                                for r in backdated[:10])
                    + (f" and {len(backdated) - 10} more" if len(backdated) > 10 else "") + ".")
    flagged = [r for r in rows if r.get("timestamp_flag")
               and r.get("timestamp_flag") != late.BACKDATED]
    if flagged:
        head.append(f"{len(flagged)} submission{'s' * (len(flagged) != 1)} with a due date "
                    "had no timestamp.txt to trust (see grades.csv's timestamp_flag; course."
                    "toml's late_policy.missing_timestamp says how they count): "
                    + ", ".join(f"{name(r['student'])} / {name(r['assignment'])} "
                                f"({r['timestamp_flag']})" for r in flagged[:10])
                    + (f" and {len(flagged) - 10} more" if len(flagged) > 10 else "") + ".")
    alike = names.look_alikes({r["student"] for r in rows})
    if alike:
        head.append("Student names that look alike (each kept apart with their own rows; "
                    "nothing was merged or renamed: check they are different people): "
                    + "; ".join(" and ".join(f"{name(s)} ({names.scripts(s)})" for s in group)
                                for group in alike[:10])
                    + (f"; and {len(alike) - 10} more groups" if len(alike) > 10 else "") + ".")
    ran = [r for r in rows if r.get("sandbox", "bubblewrap")]
    unsandboxed = sum(r.get("sandbox") == "none" for r in ran)
    if unsandboxed:
        head.append(("Every submission was" if unsandboxed == len(ran) else
                     f"{unsandboxed} of {len(ran)} submissions were")
                    + " graded WITHOUT a sandbox (--no-sandbox): the students' code was not "
                    "isolated from this machine.")
    plain = sorted({r["assignment"] for r in graded} & set(plain_assignments()))
    if plain:
        head.append(f"Plain nbgrader assignment{'s' * (len(plain) != 1)} "
                    f"{', '.join(map(name, plain))}: graded at nbgrader's trust level (the test "
                    "cells ran in each student's own process, so a student's code could forge "
                    "its results, as under nbgrader).")
    watched = sum(r.get("memory") == "watchdog" for r in ran if r.get("sandbox") != "none")
    if watched:
        head.append(f"{watched} submission{'s' * (watched != 1)} had the memory of all their "
                    "processes bounded by a watchdog that reads it every 50 ms, not by a memory "
                    "cgroup (which needs root and cgroup v1's memory controller): a fast "
                    "allocator may pass the bound by what it takes in that time.")
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
    order = [e.name for e in load().exercises] + list(plain_assignments())
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
        entry["ran_out_of_time"] = sum(any(e["key"] == misconceptions.TIMEOUT for e in listed)
                                       for listed in held)
        entry["crashed_or_missing"] = sum(
            any(e["key"] in misconceptions.GENERIC - {misconceptions.TIMEOUT} for e in listed)
            and not any(e["key"] == misconceptions.TIMEOUT for e in listed) for listed in held)
    return {name: assignments[name] for name in order if name in assignments}


def top_misconception(entry: dict) -> tuple[str, int] | None:
    """The most common specific misconception (not a crash or a missing function), if any."""
    specific = [(k, n) for k, n in entry["misconceptions"].items()
                if k not in misconceptions.GENERIC]
    return specific[0] if specific else None


def summary_markdown(rows: list[dict], data: dict) -> str:
    """summary.md: the headline, what was not graded, scores and pass rates, misconceptions."""
    head, listed = _summary(rows, for_markdown)
    lines = ["# Class summary", "", "\n\n".join(head), *(f"- {line}" for line in listed), "",
             "| assignment | handed in | not graded | mean | full marks | "
             "most common misconception |", "|---|---|---|---|---|---|"]
    for name, entry in data.items():
        scores, top = entry["scores"], top_misconception(entry)
        mean = f"{share(sum(scores) / len(scores), entry['max_score']):.0%}" if scores else "–"
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


def prepare_picture() -> None:
    """Import what `class_picture` draws with (about half a CPU-second of matplotlib), to be
    done while the class is graded rather than after the last notebook."""
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401 - imported for later


def picture_stamp(data: dict) -> str:
    """A digest of what class.png shows and of what draws it: the class data, this module's
    and `misconceptions`' code, and matplotlib's version."""
    hashed = hashlib.sha256(json.dumps([data, version("matplotlib")], sort_keys=True).encode())
    for module in (__file__, misconceptions.__file__):
        hashed.update(Path(module).read_bytes())
    return hashed.hexdigest()


def drawn_from(path: Path) -> str | None:
    """The stamp of the class picture at ``path``; None when there is no such PNG or stamp."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path, formats=["PNG"]) as picture:
            return picture.text.get(PICTURE_KEY)
    except (OSError, UnidentifiedImageError, ValueError, SyntaxError):
        return None


def class_picture(data: dict, path: Path, stamp: str) -> None:
    """Top left: how the scores spread, per assignment. Top right: pass rate per test group.
    Below: students per misconception, per assignment, with the lesson to re-teach."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

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
        points = [(100 * share(s, entry["max_score"]), entry["scores"].count(s), "#3b7dd8")
                  for s in sorted(set(entry["scores"]))]
        if entry["not_graded"]:
            points.append((-20, entry["not_graded"], "#999999"))
        for x, count, colour in points:
            left.scatter(x, y, s=60 + 900 * count / biggest, color=colour, alpha=0.55,
                         edgecolors="none")
            left.annotate(str(count), (x, y), ha="center", va="center", fontsize=9)
        if entry["scores"]:
            mean = 100 * share(sum(entry["scores"]) / len(entry["scores"]), entry["max_score"])
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

    fig.savefig(path, format="png", metadata={PICTURE_KEY: stamp})  # picture_stamp(data)


def write_class(out: Path, rows: list[dict], results: list[dict]) -> dict:
    """summary.md, misconceptions.csv, class.json and class.png for the whole class; returns
    the class data."""
    data = class_data(results)
    write_atomically(out / "summary.md", summary_markdown(rows, data))
    order = [e.name for e in load().exercises] + list(plain_assignments())
    write_atomically(out / misconceptions.CSV_NAME, misconceptions.csv_text(results, order))
    write_atomically(out / "class.json", json.dumps(data, indent=2) + "\n")
    stamp = picture_stamp(data) if data else None
    # A class.png already drawn from the same data by the same code is kept as it is: the
    # same bytes, without matplotlib (most of an unchanged class's regrade).
    if data and drawn_from(out / "class.png") != stamp:
        fd, tmp = tempfile.mkstemp(dir=out, prefix=".class.png.")
        os.close(fd)
        class_picture(data, Path(tmp), stamp)
        os.replace(tmp, out / "class.png")
    return data
