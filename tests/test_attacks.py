"""The attack gallery: every cheating or careless submission is graded in one class run, next to two
honest students, and each gets exactly the score and the explanation it deserves — with nothing of
the hidden tests, nothing forged and no process of its own left behind.

The class is graded twice: by the user running the tests (root in CI), in this process, and by an
ordinary user the tests create, through the `packlab grade` command as an instructor would run it
(see tests/as_user.py). Both must give the same verdicts."""

from __future__ import annotations

import copy
import csv
import html
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from as_user import folder, give, leftover_processes, run_as_user
from conftest import COURSE, submit, with_answer
from test_escaping import formula_cells

from autograder import names, outfolder, worker
from autograder.checks import gallery
from autograder.cohort import record
from autograder.cohort.classroom import grade_class
from autograder.escape import for_csv
from autograder.run import footprint, isolation
from autograder.run.handed_in import NOTEBOOK_BYTES
from autograder.run.isolation import Limits
from autograder.term import bundle, lms
from packlab.manifest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ordinary-user")]

ATTACKS = Path(__file__).resolve().parents[1] / "autograder" / "checks" / "attacks"
# The memory bomb's children take 1 GiB while its cells run, before the bound ends them: on a
# fresh virtual machine 1 GiB took 0.7 s quiet, and a whole suite's run timed the bomb out at 5 s.
LIMITS = Limits(call_seconds=1, setup_seconds=10, submission_seconds=30)
LIMIT_OPTIONS = ["--call-seconds", "1", "--setup-seconds", "10", "--submission-seconds", "30",
                 "--jobs", "2"]
TOTAL, PACK = COURSE.exercise("01"), COURSE.exercise("02")
# What reads_hidden_tests and edits_… target:
SUITE = ROOT / "autograder" / "checks" / "hidden" / "pack.py"
SUITE_LINES = (  # distinctive lines of the hidden tests of `pack`: none may reach a learner
    'MIDDLE_MISS = (parts_of({"sys": 40, "doc": 90, "turn": 30}), 80)',
    "lambda tokens: parts_of(dict(zip(NAMES, tokens, strict=False)))),",
    'case("a huge first part is skipped and the small ones after it are taken",',
    "PACK.holds(FITS_AT_ITS_TURN, examples, fits_at_its_turn),",
)
FORGED = ("FORGED", "All 25 tests passed", "Score: 5/5", "<h1>Score: 5 / 5")
INTERFERED = "your code interfered with the grader"
NOT_THERE = "FileNotFoundError"
NO_FUNCTION = "there is no function called `pack`"
DIED = "the Python process running it died"
NOT_PLAIN = "not plain Python data"
NOT_A_LIST = "pack returns a list of id strings"
TIMEOUT = "did not return within"


@dataclass
class Case:
    """One submission and what grading it must give."""

    student: str
    exercise: object
    notebook: object  # a notebook, or text for a file that is not one
    score: int | None = 0  # None: not graded
    says: tuple[str, ...] = ()  # in feedback.html (after unescaping)
    reason: str = ""  # in grades.csv's reason, when not graded
    build: Callable[[Path], None] | None = None  # lays its files out in SUBMITTED, after the rest
    never: tuple[str, ...] = ()  # in none of its row, feedback.html and results.json


def header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(": ")
        fields[key] = value
    return fields


def attack_code(path: Path, submitted: Path, out: Path) -> str:
    return (path.read_text().replace("{root}", str(ROOT)).replace("{out}", str(out))
            .replace("{submitted}", str(submitted)))


def answer_of(exercise) -> str:
    """The reference answer (from the nbgrader source notebook)."""
    source = nbformat.read(exercise.source, as_version=4)
    answer_id = exercise.grade_id("answer")
    return next(c.source for c in source.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id)


def released_with(exercise, code: str) -> nbformat.NotebookNode:
    """The released notebook, as a learner would hand it in, with ``code`` in the answer cell."""
    return with_answer(exercise, code)


