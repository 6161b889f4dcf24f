"""What the class needs to hear: misconceptions per exercise in summary.md, class.png and
misconceptions.csv, from a class of about 30 built from the mutant gallery and graded for real."""

from __future__ import annotations

import csv
import json
import shutil
import struct
from collections import Counter

import nbformat
import pytest
from conftest import COURSE, EXERCISES, submit, with_answer

from autograder.checks import gallery
from autograder.cohort import misconceptions, record
from autograder.cohort.classroom import grade_class
from autograder.escape import for_csv, for_markdown
from autograder.run.isolation import Limits

# The module's fixtures are built once only if its tests share one xdist worker.
pytestmark = pytest.mark.xdist_group("misconceptions")

FAST = Limits(call_seconds=1.0, setup_seconds=5.0)
PACK, REPORT = EXERCISES[1], EXERCISES[3]  # 02-greedy-pack, 04-pack-report
FORMULA = "=cmd|' -C calc'!A0"
# (no line break or backslash: a name with one is refused, `autograder.names`)
MARKUP = "evil name <b>x | *y* [z](javascript:x) `c`"
LONG = "L" * 200
UNREADABLE = "<img src=x onerror=alert(1)>"
CRASH = "def pack(parts, budget):\n    raise ValueError('no')\n"
SOLUTION, STARTER = "solution", "starter"

# Who hands in what: a gallery mutant ("<suite>/<name>"), the solution, the starter as
# released, a function that crashes, or a notebook that cannot be read.
CLASS = {PACK.name: {
    "s01": "pack/break_at_first_miss", "s02": "pack/break_at_first_miss",
    "s03": "pack/break_at_first_miss", "s04": "pack/break_at_first_miss",
    FORMULA: "pack/break_at_first_miss",
    "s05": "pack/reversed_order", "s06": "pack/reversed_order",
    "s07": "pack/sorts_by_size", "s08": "pack/sorts_by_size",
    "s09": "pack/strict_less_than", "s10": "pack/strict_less_than",
    MARKUP: "pack/strict_less_than",
    "s11": "pack/returns_parts", "s12": "pack/returns_parts",
    "s13": "pack/forgets_return", "s14": "pack/mutates_input",
    # Its answers look like a strict `<` with a budget of 0 and like another walk once: it
    # counts under its own idea alone (`misconceptions.leading`).
    "s20": "pack/splits_part",
    "s15": SOLUTION, "s16": SOLUTION, "s17": STARTER, "s18": STARTER, "s19": CRASH,
}, REPORT.name: {
    "s01": "pack_report/break_at_first_miss", "s02": "pack_report/break_at_first_miss",
    LONG: "pack_report/break_at_first_miss",
    "s03": "pack_report/dropped_reversed", "s04": "pack_report/dropped_reversed",
    "s05": "pack_report/used_counts_dropped", "s06": "pack_report/used_counts_dropped",
    "s07": "pack_report/missing_used_key", "s08": SOLUTION, UNREADABLE: "{ not a notebook",
}}
GENERIC = {CRASH: "crash"}
BY_NAME = {PACK.name: PACK, REPORT.name: REPORT}


def expected_keys(handed_in: str) -> set[str]:
    """The misconceptions a submission holds, as the gallery says (a starter: none)."""
    if handed_in in GENERIC:
        return {GENERIC[handed_in]}
    return {gallery.load(handed_in).misconception} if "/" in handed_in else set()


def listed_keys(handed_in: str) -> set[str]:
    """What misconceptions.csv says of a submission: a starter is "not started"."""
    return {"not started"} if handed_in == STARTER else expected_keys(handed_in)


