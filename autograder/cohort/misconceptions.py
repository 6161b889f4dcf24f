"""What the class needs to hear: how many students hold each misconception, per exercise.

Per submission, `found` lists the misconception its failing checks name most and every generic
key (`autograder.checks.ideas.leading`: a mistake often looks like another idea on an input or
two), each with what it means, the lesson that puts it right and one call that shows it;
results.json keeps that list (``extra_data.misconceptions``), so a rerun that grades nothing
rebuilds everything here from the results.json files alone. An older results.json without the
list still counts: its keys (``extra_data.groups``) are looked up in the exercise's suite, and
its example call is blank.

Per class, `tally` counts students per misconception; `markdown` is summary.md's section,
`csv_text` is misconceptions.csv (one row per student, assignment and misconception) and
`draw` is the class picture's panel. Only calls from the tests and texts from the suites are
shown per exercise, never a student's name; names go only into misconceptions.csv, escaped.
"""

from __future__ import annotations

import ast
import csv
import io
from collections import Counter
from collections.abc import Iterable
from functools import cache
from importlib import import_module

from autograder.checks import unwritten
from autograder.checks.ideas import GENERIC, TIMEOUT, leading
from autograder.checks.suite import NONDETERMINISTIC, SKIPPED, TIMED_OUT, Failure, Misconception
from autograder.escape import NAME_CHARS, cut, for_csv, for_markdown
from autograder.run.engine import RAN, Result
from autograder.run.submission import UNTOUCHED

RAN_OUT = ("a call ran out of time: it did not return within the time one call (or the notebook's "
           "cells) may take, an endless loop most likely. Run this very call in a cell and "
           "interrupt it to see where it loops.")
# `GENERIC` keys are no idea to re-teach: counted, but kept apart from the teachable ones.
GENERIC_WORDS = ("crashed, ran out of time (an endless loop?), had no function by that name, or "
                 "was not written yet")
FIELDS = ("key", "text", "lesson", "example")
EXAMPLE_CHARS = 300  # an example call, as stored and shown
TEXT_CHARS = 1_000  # what a misconception means, as stored and shown
TOP = 3  # teachable misconceptions per exercise in the class picture
CSV_FIELDS = ["student", "assignment", "misconception", "means", "lesson", "lesson_title",
              "example_call"]
CSV_NAME = "misconceptions.csv"


# --- one submission ----------------------------------------------------------------------------


def degenerate(call: str) -> bool:
    """Does this example call pass an empty or zero argument (``pack([], 0)``)? Such a call
    makes a poor warm-up: the smallest call with something in every argument shows more."""
    try:
        node = ast.parse(call, mode="eval").body
        values = [ast.literal_eval(a) for a in [*node.args, *(k.value for k in node.keywords)]]
    except (SyntaxError, ValueError, TypeError, AttributeError, RecursionError, MemoryError):
        return False  # not a call of literals (a cut one, say): judged by its length alone
    return any((type(v) in (int, float) and v == 0) or (isinstance(v, list | dict | str | tuple)
                                                         and not v) for v in values)


def _example_order(call: str) -> tuple[bool, int, str]:
    """How example calls are chosen: a non-degenerate one first, then the shortest, then by
    text (so reruns pick the same)."""
    return degenerate(call), len(call), call


def _shortest(failures: Iterable[Failure]) -> Failure:
    """The failure whose call makes the best example (`_example_order`)."""
    return min(failures, key=lambda f: (*_example_order(f.call), f.misconception.text))


def _key(failure: Failure, timed_out: bool) -> str:
    """The failure's misconception; a crash that was a timeout is `TIMEOUT`, and so is a call
    not made after one (``timed_out``: the submission had a timeout)."""
    if failure.misconception.key != "crash":
        return failure.misconception.key
    if failure.got.startswith(TIMED_OUT) or (timed_out and failure.got.startswith(SKIPPED)):
        return TIMEOUT
    return "crash"


