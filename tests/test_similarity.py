"""`packlab similarity`: answers that are alike, found by copydetect, for a person to judge."""

from __future__ import annotations

import base64
import csv
import io
import zlib

import nbformat
import pytest
from conftest import COURSE, submit, with_answer

from autograder.cohort import similarity
from packlab.course.cli import main
from packlab.manifest import ROOT

# The module's fixtures are built once only if its tests share one xdist worker.
pytestmark = pytest.mark.xdist_group("similarity")

PACK = COURSE.exercise("02-greedy-pack")

ALICE = '''def _fits(used, part, budget):
    """Does this part still fit?"""
    return used + part["tokens"] <= budget


def _take(kept, part):
    kept.append(part["id"])
    return part["tokens"]


def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    spent, kept = 0, []
    index = 0
    while index < len(parts):
        current = parts[index]
        if _fits(spent, current, budget):
            spent = spent + _take(kept, current)
        index = index + 1
    return kept
'''

# Alice's answer with every name changed, other comments, and the helpers the other way round.
BOB = '''def _grab(chosen, item):
    # remember the id, report the cost
    chosen.append(item["id"])
    return item["tokens"]


def _ok(total, item, limit):
    """Is there room left?"""
    return total + item["tokens"] <= limit


def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    # walk through every part once
    total, chosen = 0, []
    i = 0
    while i < len(parts):
        item = parts[i]
        if _ok(total, item, budget):
            total = total + _grab(chosen, item)
        i = i + 1
    return chosen
'''

# Alice's answer padded (issue 37): a `pass` after every statement, bare constants, code after
# `return`, and a helper moved below the function that uses it.
HANK = '''def _fits(used, part, budget):
    pass
    return used + part["tokens"] <= budget
    pass


def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    spent, kept = 0, []
    pass
    index = 0
    pass
    while index < len(parts):
        current = parts[index]
        pass
        if _fits(spent, current, budget):
            spent = spent + _take(kept, current)
            pass
        index = index + 1
        pass
        0
    return kept
    print("done")


def _take(kept, part):
    kept.append(part["id"])
    pass
    return part["tokens"]
    pass
'''

# A correct answer written another way.
DAVE = '''def pack(parts, budget):
    """Greedy: keep each part that still fits."""
    room = budget
    result = []
    for p in parts:
        cost = p["tokens"]
        if cost > room:
            continue
        result.append(p["id"])
        room -= cost
    return result
'''

# The lesson's loop, as a learner who followed it writes it: the reference with other names.
GINA = '''def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    # a running total
    total = 0
    ids = []
    for p in parts:
        if total + p["tokens"] <= budget:
            ids.append(p["id"])
            total += p["tokens"]
    return ids
'''

# A folder name: anything but a slash (and what `autograder.names` refuses: a line break...).
HOSTILE = '=HYPERLINK("x")[red] <script>alert(1)'
SCRIPT = "</pre><script>alert(2)</script>"
HOSTILE_CODE = ALICE.replace('"""Does this part still fit?"""', f'"{SCRIPT}"  # {SCRIPT}')


def _reference() -> str:
    notebook = nbformat.read(PACK.source, as_version=4)
    return next(cell.source for cell in notebook.cells
                if cell.metadata.get("nbgrader", {}).get("solution"))


@pytest.fixture(scope="module")
def submitted(tmp_path_factory):
    root = tmp_path_factory.mktemp("submitted")
    answers = {"alice": ALICE, "bob": BOB, "carol": _reference(), "dave": DAVE, "gina": GINA,
               "hank": HANK, HOSTILE: HOSTILE_CODE, "erin": None, "frank": None}
    for student, code in answers.items():
        notebook = (nbformat.read(PACK.release, as_version=4) if code is None
                    else with_answer(PACK, code))
        submit(root, student, PACK, notebook)
    submit(root, "broken", PACK, '{"cells": [')  # not a notebook
    return root


@pytest.fixture(scope="module")
def found(submitted):
    (entry,) = similarity.find(submitted)
    return entry


def _pairs(entry) -> dict[frozenset, similarity.Pair]:
    return {frozenset((p.a.student, p.b.student)): p for p in entry.pairs}


