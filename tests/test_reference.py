"""No reference answer leaves the instructor's install (issue 18, item 4).

The reference answers live in autograder/checks/reference/, which `packlab student-build` never
copies; the visible checks read the answers recorded for their calls (`autograder.checks.recorded`)
and give the same verdicts and messages without the reference; no function of the student install is
a reference's body; and no module of `packlab.packing` the student install holds scores full marks
when pasted into an exercise's answer cell and graded by the real grader.
"""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import EXERCISES, submit, with_answer

from autograder.checks import recorded
from autograder.checks.reference import record
from autograder.checks.suite import in_process_caller, run_group
from autograder.checks.suites import load
from autograder.cohort.classroom import grade_class
from autograder.run.isolation import Limits
from packlab.course import student
from packlab.manifest import ROOT

REFERENCE = ROOT / "autograder" / "checks" / "reference"
PACKLAB = Path(sys.executable).with_name("packlab")
SUITES = sorted({exercise.suite for exercise in EXERCISES})


@pytest.mark.parametrize("suite", SUITES)
def test_the_recorded_answers_are_current(suite):
    path = recorded.FOLDER / f"{suite}.json"
    assert path.read_text(encoding="utf-8") == record.text(record.answers(suite)), (
        f"{path} is out of date: run `python -m autograder.checks.reference.record`")


def visible_results(suite: str, functions: list) -> list:
    """Every visible check's verdict and messages, for each of these answers."""
    loaded = load(suite)
    found = []
    for function in functions:
        for group in loaded.groups:
            if group.visible:
                result = run_group(group, in_process_caller(function))
                found.append((result.passed, [f.message() for f in result.failures]))
    return found


@pytest.mark.parametrize("suite", SUITES)
def test_the_visible_checks_say_the_same_without_the_reference(suite, monkeypatch):
    functions = record.tried(suite)
    with_reference = visible_results(suite, functions)
    monkeypatch.setattr(recorded, "installed", lambda: False)
    monkeypatch.setattr(recorded.Reference, "real", None)  # any use of the reference would fail
    assert visible_results(suite, functions) == with_reference


def test_a_call_never_recorded_is_refused_in_words(monkeypatch):
    monkeypatch.setattr(recorded, "installed", lambda: False)
    with pytest.raises(recorded.NotRecorded, match="only the instructor's install"):
        recorded.Reference("packers.greedy")([{"id": "never", "tokens": 123456}], 7)


def test_a_diagnosis_that_needs_an_unrecorded_answer_is_plain_not_a_crash(monkeypatch):
    from autograder.checks.suites.pack import PACK

    monkeypatch.setattr(recorded, "installed", lambda: False)
    said = PACK.named([[{"id": "zz", "tokens": 3}, {"id": "yy", "tokens": 9}], 5], ["yy"])
    assert said.key == "unnamed" and said.lesson == "02-priority-then-greedy"
    assert "Grading names the idea" in said.text


def test_recorded_values_come_back_as_they_were():
    from packlab.packing.conversation import RequiredTooBig
    from packlab.packing.evidence import Decision
    from packlab.packing.fitting import RequiredDoesNotFit

    values = [
        {"a": [1, 2.5, float("inf")], "b": (None, True, "x")},
        Decision("doc", 0.5, 10, 7, 7, "truncated"),
        RequiredDoesNotFit("required item 'sys' does not fit", ["sys", "90"]),
        RequiredTooBig(300, 200, {"system": 300}),
    ]
    for value in values:
        again = recorded.decode(json.loads(json.dumps(recorded.encode(value))))
        assert type(again) is type(value)
        if isinstance(value, Exception):
            assert str(again) == str(value) and vars(again) == vars(value)
        else:
            assert again == value