def notebook(exercise, handed_in: str):
    if handed_in == SOLUTION:
        return with_answer(exercise, None)
    if handed_in == STARTER:
        return nbformat.read(exercise.release, as_version=4)
    if handed_in == CRASH:
        return with_answer(exercise, CRASH)
    if "/" in handed_in:
        return with_answer(exercise, gallery.load(handed_in).code)
    return handed_in  # not a notebook


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded once: (OUT, grades.csv rows)."""
    root = tmp_path_factory.mktemp("class")
    submitted, out = root / "submitted", root / "out"
    for name, students in CLASS.items():
        for student, handed_in in students.items():
            submit(submitted, student, BY_NAME[name], notebook(BY_NAME[name], handed_in))
    return submitted, out, grade_class(submitted, out, jobs=2, limits=FAST)


def holders(assignment: str) -> dict[str, set[str]]:
    """Per misconception, the students who hold it (as the gallery says)."""
    held: dict[str, set[str]] = {}
    for student, handed_in in CLASS[assignment].items():
        for key in expected_keys(handed_in):
            held.setdefault(key, set()).add(student)
    return held


def failing_calls(out, students, assignment, key) -> set[str]:
    """Every call of a failing check with that misconception, in the grader's records."""
    calls = set()
    for student in students:
        result = record.read(out, student, assignment).result
        calls |= {f.call for g in result.groups for f in g.failures
                  if f.misconception.key == key}
    return calls


def test_counts_lessons_and_examples_per_exercise(graded):
    _, out, _ = graded
    data = json.loads((out / "class.json").read_text())
    markdown = (out / "summary.md").read_text()
    for name in CLASS:
        found, held = data[name]["found"], holders(name)
        graded_here = len(data[name]["scores"])
        assert {k: v["students"] for k, v in found.items()} == \
            {k: len(v) for k, v in held.items()}
        counts = [v["students"] for v in found.values()]
        assert counts == sorted(counts, reverse=True), "most students first"
        for key, value in found.items():
            lesson = COURSE.lesson(value["lesson"])
            assert value["title"] == lesson.title
            assert value["generic"] == (key in misconceptions.GENERIC)
            calls = failing_calls(out, held[key], name, key)
            assert value["example"] == min(calls, key=lambda c: (
                misconceptions.degenerate(c), len(c), c))
            if not value["generic"]:
                assert (f"| {for_markdown(key)} | {value['students']} "
                        f"({value['students'] / graded_here:.0%}) | "
                        f"{for_markdown(value['text'])} | {for_markdown(lesson.slug)}: "
                        f"{for_markdown(lesson.title)} | {for_markdown(value['example'])} |"
                        ) in markdown
    # The break bug is taught in lesson 03, whichever exercise shows it.
    assert data[PACK.name]["found"]["break-at-first-miss"]["lesson"] == "03-the-early-stop-trap"
    # Generic keys are counted apart, not in the table of ideas to re-teach.
    assert "| not-written |" not in markdown and "| crash |" not in markdown
    assert "crash 1 (5%)." in markdown and "not-written" not in markdown
    assert "Nothing of theirs to count: not started 2 (9%)" in markdown


def test_summary_names_no_student_and_escapes_the_ungraded(graded):
    _, out, _ = graded
    markdown = (out / "summary.md").read_text()
    section = markdown[markdown.index("## What the class needs to hear"):]
    for student in {s for students in CLASS.values() for s in students}:
        assert student not in section and for_markdown(student) not in section
    assert "misconceptions.csv" in section
    assert UNREADABLE not in markdown and for_markdown(UNREADABLE) in markdown
    # The sections kept from before: headline, not graded, pass rates.
    assert markdown.startswith("# Class summary\n\nGraded ")
    assert "## Pass rate per test group" in markdown


def test_misconceptions_csv_lists_exactly_who_holds_what(graded):
    _, out, _ = graded
    with open(out / "misconceptions.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    expected = {(for_csv(student), name, key)
                for name, students in CLASS.items()
                for student, handed_in in students.items() for key in listed_keys(handed_in)}
    assert {(r["student"], r["assignment"], r["misconception"]) for r in rows} == expected
    assert len(rows) == len(expected)
    by_student = {(r["student"], r["assignment"]): r for r in rows}
    formula = by_student[for_csv(FORMULA), PACK.name]
    assert formula["student"] == "'" + FORMULA
    assert formula["lesson"] == "03-the-early-stop-trap"
    assert formula["lesson_title"] == COURSE.lesson("03-the-early-stop-trap").title
    assert formula["example_call"] in failing_calls(out, [FORMULA], PACK.name,
                                                    "break-at-first-miss")
    assert by_student[LONG, REPORT.name]["misconception"] == "break-at-first-miss"
    assert not any(cell.startswith(("=", "+", "-", "@")) for r in rows for cell in r.values())


def test_class_picture_has_the_misconception_panel(graded):
    _, out, _ = graded
    data = (out / "class.png").read_bytes()
    width, height = struct.unpack(">II", data[16:24])
    assert width == 1300 and height >= 800  # the panel below the two (was 400 px high)