def test_a_copy_with_names_changed_and_helpers_moved_is_flagged(found):
    pair = _pairs(found)[frozenset(("alice", "bob"))]
    assert min(pair.similarity_a, pair.similarity_b) >= similarity.THRESHOLD
    assert pair.shared > 0
    assert found.pairs[0].similarity >= found.pairs[-1].similarity  # most similar first


def test_a_copy_padded_with_statements_that_do_nothing_is_flagged(found):
    """Issue 37: `pass` after every statement, bare constants, unreachable code and a helper
    moved hid a copy; read for what it does, it is Alice's answer."""
    pair = _pairs(found)[frozenset(("alice", "hank"))]
    assert min(pair.similarity_a, pair.similarity_b) == 1.0, pair
    assert pair.shared > 0


def test_honest_different_answers_are_not_flagged(found):
    flagged = set(_pairs(found))
    for one, other in [("carol", "dave"), ("alice", "dave"), ("alice", "carol"),
                       ("dave", "gina"), ("bob", "dave"), ("hank", "dave"), ("hank", "gina"),
                       ("hank", "carol")]:
        assert frozenset((one, other)) not in flagged, (one, other)


def test_the_course_s_own_answer_is_not_evidence(found):
    """The lesson's loop, written by two learners, is the reference (names set aside): no copy."""
    assert frozenset(("carol", "gina")) not in _pairs(found)
    said = {k.student: k.what for k in found.known}
    assert said["carol"] == said["gina"] == similarity.REFERENCE


def test_untouched_starters_are_not_alike(found):
    assert frozenset(("erin", "frank")) not in _pairs(found)
    said = {k.student: k.what for k in found.known}
    assert said["erin"] == said["frank"] == similarity.STARTER


def test_a_broken_notebook_is_listed_and_the_rest_compared(found):
    why = dict(found.not_compared)
    assert "could not be read" in why["broken"]
    assert found.compared == 5  # alice, bob, dave, hank and the hostile name
    assert frozenset(("alice", HOSTILE)) in _pairs(found)