# --- the student install ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The student install, written by the instructor's `packlab student-build`."""
    folder = tmp_path_factory.mktemp("student")
    done = subprocess.run([PACKLAB, "student-build", folder], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def shape(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A function's arguments and body, without its name, docstring, annotations or places, and
    with its own names (arguments and the names it assigns) numbered in order of appearance."""
    function = copy.deepcopy(function)
    body = function.body[1:] if ast.get_docstring(function) else function.body
    arguments = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    own = [a.arg for a in arguments] + [n.id for stmt in body for n in ast.walk(stmt)
                                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    number = {name: f"v{i}" for i, name in enumerate(dict.fromkeys(own))}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in number:
                node.id = number[node.id]
            elif isinstance(node, ast.arg) and node.arg in number:
                node.arg = number[node.arg]
    return ast.dump(ast.Module(body=body, type_ignores=[]), annotate_fields=False) + str(
        len(arguments))


def functions_in(paths) -> dict[str, str]:
    """Every function (methods and nested ones too) in these files: its shape -> where it is."""
    found = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault(shape(node), f"{path.name}:{node.name}")
    return found


def test_the_student_install_holds_no_reference_body(built):
    assert not (built / "autograder" / "checks" / "reference").exists()
    assert "autograder.checks.reference" in student.NEVER
    references = functions_in(sorted(REFERENCE.glob("*.py")))
    shipped = functions_in(sorted(built.rglob("*.py")))
    assert len(references) >= 9 and len(shipped) > 300  # the walk found them
    copies = {where: shipped[body] for body, where in references.items() if body in shipped}
    assert copies == {}, f"reference bodies in the student install: {copies}"


def test_the_shape_compare_sees_a_copy_with_other_names_and_docstrings():
    copied = ast.parse(textwrap.dedent('''
        def pack(items: list, limit: int) -> list:
            "Mine, all mine."
            total = 0
            chosen = []
            for item in items:
                size = item["tokens"]
                if total + size <= limit:
                    chosen.append(item["id"])
                    total += size
            return chosen
    ''')).body[0]
    reference = functions_in([REFERENCE / "packers.py"])
    assert reference[shape(copied)] == "packers.py:greedy"
    copied.body[-2].body[1].test.ops = [ast.Lt()]  # `<` for `<=`: not the reference any more
    assert shape(copied) not in reference


FAST = Limits(call_seconds=2.0, setup_seconds=10.0)


def binds(path: Path, name: str) -> bool:
    """Whether ``path``, pasted as an answer, binds ``name`` at its top level (a def, class,
    assignment or import): if not, every check of an exercise calling ``name`` meets a NameError,
    as a blank answer's do."""
    return name in top_level(ast.parse(path.read_text(encoding="utf-8")))


def module_pastes(built: Path) -> list[tuple[Path, object]]:
    """Each shipped `packlab.packing` module pasted into each exercise whose function it binds,
    and a module that binds none of them into the first exercise (every module is graded)."""
    modules = sorted((built / "src" / "packlab" / "packing").glob("*.py"))
    pastes = []
    for path in modules:
        mine = [exercise for exercise in EXERCISES if binds(path, exercise.function)]
        pastes += [(path, exercise) for exercise in mine or EXERCISES[:1]]
    return pastes


@pytest.fixture(scope="module")
def pasted(built, tmp_path_factory) -> dict:
    """One class graded once by the real grader: the modules pasted whole (`module_pastes`,
    students named for the module) and the teaching functions copied with their helpers
    (`TEACHING`, students named module-function); each (student, assignment)'s score."""
    submitted = tmp_path_factory.mktemp("pasted") / "submitted"
    for path, exercise in module_pastes(built):
        code = path.read_text(encoding="utf-8")
        submit(submitted, path.stem.strip("_"), exercise, with_answer(exercise, code))
    folder = built / "src" / "packlab" / "packing"
    for exercise in EXERCISES:
        for module, name in TEACHING.get(exercise.function, []):
            code = inlined(folder, module, name, exercise.function)
            assert "packlab" not in code and "tiktoken" not in code and "numpy" not in code
            submit(submitted, f"{module}-{name}", exercise, with_answer(exercise, code))
    rows = grade_class(submitted, submitted.parent / "out", jobs=2, limits=FAST)
    return {(row["student"], row["assignment"]): row["score"] for row in rows}


def full_marks(scores: dict) -> list[tuple[str, str]]:
    return sorted(key for key, score in scores.items()
                  if score == next(e.max_score for e in EXERCISES if e.name == key[1]))


@pytest.mark.slow
def test_no_shipped_packing_module_pasted_as_an_answer_scores_full_marks(built, pasted):
    modules = sorted((built / "src" / "packlab" / "packing").glob("*.py"))
    assert {path.stem for path in modules} >= {"fitting", "evidence", "reasons", "relevance",
                                               "conversation", "packers", "tokens"}
    pastes = module_pastes(built)
    assert {path for path, _ in pastes} == set(modules)
    assert {exercise.name for path, exercise in pastes if binds(path, exercise.function)} >= {
        "06-fit", "07-drop-reasons", "08-pack-evidence", "09-score-and-pack",
        "10-assemble-turn"}  # the lessons' modules define those exercises' functions
    keys = {(path.stem.strip("_"), exercise.name) for path, exercise in pastes}
    scores = {key: score for key, score in pasted.items() if key in keys}
    assert scores.keys() == keys  # every paste has its row
    print(json.dumps({f"{s}/{a}": score for (s, a), score in sorted(scores.items())}, indent=1))
    assert full_marks(scores) == []
    unbound = {(path.stem.strip("_"), exercise.name) for path, exercise in pastes
               if not binds(path, exercise.function)}
    assert unbound and all(scores[key] == 0 for key in unbound), scores  # as each left out


# The shipped teaching functions a learner might copy into an exercise's answer cell, by the
# exercise's function name: (module of packlab.packing, function). `pack` is exercises 02 and 03.
TEACHING = {
    "pack": [("packers", "greedy")],
    "fit": [("fitting", "fit"), ("fitting", "fit_with")],
    "pack_with_reasons": [("reasons", "pack_with_reasons")],
    "pack_evidence": [("evidence", "pack_evidence")],
    "score_and_pack": [("relevance", "score_and_pack")],
    "assemble_turn": [("conversation", "assemble_turn")],
}
PACKING = "packlab.packing."
MATCH_THEIR_EXERCISE = [("conversation-assemble_turn", "10-assemble-turn"),
                        ("reasons-pack_with_reasons", "07-drop-reasons"),
                        ("relevance-score_and_pack", "09-score-and-pack")]


def top_level(tree: ast.Module) -> dict[str, ast.stmt]:
    """A module's top-level statements by the names they bind."""
    found: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                found.update((n.id, node) for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = ast.ImportFrom(
                    module=node.module, names=[alias], level=0) if isinstance(
                    node, ast.ImportFrom) else ast.Import(names=[alias])
    return found


def inlined(folder: Path, module: str, name: str, as_name: str) -> str:
    """The source of ``module.name`` with the source of every definition of `packlab.packing` it
    reaches (functions, classes, constants) before it, and the other modules' imports it needs:
    what a learner gets by copying the function and its helpers one by one. No packlab import."""
    tops = {path.stem: top_level(ast.parse(path.read_text(encoding="utf-8")))
            for path in folder.glob("*.py")}
    imports: dict[str, None] = {"from __future__ import annotations": None}
    emitted: list[str] = []
    seen: set[tuple[str, str]] = set()

    def need(stem: str, key: str) -> None:
        node = tops[stem].get(key)
        if (stem, key) in seen or node is None:
            return
        seen.add((stem, key))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKING):
            (alias,) = node.names
            need(node.module.removeprefix(PACKING), alias.name)
            if alias.asname:
                emitted.append(f"{alias.asname} = {alias.name}")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            assert not ast.unparse(node).split()[1].startswith("packlab"), ast.unparse(node)
            if ast.unparse(node) != "from __future__ import annotations":
                imports[ast.unparse(node)] = None
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name):
                    need(stem, sub.id)
            emitted.append(ast.unparse(node))

    need(module, name)
    alias = [] if as_name == name else [f"{as_name} = {name}"]
    return "\n".join([*imports, "", *emitted, *alias]) + "\n"


def test_a_teaching_function_is_inlined_with_its_helpers_and_runs(tmp_path):
    code = inlined(ROOT / "src" / "packlab" / "packing", "reasons", "pack_with_reasons",
                   "answer")
    assert "packlab" not in code and "def priority_order" in code and "def reason_for" in code
    namespace: dict = {}
    exec(compile(code, "answer", "exec"), namespace)  # noqa: S102 - the course's own code
    parts = [{"id": "sys", "tokens": 10, "priority": 9}, {"id": "doc", "tokens": 30,
                                                          "priority": 1}]
    assert namespace["answer"](parts, 20)["included"] == ["sys"]


@pytest.mark.slow
def test_no_shipped_teaching_function_copied_with_its_helpers_scores_full_marks(pasted):
    copied = {(f"{module}-{name}", exercise.name) for exercise in EXERCISES
              for module, name in TEACHING.get(exercise.function, [])}
    assert len(copied) >= 8
    scores = {key: score for key, score in pasted.items() if key in copied}
    print(json.dumps({f"{s}/{a}": score for (s, a), score in sorted(scores.items())}, indent=1))
    assert scores.keys() == copied
    full = full_marks(scores)
    # Issue 36: lessons 07, 09 and 10's functions behave as their exercises' specs say (a
    # learner who copies the lesson's behaviour must not fail), so pasting them earns full
    # marks; every other teaching function still differs from its exercise somewhere.
    assert full == MATCH_THEIR_EXERCISE