def cell_index(notebook, grade_id: str) -> int:
    return next(i for i, c in enumerate(notebook.cells)
                if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


# What each gallery attack's feedback must say. Each scores 0, or the points its `# score:` says.
GALLERY_SAYS = {
    "infinite_loop": (TIMEOUT, "(0.25 s of CPU time, 1 second in all) while calling pack",
                      "not called: earlier in this group"),
    "catches_the_cpu_timer": (TIMEOUT, "(0.25 s of CPU time, 1 second in all) while calling pack",
                              "not called: earlier in this group"),
    "long_sleep": (TIMEOUT, "10 seconds while running your notebook's cells"),
    "sys_exit_at_import": (NO_FUNCTION, "(`# attack: sys.exit(0) before anything else, hoping "
                           "no test r…`) raised SystemExit: 0"),
    "sys_exit_at_call": ("it raised SystemExit: 0",),
    "os_exit_at_import": (DIED, "exited with code 0"),
    "os_exit_at_call": (DIED, "exited with code 0", "not called: earlier in this group"),
    "segfault": (DIED, "SIGSEGV, a segmentation fault"),
    "keyboard_interrupt": ("it raised KeyboardInterrupt",),
    "system_exit_at_call": ("it raised SystemExit",),
    "memory_hog": ("it raised MemoryError",),
    "fork_spray": ("Came back", "[]"),
    "output_flood": ("File too large",),
    "fake_success_output": ("Score: 0 / 5", "Came back"),
    "forged_results": ("Score: 0 / 5", "Came back"),
    "always_equal_list": (NOT_PLAIN, "__main__.Anything"),
    "always_equal_str": (NOT_PLAIN, "__main__.Anything"),
    "always_equal_int": (NOT_PLAIN, "__main__.Anything"),
    "always_equal_object": (NOT_PLAIN, "__main__.Anything"),
    "reads_hidden_tests": (NOT_THERE,),
    "edits_hidden_tests": (NOT_THERE,),
    "copies_a_classmate": (NO_FUNCTION, NOT_THERE),
    "kills_the_grader": ("Came back", "[]"),
    "kills_every_process": ("Came back", "[]"),
    "daemon_rewrites_results": ("Came back", "[]"),
    "imports_the_reference": (NO_FUNCTION, "ModuleNotFoundError"),
    "reads_classmates_feedback": (NO_FUNCTION, NOT_THERE),
    "forges_a_nested_reply": (INTERFERED, "a reply that is not JSON"),
    "forges_a_reply_without_keys": (INTERFERED, "missing or extra parts"),
    "forges_huge_problems": (INTERFERED, "not the worker's"),
    "forges_a_markup_reply": ("[/][bold green]All checks passed[/] <h1>Everything passed</h1>",),
    "fills_the_disk": ("Came back", "[]"),
    "patches_the_grader": ("['sys', 'small']",),
    "input_at_call": ("it raised EOFError",),
    "renamed_function": (NO_FUNCTION,),
    "returns_none": (NOT_A_LIST, "<dd><code>None</code></dd>"),
    "returns_generator": (NOT_PLAIN, "generator"),
    "returns_set": (NOT_PLAIN, "builtins.set"),
    "returns_dict": (NOT_A_LIST,),
    "shrinks_the_request_pipe": (INTERFERED, "stopped reading the grader's calls"),
    "closes_the_reply_pipe": (INTERFERED, "closed its pipe to the grader"),
    "formulas_in_its_error": ("raised ValueError: oops;=HYPERLINK(", NO_FUNCTION),
    "lies_once": ("did not answer the same way twice",),
    "memory_bomb_children": (DIED, "it used more than 1024 MiB of memory across its processes"),
    "hoards_memfds": ("it raised PermissionError",),
    "hoards_system_v_memory": ("it raised PermissionError",),
    "reads_the_machine": ("raised RuntimeError: ", "it raised RuntimeError: "),
    # its memory is measured in tests/test_memory_bound.py
    "returns_8_mb_answers": ("total_tokens returns a whole number, an int",
                             "['xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx']"),
}
# Nothing of the machine that grades may reach a student: the sandbox's command line, the
# interpreter's folder, the staging folder, the worker's source (its start, too).
HOST_DETAILS = ("bwrap", "--unshare", "--ro-bind", "--uid", "--seccomp", isolation.STAGE,
                "def _run_cells(", Path(worker.__file__).read_text()[3:40],
                *isolation.host_paths())


def gallery_cases(submitted: Path, out: Path) -> list[Case]:
    cases = []
    for path in sorted(ATTACKS.glob("*.py")):
        fields = header(path)
        assert {"attack", "defence"} <= fields.keys(), f"{path.name}: header incomplete"
        exercise = COURSE.exercise(fields.get("exercise", PACK.name))
        code = attack_code(path, submitted, out)
        cases.append(Case(path.stem, exercise, released_with(exercise, code),
                          int(fields.get("score", 0)), GALLERY_SAYS[path.stem]))
    return cases


def notebook_cases() -> list[Case]:
    """Cases that need a whole notebook rather than an answer cell."""
    right = answer_of(PACK)
    broken = gallery.load("pack/break_at_first_miss").code

    edited = released_with(PACK, right)
    edited.cells[cell_index(edited, "pack-visible")].source = 'print("All 25 tests passed")'
    edited.cells[cell_index(edited, "pack-edge-cases")].source = "assert True"

    edited_wrong = released_with(PACK, broken)
    edited_wrong.cells[cell_index(edited_wrong, "pack-visible")].source = "pass"
    edited_wrong.cells[cell_index(edited_wrong, "pack-properties")].source = "pass"

    deleted = released_with(PACK, right)
    deleted.cells = [c for c in deleted.cells
                     if not c.metadata.get("nbgrader", {}).get("grade", False)]

    duplicated = released_with(PACK, right)
    for grade_id, at_end in (("pack-visible", False), ("pack-properties", True)):
        index = cell_index(duplicated, grade_id)
        twin = copy.deepcopy(duplicated.cells[index])
        twin.id = f"twin-{grade_id}"  # a copied cell gets a new id; its nbgrader grade_id stays
        duplicated.cells.insert(len(duplicated.cells) if at_end else index, twin)

    retyped = copy.deepcopy(deleted)  # the test cells deleted, then typed in again, rigged
    own_test = nbformat.v4.new_code_cell('assert pack([], 0) == []\nprint("Score: 5/5")')
    own_test.metadata["nbgrader"] = {"grade": True, "grade_id": "pack-bonus", "points": 100,
                                     "locked": True, "solution": False, "schema_version": 3}
    retyped.cells.append(own_test)
    retyped.cells.append(nbformat.v4.new_code_cell(
        "# Visible tests\nfrom packlab.course.check import run_tests\n\n"
        'run_tests("02-greedy-pack", pack, "visible")'))

    answer_deleted = released_with(PACK, right)
    del answer_deleted.cells[cell_index(answer_deleted, "pack-answer")]

    with_input = released_with(PACK, right)
    with_input.cells.insert(cell_index(with_input, "pack-answer") + 1,
                            nbformat.v4.new_code_cell('name = input("Your name? ")'))

    empty = nbformat.v4.new_notebook()
    untampered = released_with(PACK, broken)
    syntax_error = released_with(PACK, "def pack(parts, budget)\n    return []\n")
    restored = "the original was used"
    return [
        Case("invalid_json", PACK, '{"cells": [ this is not JSON', None,
             reason="could not be read: it is not valid notebook JSON"),
        Case("empty_notebook", PACK, empty, None, reason="the notebook is empty"),
        Case("answer_deleted", PACK, answer_deleted, 0, (NO_FUNCTION,)),
        Case("syntax_error", PACK, syntax_error, 0,
             ("has a syntax error on line 1", NO_FUNCTION)),
        Case("tests_edited", PACK, edited, PACK.max_score,
             ("`pack-visible` had been edited", "`pack-edge-cases` had been edited", restored)),
        Case("tests_deleted", PACK, deleted, PACK.max_score,
             ("`pack-visible` was missing", "`pack-properties` was missing", restored)),
        Case("tests_duplicated", PACK, duplicated, PACK.max_score,
             ("`pack-visible` appeared 2 times", "`pack-properties` appeared 2 times", restored)),
        Case("tests_retyped", PACK, retyped, PACK.max_score,
             ("`pack-visible` was missing", restored)),
        # Editing the tests of a wrong answer gets exactly the untampered answer's score.
        Case("tests_edited_wrong", PACK, edited_wrong, 0,
             ("`pack-visible` had been edited", "no `break`")),
        Case("break_untampered", PACK, untampered, 0, ("no `break`",)),
        Case("input_cell", PACK, with_input, PACK.max_score, ("raised EOFError",)),
        *file_cases(),
        *name_cases(),
        Case("honest", PACK, with_answer(PACK, None), PACK.max_score),
        Case("honest", TOTAL, with_answer(TOTAL, None), TOTAL.max_score),
    ]


LINKED = "is a link to another folder, and links are never followed"
SECRET = SUITE.read_text()[:30]  # what nbformat's error quoted of a linked file


def in_place(student: str, make: Callable[[Path], None]) -> Callable[[Path], None]:
    """A `Case.build` that makes SUBMITTED/<student>/02-greedy-pack/ and calls ``make`` on it."""
    def build(submitted: Path) -> None:
        folder = submitted / student / PACK.name
        folder.mkdir(parents=True, exist_ok=True)
        make(folder)
    return build


def classmates(folder: Path) -> Path:
    return folder.parents[1] / "honest" / PACK.name


def file_cases() -> list[Case]:
    """Submissions that are not a notebook file: links, FIFOs, a file too large, a notebook
    whose cell's source is a number."""
    notebook = f"{PACK.name}.ipynb"
    huge = with_answer(PACK, None)
    huge.cells.append(nbformat.v4.new_markdown_cell("x" * NOTEBOOK_BYTES))
    numbered = json.loads(nbformat.writes(with_answer(PACK, None)))
    numbered["cells"][cell_index(with_answer(PACK, None), "pack-answer")]["source"] = 5
    return [
        Case("links_a_classmate", PACK, None, None, reason=f"the student's folder {LINKED}",
             build=lambda submitted: (submitted / "links_a_classmate").symlink_to("honest")),
        Case("links_an_assignment", PACK, None, None, reason=f"the assignment's folder {LINKED}",
             build=in_place("links_an_assignment", lambda folder: (
                 folder.rmdir(), folder.symlink_to(classmates(folder))))),
        Case("links_a_notebook", PACK, None, None, reason=f"{notebook} is a symbolic link",
             build=in_place("links_a_notebook", lambda folder: (
                 folder / notebook).symlink_to(classmates(folder) / notebook))),
        Case("links_a_secret", PACK, None, None, reason=f"{notebook} is a symbolic link",
             build=in_place("links_a_secret", lambda folder: (
                 folder / notebook).symlink_to(SUITE)), never=(SECRET,)),
        Case("fifo_notebook", PACK, None, None, reason=f"{notebook} is a FIFO",
             build=in_place("fifo_notebook", lambda folder: os.mkfifo(folder / notebook))),
        Case("fifo_timestamp", PACK, with_answer(PACK, None), PACK.max_score,
             build=in_place("fifo_timestamp", lambda folder: os.mkfifo(folder / "timestamp.txt"))),
        Case("huge_notebook", PACK, huge, None, reason="the notebook is larger than 16 MB"),
        Case("number_as_source", PACK, json.dumps(numbered), None,
             reason="the notebook is not a valid notebook: cell"),
        Case("sparse_notebook", PACK, None, None, reason="the notebook is larger than 16 MB "
             "(4,096 MB): clear its outputs", build=in_place("sparse_notebook", sparse)),
    ]


SPARSE_BYTES = 4 << 30  # a notebook of 4 GiB that takes no room on the disk (truncate)
UNDECODABLE = os.fsdecode(b"bad\xff")  # a folder name from a cp1252 zip
LOOK_ALIKE = "honest\u00a0"  # the honest classmate's name and a no-break space
FAKE_ASSIGNMENT = PACK.name + "\u00a0"  # 02-greedy-pack and a no-break space
CYRILLIC_COCO, MIXED_COCO = "\u0441\u043e\u0441\u043e", "\u0441oco"  # сосо, all Cyrillic; сoco
STRAY_FOLDERS = 300


def sparse(folder: Path) -> None:
    """A notebook of `SPARSE_BYTES` that holds nothing (made as `truncate -s 4G` does)."""
    with (folder / f"{PACK.name}.ipynb").open("wb") as handle:
        handle.truncate(SPARSE_BYTES)


def undecodable(submitted: Path) -> None:
    """SUBMITTED/bad\\xff/02-greedy-pack/02-greedy-pack.ipynb, a wrong answer."""
    folder = os.path.join(os.fsencode(submitted), b"bad\xff", os.fsencode(PACK.name))
    os.makedirs(folder)
    nbformat.write(with_answer(PACK, "def pack(parts, budget):\n    return []\n"),
                   os.fsdecode(os.path.join(folder, os.fsencode(f"{PACK.name}.ipynb"))))


def fake_assignment(submitted: Path) -> None:
    """A second, empty-answered 02-greedy-pack whose name ends in a no-break space."""
    submit(submitted, "fake_assignment", PACK, with_answer(PACK, "def pack(parts, budget):\n"
                                                                 "    return []\n"))
    (submitted / "fake_assignment" / PACK.name).rename(
        submitted / "fake_assignment" / FAKE_ASSIGNMENT)
    submit(submitted, "fake_assignment", PACK, with_answer(PACK, None))


def stray_folders(submitted: Path) -> None:
    for number in range(STRAY_FOLDERS):
        (submitted / "many_folders" / f"folder{number:03}").mkdir(parents=True)


def name_cases() -> list[Case]:
    """Folder names that could pass for others, a stray assignment, stray folders and a
    student id that is a spreadsheet formula: each gets what it deserves, and no classmate
    loses anything."""
    right = with_answer(PACK, None)
    wrong = with_answer(PACK, "def pack(parts, budget):\n    return []\n")
    return [
        Case(LOOK_ALIKE, PACK, wrong, None, reason="its name has characters that cannot be "
             "seen (U+00A0 NO-BREAK SPACE); rename it"),
        Case(UNDECODABLE, PACK, None, None, reason="its name is not UTF-8 (its byte 0xFF",
             build=undecodable),
        Case("fake_assignment", PACK, None, PACK.max_score, build=fake_assignment),
        Case("many_folders", PACK, right, PACK.max_score, build=stray_folders),
        Case("semi;=1+1;x", PACK, right, PACK.max_score),
        # Issue 37: look-alikes of a classmate, all-Cyrillic and mixed: reported, never merged.
        Case("coco", PACK, right, PACK.max_score),
        Case(CYRILLIC_COCO, PACK, wrong, 0),
        Case(MIXED_COCO, PACK, right, None, reason="its name mixes Cyrillic and Latin letters"),
        Case("formula_notebook_name", PACK, None, None, reason="no notebook called "
             f"{PACK.name}.ipynb (found =HYPERLINK(1).ipynb, x;",  # then '=cmd| in grades.csv
             build=in_place("formula_notebook_name", lambda folder: [
                 nbformat.write(right, folder / name)
                 for name in ("x;=cmd|' -C calc'!A0.ipynb", "=HYPERLINK(1).ipynb")])),
    ]


def grade_as_ordinary_user(submitted: Path, out: Path) -> list[dict]:
    """`packlab grade` run by an ordinary user; the rows of the grades.csv it wrote."""
    done = run_as_user("from packlab.course.cli import main; raise SystemExit(main())", "grade",
                       str(submitted), "--out", str(out), *LIMIT_OPTIONS)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said[-3000:]  # 1: two notebooks could not be graded
    assert "Traceback" not in said and "MarkupError" not in said, said[-3000:]
    # No memory cgroup for an ordinary user: the weaker bound is said before grading.
    assert "together may hold 1024 MiB of memory, kept by a watchdog" in " ".join(said.split())
    assert "bounded by a watchdog" in (out / "summary.md").read_text()
    with (out / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"], row["max_score"] = int(row["score"]), int(row["max_score"])
    return rows


@pytest.fixture(scope="module", params=["invoking user", "ordinary user"])
def graded(request):
    """Grade every case in one class run; keep the rows, the pages and the results files."""
    base = folder()
    submitted, out = base / "submitted", base / "out"
    cases = gallery_cases(submitted, out) + notebook_cases()
    for case in cases:
        if case.notebook is not None:
            submit(submitted, case.student, case.exercise, case.notebook)
    for case in cases:
        if case.build is not None:
            case.build(submitted)
    try:
        if request.param == "ordinary user":
            give(base)
            rows = grade_as_ordinary_user(submitted, out)
        else:  # the rows with their names as grades.csv writes them, as the user's are
            rows = [{**row, "student": for_csv(row["student"]),
                     "assignment": for_csv(row["assignment"])}
                    for row in grade_class(submitted, out, jobs=2, limits=LIMITS)]
        time.sleep(1.5)  # time enough for a surviving daemon to forge something
        yield cases, rows, out, leftover_processes()
    finally:
        shutil.rmtree(base, ignore_errors=True)


CASE_NAMES = [c.student for c in notebook_cases() if c.student != "honest"]
GALLERY_NAMES = sorted(p.stem for p in ATTACKS.glob("*.py"))


def row_of(graded, case: Case) -> dict:
    """The case's row, its names as grades.csv writes them."""
    _, rows, _, _ = graded
    return next(r for r in rows if (r["student"], r["assignment"]) ==
                (for_csv(case.student), case.exercise.name))


def case_named(graded, name: str) -> Case:
    return next(c for c in graded[0] if c.student == name)


def words_of(page: str) -> str:
    """A feedback page's words, without its markup and style (for a failure's message)."""
    body = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())[:1500]


def check(graded, case: Case) -> None:
    _, rows, out, _ = graded
    row = row_of(graded, case)
    files = outfolder.submission_folder(out, case.student, case.exercise.name)
    page_text, results_text = (files / "feedback.html").read_text(), \
        (files / "results.json").read_text()
    assert len(page_text) < 200_000 and len(results_text) < 200_000
    page = html.unescape(page_text)
    # The page shows the messages' `code` spans as <code>: read them back as the message wrote them.
    coded = html.unescape(re.sub(r"</?code>", "`", page_text))
    results = json.loads(results_text)
    if case.score is None:
        assert row["status"] == "not graded" and case.reason in row["reason"], row
        assert "Traceback" not in row["reason"]
    else:
        assert row["status"] == "graded", row
        assert (row["score"], row["max_score"]) == (case.score, case.exercise.max_score), row
        assert results["score"] == case.score
    for phrase in case.says:
        assert phrase in page or phrase in coded, \
            f"{case.student}: {phrase!r} not in its feedback, which says: {words_of(page)}"
    assert "Traceback" not in page and "Traceback" not in results_text
    for text in case.never + HOST_DETAILS:
        for told in (page, results_text, row["reason"]):
            assert text not in told, f"{case.student}: {text!r} reached the student"
    for line in SUITE_LINES:
        assert line not in page and line not in results_text, f"{case.student} leaked {line}"
    printed = re.sub(r"<h2>What your code printed.*?</pre>", "", page_text, flags=re.DOTALL)
    for text in FORGED:  # forged text only ever inside the quoted, escaped printed output
        assert text not in results_text and text not in html.unescape(printed), case.student
    assert "<h1>Score" not in page_text  # printed markup never becomes the page's own
    assert "<h1>Everything" not in page_text


def test_every_submission_has_a_row_and_honest_students_get_full_marks(graded):
    cases, rows, out, _ = graded
    students = {for_csv(c.student) for c in cases}
    refused = {for_csv(c.student) for c in cases if names.problem(c.student)}
    # every student × both assignments of the course; a student's folders that are not
    # assignments of the course are one row of theirs
    assert len(rows) == 2 * len(students) + len(["fake_assignment", "many_folders"])
    for case in cases:
        row_of(graded, case)
    assert {(r["student"], r["assignment"]) for r in rows if r["reason"] == "no submission"} == \
        {(s, a.name) for s in students - {"honest", "links_a_classmate"} - refused
         for a in (TOTAL, PACK)} - {(for_csv(c.student), c.exercise.name) for c in cases}
    linked = [r for r in rows if r["student"] == "links_a_classmate"]
    assert len(linked) == 2 and all(LINKED in r["reason"] for r in linked)
    for case in cases:
        if case.student == "honest":
            check(graded, case)


@pytest.mark.parametrize("name", GALLERY_NAMES)
def test_gallery_attack_fails_with_its_reason(graded, name):
    check(graded, case_named(graded, name))


@pytest.mark.parametrize("name", CASE_NAMES)
def test_notebook_attack_gets_the_fair_grade(graded, name):
    check(graded, case_named(graded, name))


def test_a_memory_bomb_s_row_says_why(graded):
    row = row_of(graded, case_named(graded, "memory_bomb_children"))
    assert "used more than 1024 MiB of memory across its processes" in row["reason"], row


def test_no_sandbox_process_outlives_grading(graded):
    assert graded[3] == []


def test_no_memory_cgroup_outlives_its_grading_process(graded):
    own = footprint._own_cgroup()
    if own is None:
        pytest.skip("no memory cgroups here: the watchdog bounds memory")
    stale = [folder.name for folder in own.glob(f"{footprint.PREFIX}*-*")
             if not Path(f"/proc/{folder.name.removeprefix(footprint.PREFIX).split('-')[0]}")
             .exists()]
    assert stale == []


def test_nothing_forged_survives(graded):
    _, _, out, _ = graded
    assert "FORGED" not in (out / "grades.csv").read_text()
    for results in out.rglob("results.json"):
        assert "FORGED" not in results.read_text()
    assert not list(out.rglob("forged.txt"))  # the output folder is not in the sandbox at all


def test_nothing_written_in_a_sandbox_is_left_on_the_machine(graded):
    for place in (Path("/tmp"), Path("/dev/shm")):
        assert not list(place.glob("packlab-fill-*"))


def test_the_hidden_suite_is_untouched(graded):
    assert SUITE.read_text().count("GROUPS = (") == 1
    for line in SUITE_LINES:  # else "no suite line leaked" would pass whatever leaked
        assert line in SUITE.read_text(), f"SUITE_LINES is out of date: {line!r}"


def test_no_csv_cell_starts_a_formula_in_any_locale(graded):
    """Not in the reason that formulas_in_its_error wrote, nor in any student id, with ``,``,
    ``;`` or a tab as the spreadsheet's separator."""
    _, rows, out, _ = graded
    for name in ("grades.csv", "misconceptions.csv"):
        assert formula_cells((out / name).read_text(encoding="utf-8")) == [], name
    with (out / "grades.csv").open(newline="", encoding="utf-8") as handle:
        written = {(r["student"], r["assignment"]): r for r in csv.DictReader(handle)}
    reason = written["formulas_in_its_error", PACK.name]["reason"]
    assert ";'=HYPERLINK(" in reason and "\\t=cmd|" in reason, reason  # what got there
    assert for_csv("semi;=1+1;x") == "semi;'=1+1;x" in {r["student"] for r in rows}


def test_names_that_pass_for_others_are_refused_and_take_nothing(graded, tmp_path):
    """honest + a no-break space, bad\\xff and 02-greedy-pack + a no-break space are each
    refused with the reason, on their own rows; the Canvas file and the bundles still give
    honest its full marks, and the class has no row for the fake assignment."""
    cases, rows, out, _ = graded
    fake = [r for r in rows if r["assignment"] == for_csv(FAKE_ASSIGNMENT)]
    assert [r["student"] for r in fake] == ["fake_assignment"], fake
    assert "is not an assignment of this course (its name has characters that cannot be " \
        "seen (U+00A0 NO-BREAK SPACE))" in fake[0]["reason"]
    many = [r for r in rows if r["student"] == "many_folders"]
    assert len(many) == 3 and "and 289 more folders" in many[-1]["reason"], many
    assert len(list((out / outfolder.STUDENTS / "many_folders").iterdir())) == 3
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nhonest,Hon Est,h@uni.example\n"
                      "semi;=1+1;x,Semi Colon,s@uni.example\n", encoding="utf-8")
    canvas = lms.export(out, roster, "canvas")
    header, _, *students = list(csv.reader(canvas.text.splitlines()))
    by_name = {row[0]: dict(zip(header, row, strict=True)) for row in students}
    assert by_name["Hon Est"][PACK.name] == str(PACK.max_score)
    assert by_name["Hon Est"][TOTAL.name] == str(TOTAL.max_score)
    assert by_name["Semi Colon"][PACK.name] == str(PACK.max_score)
    assert any(line.startswith(for_csv(LOOK_ALIKE) + " is not on the roster")
               for line in canvas.lost), canvas.lost
    assert formula_cells(canvas.text) == []
    bundles = bundle.bundle(out, tmp_path / "bundles")
    index = (tmp_path / "bundles" / "honest" / "index.html").read_text(encoding="utf-8")
    assert f"<td>{PACK.max_score} / {PACK.max_score}</td>" in index
    made = {path.name for path in bundles.written}
    assert LOOK_ALIKE not in made and UNDECODABLE not in made and "honest" in made
    assert any(line.startswith(f"{LOOK_ALIKE}: no bundle (its name has characters that "
                               "cannot be seen") for line in bundles.problems)


def test_names_that_look_alike_are_reported_and_kept_apart(graded):
    """coco, an all-Cyrillic сосо and a mixed сoco: each keeps its own row (the mixed one
    refused for its name), and the class's summary names all three together."""
    cases, rows, out, _ = graded
    scores = {r["student"]: r["score"] for r in rows if r["assignment"] == PACK.name}
    assert (scores["coco"], scores[CYRILLIC_COCO], scores[MIXED_COCO]) == (PACK.max_score, 0, 0)
    said = " ".join((out / "summary.md").read_text(encoding="utf-8").split())
    assert f"look alike (each kept apart with their own rows; nothing was merged or renamed: " \
        f"check they are different people): coco (Latin) and {MIXED_COCO} (Cyrillic and " \
        f"Latin) and {CYRILLIC_COCO} (Cyrillic)" in said, said
    assert "honest (Latin)" not in said


def test_a_huge_notebook_is_refused_by_its_size_unread(graded):
    """The 4 GiB sparse notebook is refused from its size: the record holds no hash of it."""
    _, _, out, _ = graded
    kept = record.read(out, "sparse_notebook", PACK.name)
    assert kept is not None and kept.notebook is None
    assert "larger than 16 MB (4,096 MB)" in kept.result.error