def found(result: Result) -> list[dict]:
    """The misconceptions ``result`` is counted under (`leading`): key, text, lesson, example
    call.

    From the whole result (cutting texts for the feedback must not change what is counted); the
    example is the shortest failing call with that misconception that passes no empty or zero
    argument, if there is one (`degenerate`). A crash that was a timeout is `TIMEOUT`.
    """
    failures = [failure for group in result.groups for failure in group.failures]
    timed_out = any(f.got.startswith(TIMED_OUT) for f in failures)
    by_key: dict[str, list[Failure]] = {}
    for failure in failures:
        by_key.setdefault(_key(failure, timed_out), []).append(failure)
    counted = leading({key: len(named) for key, named in by_key.items()})
    listed = []
    for key in sorted(counted):
        example = _shortest(by_key[key])
        text = RAN_OUT if key == TIMEOUT else example.misconception.text
        listed.append({"key": key, "text": cut(text, TEXT_CHARS),
                       "lesson": example.misconception.lesson,
                       "example": cut(example.call, EXAMPLE_CHARS)})
    return listed


@cache
def _suite_misconceptions(assignment: str) -> tuple[dict[str, Misconception], str, str]:
    """The misconceptions of an exercise's suite, its function and its lesson."""
    from packlab.manifest import load

    exercise = load().exercise(assignment)
    module = import_module(f"autograder.checks.suites.{exercise.suite}")
    return module.MISCONCEPTIONS, exercise.function, exercise.lesson or ""


def from_suite(assignment: str, key: str) -> dict:
    """A misconception by its key, as the exercise's suite says it (no example call)."""
    known, function, lesson = _suite_misconceptions(assignment)
    if key == unwritten.KEY:
        said = Misconception(key, unwritten.sentence(function), lesson)
    elif key == TIMEOUT:
        said = Misconception(key, RAN_OUT, lesson)
    elif key == "nondeterministic":  # every suite's, when a search's failure did not repeat
        said = Misconception(key, NONDETERMINISTIC.removesuffix(" Before that: "), lesson)
    else:
        said = known.get(key, Misconception(key, "", lesson))
    return {"key": key, "text": said.text, "lesson": said.lesson, "example": ""}


def _well_formed(listed: object) -> bool:
    return isinstance(listed, list) and all(
        isinstance(entry, dict) and all(isinstance(entry.get(f), str) for f in FIELDS)
        for entry in listed)


def held(data: dict) -> list[dict]:
    """The misconceptions one results.json says its submission holds, bounded.

    An older results.json (or one whose list is not ours) gives its groups' keys, described by
    the exercise's suite, with a blank example: each group names a key once, so the idea named
    in the most groups leads (`leading`).
    """
    extra = data["extra_data"]
    listed = extra.get("misconceptions")
    if not _well_formed(listed):
        named = Counter(key for group in extra.get("groups", [])
                        for key in dict.fromkeys(group.get("misconceptions", [])))
        listed = [from_suite(extra["assignment"], key) for key in sorted(leading(named))]
    return [{"key": cut(e["key"], EXAMPLE_CHARS), "text": cut(e["text"], TEXT_CHARS),
             "lesson": cut(e["lesson"], EXAMPLE_CHARS),
             "example": cut(e["example"], EXAMPLE_CHARS)} for e in listed]


NOT_STARTED, DOES_NOT_RUN = "not started", "does not run"
STATES = {NOT_STARTED: "the answer is still the starter as handed out (unchanged, or still "
                       "`raise NotImplementedError`)",
          DOES_NOT_RUN: "the notebook's code did not run (a syntax error, or a cell that "
                        "raised), so the function was never defined"}


def state(data: dict) -> str | None:
    """`NOT_STARTED` or `DOES_NOT_RUN` for a graded submission none of whose own ideas were
    tested, else None (its failing checks point to what it holds)."""
    extra = data["extra_data"]
    notes = [note for note in extra.get("notes") or [] if isinstance(note, str)]
    keys = {entry["key"] for entry in held(data)}
    if UNTOUCHED in notes or (keys and keys <= {unwritten.KEY}):
        return NOT_STARTED
    if "missing" in keys and any(note.startswith(RAN) for note in notes):
        return DOES_NOT_RUN
    return None