def test_rerun_rebuilds_the_same_files_from_results_json(graded):
    submitted, out, rows = graded
    files = ["summary.md", "misconceptions.csv", "class.json"]
    before = {name: (out / name).read_bytes() for name in files}
    stamps = {p: p.stat().st_mtime_ns for p in out.glob("students/*/*/results.json")}
    for name in files:
        (out / name).unlink()
    assert grade_class(submitted, out, jobs=2, limits=FAST) == rows
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps, "something was graded again"
    assert {name: (out / name).read_bytes() for name in files} == before


def test_older_results_json_without_the_details_still_count(graded, tmp_path):
    """results.json written before the misconception details: looked up in the suite, and the
    example call is left blank."""
    submitted, out, rows = graded
    old = tmp_path / "out"
    shutil.copytree(out, old)
    for path in old.glob("students/*/*/results.json"):
        data = json.loads(path.read_text())
        del data["extra_data"]["misconceptions"]
        path.write_text(json.dumps(data, indent=2) + "\n")
    assert grade_class(submitted, old, jobs=2, limits=FAST) == rows
    now, then = (json.loads((o / "class.json").read_text()) for o in (out, old))
    for name in now:
        for key, value in now[name]["found"].items():
            assert then[name]["found"][key] == {**value, "example": ""}
    with open(old / "misconceptions.csv", newline="", encoding="utf-8") as handle:
        listed = list(csv.DictReader(handle))
    assert listed and {r["example_call"] for r in listed} == {""}
    assert Counter(r["misconception"] for r in listed)["break-at-first-miss"] == 8
    assert "| break-at-first-miss | 5 (23%) |" in (old / "summary.md").read_text()


def test_an_older_results_json_is_described_by_the_suite():
    """Keys without details are looked up: the suite's own, "not written yet", a search that did
    not repeat, and a key the suite no longer has (blank text, the exercise's lesson)."""
    from autograder.checks import unwritten
    from autograder.checks.suites.pack import MISCONCEPTIONS
    from autograder.cohort import misconceptions

    def said(key):
        return misconceptions.from_suite(PACK.name, key)

    assert said("strict-less-than") == {"key": "strict-less-than", "example": "",
                                        "text": MISCONCEPTIONS["strict-less-than"].text,
                                        "lesson": "02-priority-then-greedy"}
    assert said("not-written")["text"] == unwritten.sentence("pack")
    assert said("nondeterministic")["text"].startswith("your function gave different answers")
    assert said("gone") == {"key": "gone", "text": "", "lesson": PACK.lesson, "example": ""}


def test_an_example_call_with_nothing_in_it_is_a_poor_warm_up():
    """`pack([], 0)` shows nothing: the smallest call with something in every argument wins."""
    assert misconceptions.degenerate("pack([], 0)")
    assert misconceptions.degenerate("pack([{'id': 'a', 'tokens': 5}], 0)")
    assert misconceptions.degenerate("report([], budget=3)")
    assert not misconceptions.degenerate("pack([{'id': 'a', 'tokens': 0}], 3)")
    assert not misconceptions.degenerate("fit([...], 3")  # cut: judged by length alone
    entries = [{"key": "k", "text": "t", "lesson": "l", "example": call}
               for call in ("pack([], 0)", "pack([{'id': 'a', 'tokens': 5}], 3)",
                            "pack([{'id': 'a', 'tokens': 5}], 0)")]
    assert misconceptions.tally([entries])["k"]["example"] == \
        "pack([{'id': 'a', 'tokens': 5}], 3)"


def test_a_submission_counts_under_the_idea_most_of_its_checks_name():
    """A learner holds one idea: the few checks where their mistake looks like another do not
    count them under it too; a tie counts under each, and crashes and the like always count."""
    from autograder.checks.ideas import TIMEOUT, leading

    assert leading({"splits-part": 9, "strict-less-than": 2, "not-greedy": 1}) == {"splits-part"}
    assert leading({"a": 2, "b": 2, "c": 1}) == {"a", "b"}
    assert leading({"crash": 1, "a": 3, "b": 1}) == {"crash", "a"}
    assert leading({TIMEOUT: 4}) == {TIMEOUT}
    assert leading({}) == set()