@pytest.fixture(scope="module")
def written(submitted, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    grades = b"student,assignment,score,max_score\nalice,02-greedy-pack,5,5\n"
    (out / "grades.csv").write_bytes(grades)
    with pytest.MonkeyPatch.context() as patch:
        printed = io.StringIO()
        patch.setattr("sys.stdout", printed)
        code = main(["similarity", str(submitted), "--out", str(out), "--max-pairs", "1"])
    return out, code, printed.getvalue(), grades


def test_the_command_writes_both_reports_and_leaves_grades_alone(written):
    out, code, printed, grades = written
    assert code == 0
    assert (out / "grades.csv").read_bytes() == grades
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert "share" in page and "<mark>" in page and "side by side" in page
    assert page.count("Cluster ") == 1  # alice, bob, hank and HOSTILE: one cluster, listed once
    assert "Not compared" in page and "broken" in page
    assert "02-greedy-pack: 5 compared, 1 cluster to look at" in printed
    assert len((out / "similarity.csv").read_text().splitlines()) == 2  # --max-pairs 1
    assert "similarity.csv lists the 1 most alike pairs; 5 more were found" in page


def test_hostile_names_and_code_are_escaped(written, submitted, tmp_path, capsys):
    out = written[0]
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert "<script>" not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)" in page or "alert(2)" not in page
    # the hostile pair itself: shown side by side once --max-pairs lets it in
    second = tmp_path / "all"
    assert main(["similarity", str(submitted), "--out", str(second)]) == 0
    printed = capsys.readouterr().out
    page = (second / "similarity.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "</pre><script>" not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "=HYPERLINK(&quot;x&quot;)[red] &lt;script&gt;alert(1)" in page
    rows = list(csv.DictReader((second / "similarity.csv").open(encoding="utf-8")))
    hostile = [r for r in rows if HOSTILE in (r["student_a"][1:], r["student_b"][1:])]
    assert hostile and all(r["student_a"].startswith("'=") or r["student_b"].startswith("'=")
                           for r in hostile)
    assert "[red] <script>" in printed  # literal, not rich markup


def test_long_answers_are_cut_and_say_so(tmp_path, monkeypatch):
    monkeypatch.setattr(similarity, "MAX_CODE_CHARS", 200)
    for student in ("ann", "ben"):
        submit(tmp_path / "in", student, PACK, with_answer(PACK, ALICE))
    (entry,) = similarity.find(tmp_path / "in")
    assert entry.pairs and entry.pairs[0].a.cut == len(ALICE) - 200
    similarity.write_html(tmp_path, [entry], similarity.THRESHOLD)
    assert f"{len(ALICE) - 200:,} more characters were cut" in (
        tmp_path / "similarity.html").read_text(encoding="utf-8")


# --- answers that are code the course gave out -------------------------------------------------

FIT = COURSE.exercise("06-fit")
EVIDENCE = COURSE.exercise("08-pack-evidence")


def _packing_module(name: str) -> str:
    """A module of packlab.packing as the student install holds it."""
    return (ROOT / "src" / "packlab" / "packing" / name).read_text()


def _reference_module(name: str) -> str:
    """A module of the grader's reference answers (autograder/checks/reference/)."""
    return (ROOT / "autograder" / "checks" / "reference" / name).read_text()


def _answer_of(exercise) -> str:
    notebook = nbformat.read(exercise.source, as_version=4)
    return next(cell.source for cell in notebook.cells
                if cell.metadata.get("nbgrader", {}).get("solution"))


def _packed(code: str) -> str:
    """A classmate's answer, compressed and encoded, run from the string."""
    packed = base64.b64encode(zlib.compress(code.encode())).decode()
    return f"import base64, zlib\n\nexec(zlib.decompress(base64.b64decode({packed!r})))\n"


@pytest.fixture(scope="module")
def pasted(tmp_path_factory):
    root = tmp_path_factory.mktemp("pasted")
    for exercise, answers in ((FIT, {"pia": _packing_module("fitting.py"), "rex": _answer_of(FIT),
                                     "sam": None, "ida": _reference_module("fitting.py")}),
                              (EVIDENCE, {"pia": _packing_module("evidence.py"),
                                          "ida": _reference_module("evidence.py")}),
                              (PACK, {"gina": GINA, "dave": DAVE, "hugo": _packed(DAVE)})):
        for student, code in answers.items():
            notebook = (nbformat.read(exercise.release, as_version=4) if code is None
                        else with_answer(exercise, code))
            submit(root, student, exercise, notebook)
    return {entry.name: entry for entry in similarity.find(root)}


def test_an_answer_that_is_shipped_code_or_the_reference_is_listed(pasted):
    fit = {m.student: m for m in pasted[FIT.name].given}
    assert sorted(fit) == ["ida", "pia"]
    assert fit["pia"].source.startswith("packlab/packing/fitting.py")
    assert {k.student: k.what for k in pasted[FIT.name].known} == {
        "rex": similarity.REFERENCE, "sam": similarity.STARTER}
    evidence = {m.student: m.source for m in pasted[EVIDENCE.name].given}
    assert sorted(evidence) == ["ida", "pia"]
    assert evidence["pia"].startswith("packlab/packing/evidence.py")


def test_an_answer_that_is_the_graders_reference_module_is_listed(pasted):
    fit = {m.student: m for m in pasted[FIT.name].given}
    assert fit["ida"].source.startswith("autograder/checks/reference/fitting.py, the grader's")
    evidence = {m.student: m.source for m in pasted[EVIDENCE.name].given}
    assert evidence["ida"].startswith("autograder/checks/reference/evidence.py, the grader's")


def test_a_short_right_answer_is_not_taken_for_the_reference(pasted):
    assert pasted[PACK.name].given == []


def test_the_report_lists_them(pasted, tmp_path):
    page = similarity.write_html(tmp_path, list(pasted.values()), similarity.THRESHOLD)
    assert "Answers that are code the course gave out" in page.read_text()
    said = "\n".join(similarity.summary(list(pasted.values()), similarity.THRESHOLD))
    assert "pia:" in said and "packlab/packing/fitting.py" in said


def test_an_answer_that_runs_packed_code_is_listed_on_its_own(pasted, tmp_path):
    """hugo runs dave's answer out of a compressed, encoded string: no pair can show it."""
    entry = pasted[PACK.name]
    assert not [p for p in entry.pairs if "hugo" in (p.a.student, p.b.student)]
    assert entry.runs == [similarity.Runs("hugo", ("exec",))]  # the honest ones are not listed
    page = similarity.write_html(tmp_path, list(pasted.values()), similarity.THRESHOLD)
    assert "Answers that run code they build while they run" in page.read_text()
    said = "\n".join(similarity.summary(list(pasted.values()), similarity.THRESHOLD))
    assert "hugo: calls exec" in said and "1 that run code built while they run" in said


# --- a class of twelve: one real copy among answers that are the course's own ------------------

FIX = COURSE.exercise("03-fix-the-break")


def _starter(exercise) -> str:
    notebook = nbformat.read(exercise.release, as_version=4)
    return next(cell.source for cell in notebook.cells
                if cell.metadata.get("nbgrader", {}).get("solution"))


# The reference as learners write it from the lesson: other parameter names, no type hints.
RENAMED = '''def pack(items, limit):
    # keep what fits
    total = 0
    out = []
    for item in items:
        if total + item["tokens"] <= limit:
            out.append(item["id"])
            total += item["tokens"]
    return out
'''


def twelve() -> dict[str, str]:
    """Exercise 03 as a class hands it in: who wrote what."""
    starter = _starter(FIX)
    return {
        "ada": _answer_of(FIX),  # the reference itself
        "ben": RENAMED,
        "cy": RENAMED.replace("items", "ps").replace("limit", "cap").replace("out", "ids"),
        "di": starter.replace("break", "continue"),  # the lesson's one-word fix
        "ed": starter.replace("break", "continue").replace("parts", "xs"),
        "flo": starter.replace("break", "continue").replace("    else:\n", "    else:  # skip\n"),
        "gus": RENAMED.replace("<=", "<"),  # one classic mistake
        "hal": RENAMED.replace("<=", "<").replace("total", "spent"),
        "ivy": starter,  # untouched
        "alice": ALICE,
        "bob": BOB,  # alice's answer, every name changed and comments added
        "dave": DAVE,
    }


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    root = tmp_path_factory.mktemp("term")
    for student, code in twelve().items():
        submit(root, student, FIX, with_answer(FIX, code))
    (entry,) = similarity.find(root)
    out = tmp_path_factory.mktemp("term-out")
    similarity.write_html(out, [entry], similarity.THRESHOLD)
    return entry, (out / "similarity.html").read_text(encoding="utf-8")


def test_one_real_copy_is_the_one_cluster(term):
    entry, _ = term
    assert [c.students for c in entry.clusters] == [["alice", "bob"]]
    assert [frozenset(p.students) for p in entry.pairs] == [frozenset(("alice", "bob"))]


def test_answers_that_are_the_course_s_own_are_shown_as_what_they_are(term):
    entry, _ = term
    said = {k.student: k.what for k in entry.known}
    assert said["ada"] == said["ben"] == said["cy"] == similarity.REFERENCE
    for student in ("di", "ed", "flo"):
        assert said[student] == f"{similarity.STARTER} with one word changed (`break` → " \
                                "`continue`)", student
    for student in ("gus", "hal"):
        assert said[student].endswith("with one word changed (`<=` → `<`)"), student
    assert said["ivy"] == similarity.STARTER
    assert set(said) == set(twelve()) - {"alice", "bob", "dave"}


def test_the_copy_comes_first_side_by_side(term):
    _, page = term
    cluster = page.index("Cluster 1: alice, bob")
    assert cluster < page.index("Answers that are code the course gave out")
    assert page.count("Cluster ") == 1
    sides = page[cluster:page.index("</section>", cluster)]
    assert "<h4>alice</h4>" in sides and "<h4>bob</h4>" in sides and "<mark>" in sides
    assert "remember the id, report the cost" in sides  # bob's own code, as handed in
    assert "ada: the course&#x27;s reference answer" in page \
        or "ada: the course's reference answer" in page