# --- the class ---------------------------------------------------------------------------------


def lesson_title(slug: str) -> str:
    """The lesson's title from the course manifest ("" when there is no such lesson)."""
    from packlab.manifest import load

    return next((lesson.title for lesson in load().lessons if lesson.slug == slug), "")


def tally(submissions: list[list[dict]]) -> dict[str, dict]:
    """Per misconception (most students first, then by key): how many of these graded
    submissions hold it, what it means, the lesson and its title, the shortest example call,
    and whether it is generic (not an idea to re-teach)."""
    seen: dict[str, list[dict]] = {}
    for listed in submissions:
        for entry in listed:
            seen.setdefault(entry["key"], []).append(entry)
    counted = {}
    for key, entries in sorted(seen.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = [e for e in entries if e["example"]] or entries
        best = min(shown, key=lambda e: (*_example_order(e["example"]), e["text"], e["lesson"]))
        counted[key] = {"students": len(entries), "text": best["text"], "lesson": best["lesson"],
                        "title": lesson_title(best["lesson"]), "example": best["example"],
                        "generic": key in GENERIC}
    return counted


def _share(students: int, graded: int) -> str:
    return f"{students / graded:.0%}" if graded else "–"


def markdown(data: dict) -> list[str]:
    """summary.md's section: per exercise a table of its misconceptions, most students first."""
    lines = ["## What the class needs to hear: misconceptions per exercise", "",
             "Each row is a wrong idea that failing checks point to: how many graded students "
             "hold it (a student counts once per exercise, under the idea most of their failing "
             "checks name), what it means, the lesson to "
             "re-teach, and one call that shows it (the shortest failing call; no student is "
             "named). Code that " + GENERIC_WORDS + " is counted apart: that is no idea to "
             f"re-teach. Who holds which: `{CSV_NAME}` (one row per student, assignment and "
             "misconception)."]
    for name, entry in data.items():
        graded, counted = len(entry["scores"]), entry["found"]
        teach = {k: v for k, v in counted.items() if not v["generic"]}
        generic = {k: v for k, v in counted.items() if v["generic"]}
        lines += ["", f"### {for_markdown(name)} ({graded} graded)", ""]
        if teach:
            lines += ["| misconception | students | what it means | re-teach | example call |",
                      "|---|---|---|---|---|"]
            lines += [f"| {for_markdown(k)} | {v['students']} ({_share(v['students'], graded)}) "
                      f"| {for_markdown(v['text'])} | {for_markdown(v['lesson'])}"
                      + (f": {for_markdown(v['title'])}" if v["title"] else "")
                      + f" | {for_markdown(v['example']) or '–'} |" for k, v in teach.items()]
        else:
            lines.append("No misconception to re-teach." if graded else "Nothing was graded.")
        if generic:
            lines += ["", "Not a misconception to teach (the code " + GENERIC_WORDS + "): "
                      + ", ".join(f"{for_markdown(k)} {v['students']} "
                                  f"({_share(v['students'], graded)})"
                                  for k, v in generic.items()) + "."]
        states = {k: n for k, n in entry.get("states", {}).items() if n}
        if states:
            lines += ["", "Nothing of theirs to count: " + "; ".join(
                f"{k} {n} ({_share(n, graded)}): {STATES[k]}" for k, n in states.items())
                + "."]
    return lines


def csv_text(results: list[dict], order: list[str]) -> str:
    """misconceptions.csv: one row per student × assignment × misconception, every text cell
    through `for_csv`; by assignment (course order), then student, then misconception."""
    rows = []
    for data in results:
        extra = data["extra_data"]
        if extra["error"] or extra["assignment"] not in order:
            continue
        said = state(data)
        listed = [{"key": said, "text": STATES[said], "lesson": "", "example": ""}] if said \
            else held(data)
        for entry in listed:
            rows.append({"student": cut(extra["student"], NAME_CHARS),
                         "assignment": cut(extra["assignment"], NAME_CHARS),
                         "misconception": entry["key"], "means": entry["text"],
                         "lesson": entry["lesson"], "lesson_title": lesson_title(entry["lesson"]),
                         "example_call": entry["example"]})
    rows.sort(key=lambda r: (order.index(r["assignment"]), r["student"], r["misconception"]))
    handle = io.StringIO(newline="")
    writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for row in rows:
        writer.writerow({key: for_csv(value) for key, value in row.items()})
    return handle.getvalue()


# --- the class picture's panel -----------------------------------------------------------------


def picture_rows(data: dict) -> list[tuple[str, str, int, str]]:
    """The panel's rows, top to bottom: (kind, label, students, note); kind is one of
    exercise, teach, generic, more and none."""
    rows = []
    for name, entry in data.items():
        graded, counted = len(entry["scores"]), entry["found"]
        rows.append(("exercise", f"{name}  ({graded} graded)", 0, ""))
        teach = [(k, v) for k, v in counted.items() if not v["generic"]]
        for key, value in teach[:TOP]:
            rows.append(("teach", key, value["students"],
                         f"{value['students']} ({_share(value['students'], graded)})  "
                         f"→ re-teach {value['lesson']}"))
        if len(teach) > TOP:
            rows.append(("more", "", 0, f"… and {len(teach) - TOP} more in summary.md"))
        for key, students in entry.get("states", {}).items():
            if students:
                rows.append(("generic", key, students,
                             f"{students} ({_share(students, graded)})  {key}"))
        timed_out = entry.get("ran_out_of_time", 0)
        if timed_out:
            rows.append(("generic", "ran out of time", timed_out,
                         f"{timed_out} ({_share(timed_out, graded)})  a call did not return in "
                         "time (an endless loop?): no idea to re-teach"))
        generic = entry["crashed_or_missing"]
        if generic:
            rows.append(("generic", "crashed / not written", generic,
                         f"{generic} ({_share(generic, graded)})  crashed, no such function "
                         "or not written yet: no idea to re-teach"))
        if not teach and not generic and not timed_out \
                and not any(entry.get("states", {}).values()):
            rows.append(("none", "", 0, "no misconception found" if graded else "nothing graded"))
    return rows


COLOURS = {"teach": "#d1495b", "generic": "#aaaaaa"}


def draw(axes, data: dict) -> None:
    """Per exercise, bars of how many students hold its top teachable misconceptions, with the
    lesson to re-teach, and grey bars for code that ran out of time, crashed or was not
    written."""
    from matplotlib.ticker import MaxNLocator

    rows = picture_rows(data)
    ys = list(range(len(rows)))[::-1]
    widest = max([1] + [students for _, _, students, _ in rows])
    for y, (kind, _, students, note) in zip(ys, rows, strict=True):
        if kind in COLOURS:
            axes.barh(y, students, color=COLOURS[kind], height=0.65)
        if note:
            axes.annotate(note, (students, y), xytext=(5, 0), textcoords="offset points",
                          va="center", fontsize=8.5,
                          style="italic" if kind in ("more", "none") else "normal")
    axes.set_yticks(ys, [label for _, label, _, _ in rows], fontsize=9)
    for tick, (kind, *_) in zip(axes.get_yticklabels(), rows, strict=True):
        if kind == "exercise":
            tick.set_fontweight("bold")
    axes.set_ylim(-0.6, len(rows) - 0.4)
    axes.set_xlim(0, widest / 0.45)  # the longest bar takes under half: its note fits after it
    axes.set_xticks([t for t in MaxNLocator(integer=True).tick_values(0, widest) if t <= widest])
    axes.set_xlabel("students", fontsize=9)
    axes.set_title("What the class needs to hear: students per misconception "
                   f"(top {TOP} per exercise), and the lesson to re-teach",
                   fontsize=11, loc="left")
    axes.grid(axis="x", alpha=0.3)
