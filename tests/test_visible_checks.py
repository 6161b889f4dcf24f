"""What a learner is told is what the learner earned (issue 18) and feedback teaches the idea, not
the answer key (issue 19): the visible checks catch what the lessons teach, a notebook run top to
bottom reports every group and the score, and the hidden edge cases vary per student without
their names or the code's output reaching the student."""

from __future__ import annotations

import functools
import json
import tomllib

import nbformat
import pytest
from conftest import COURSE, submit, with_answer

from autograder.checks import gallery
from autograder.checks.suite import Group, in_process_caller, run_group, seed_key
from autograder.checks.suites import load
from autograder.cohort.report import feedback_html, gradescope
from autograder.run.engine import grade_notebook
from autograder.run.isolation import Limits
from packlab.course import check
from packlab.course.kernels import notebook_client
from packlab.manifest import ROOT

MUTANTS = gallery.every()
LEFT_TO_HIDDEN = tomllib.loads((ROOT / "course.toml").read_text())["left_to_hidden"]
PACK = COURSE.exercise("02")
STRICT = gallery.load("pack/strict_less_than")
FAST = Limits(call_seconds=2, setup_seconds=10, submission_seconds=60)


def groups_of(suite: str, visible: bool) -> list[Group]:
    """A suite's visible groups (one, or one per step), or its hidden ones."""
    return [group for group in load(suite).groups if group.visible == visible]


def edge_cases(suite: str) -> Group:
    """The hidden edge cases of a suite (of every step), as one group: its hidden checks that
    are not properties."""
    return Group("edge-cases", "", tuple(check for group in groups_of(suite, False)
                                         for check in group.checks if check.examples is None))


def function_of(mutant: gallery.Mutant):
    scope: dict = {}
    exec(compile(mutant.code, mutant.key, "exec"), scope)  # noqa: S102 - the course's own gallery
    return scope[load(mutant.suite).function]


# --- the visible checks catch what the lessons teach ----------------------------------------

def test_the_visible_checks_catch_every_mutant_but_those_course_toml_leaves_to_the_hidden():
    missed = sorted(m.key for m in MUTANTS if all(
        run_group(group, in_process_caller(function_of(m))).ok
        for group in groups_of(m.suite, visible=True)))
    assert missed == sorted(LEFT_TO_HIDDEN), "course.toml's [left_to_hidden] is not exact"
    assert len(missed) <= len(MUTANTS) // 10, f"{len(missed)} of {len(MUTANTS)} left to hidden"
    assert all(len(why) > 40 for why in LEFT_TO_HIDDEN.values())


@pytest.mark.parametrize("suite", sorted({e.suite for e in COURSE.exercises}))
def test_the_hidden_edge_cases_call_with_inputs_of_their_own(suite):
    """Knowing the visible checks never answers a hidden one: no hidden edge case calls the
    function with arguments a visible check uses."""
    reference = in_process_caller(load(suite).reference)
    calls: dict[str, set[str]] = {}
    for name, groups in (("visible", groups_of(suite, visible=True)),
                         ("edge-cases", [edge_cases(suite)])):
        made = calls.setdefault(name, set())

        def noted(args, made=made):
            made.add(json.dumps(args, sort_keys=True, default=repr))
            return reference(args)

        assert all(run_group(group, noted).ok for group in groups)
    assert calls["visible"] and calls["edge-cases"]
    assert not calls["visible"] & calls["edge-cases"]


# --- a notebook run top to bottom reports every group, and the score --------------------------

def run_top_to_bottom(notebook, folder) -> str:
    """Execute a notebook as "Restart and run all" does; the text of its outputs, in order."""
    client = notebook_client(notebook, timeout=120, kernel_name="python3",
                             resources={"metadata": {"path": str(folder)}})
    client.execute()  # a failing test cell does not stop the run (CellExecutionError)
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            shown = output.get("data", {}) if output.output_type == "display_data" else {}
            texts.append(output.get("text") or shown.get("text/plain", ""))
    return "\n".join(texts)


def test_a_wrong_answer_run_top_to_bottom_is_told_every_group_and_its_score(tmp_path):
    said = run_top_to_bottom(with_answer(PACK, STRICT.code), tmp_path)
    assert "All 7 checks passed" not in said
    for title in ("Visible tests (1 point):", "Hidden edge cases (2 points):",
                  "Hidden properties (2 points):"):
        assert title in said
    assert "compare with `<=`, not `<`" in said
    *_, score, note = said.strip().splitlines()
    assert score.startswith("Score: 0 / 5 points (visible tests 0/1")
    assert note == check.FAILED_NOTE  # on stderr: no points at grading, and Run All went on


def reference_answer(exercise) -> str:
    """The solution's answer cell, as a learner would write it (no nbgrader markers)."""
    cell = next(c for c in nbformat.read(exercise.source, as_version=4).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == exercise.grade_id("answer"))
    return "\n".join(line for line in cell.source.splitlines() if "SOLUTION ###" not in line
                     and "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def test_a_right_answer_run_top_to_bottom_ends_with_full_marks(tmp_path):
    said = run_top_to_bottom(with_answer(PACK, reference_answer(PACK)), tmp_path)
    assert said.strip().splitlines()[-1] == (
        "Score: 5 / 5 points (visible tests 1/1, hidden edge cases 2/2, hidden properties 2/2), "
        "as the grader gives it.")


def test_the_notebook_says_what_packlab_check_all_says(tmp_path, capsys):
    from packlab.course.cli import main

    path = submit(tmp_path, "me", PACK, with_answer(PACK, STRICT.code))
    main(["check", "--all", str(path)])
    terminal = capsys.readouterr().out
    check.run_tests(PACK.name, function_of(STRICT))
    said, err = capsys.readouterr()
    assert err.strip() == check.FAILED_NOTE
    failing = [line.strip() for line in terminal.splitlines() if line.strip().startswith("✗")]
    assert failing and all(line in said for line in failing)
    flat = " ".join(terminal.split())
    assert flat.endswith(" ".join(said.splitlines()[-1].split()))  # the same score, last
    assert said.splitlines()[-1].startswith("Score: 0 / 5 points (visible tests 0/1")


# --- hidden edge cases vary per student, and stay hidden ---------------------------------------

def hidden_calls(mutant: gallery.Mutant, seed: str) -> list[str]:
    result = run_group(edge_cases(mutant.suite), in_process_caller(function_of(mutant)), seed)
    return [failure.call for failure in result.failures]


@pytest.mark.parametrize("key", ["pack/strict_less_than", "pack_report/break_at_first_miss",
                                 "total_tokens/skips_first", "drop_reasons/strict_too_large",
                                 "fit/pair_split", "pack_evidence/break_at_first_miss",
                                 "score_and_pack/break_at_first_miss",
                                 "wrapped_cost/rounds_to_nearest", "assemble_turn/splits_pairs"])
def test_hidden_edge_cases_vary_per_student_and_repeat_for_a_regrade(key):
    mutant = gallery.load(key)
    written = hidden_calls(mutant, "")
    ann = hidden_calls(mutant, seed_key("ann", "a1"))
    assert ann and len(ann) == len(written)
    assert ann == hidden_calls(mutant, seed_key("ann", "a1"))
    assert ann != written and ann != hidden_calls(mutant, seed_key("bo", "a1"))
    assert ann != hidden_calls(mutant, seed_key("ann", "a2"))


def calls_of(check, reference, seed: str) -> list[str]:
    """The calls one check makes of ``reference`` under ``seed``."""
    made: list[str] = []
    answer = in_process_caller(reference)

    def noted(args):
        made.append(json.dumps(args, sort_keys=True, default=repr))
        return answer(args)

    run_group(Group("one", "", (check,)), noted, seed)
    return made


EDGE_CASES = [(suite, check) for suite in sorted({m.suite for m in MUTANTS})
              for check in edge_cases(suite).checks]


@pytest.mark.parametrize(("suite", "check"), EDGE_CASES,
                         ids=[f"{suite}:{check.name[:50]}" for suite, check in EDGE_CASES])
def test_every_hidden_edge_case_calls_with_inputs_of_the_student_s_own(suite, check):
    """No hidden edge case is the same for every student: two students (or one student's two
    assignments) get different calls, a regrade the same calls."""
    reference = load(suite).reference
    ann = calls_of(check, reference, seed_key("ann", "a1"))
    assert ann and ann == calls_of(check, reference, seed_key("ann", "a1"))
    assert ann != calls_of(check, reference, seed_key("bo", "a1"))
    assert ann != calls_of(check, reference, seed_key("ann", "a2"))
    assert ann != calls_of(check, reference, "")


@functools.cache
def edge_case_failures(key: str, seed: str = "") -> tuple[frozenset[str], tuple[str, ...]]:
    """The misconceptions found and the checks failed when the gallery mutant ``key`` meets
    its suite's hidden edge cases under ``seed``: the written ones (no seed) and ann's are
    worked out once per test process, for every student's test to compare with."""
    mutant = gallery.load(key)
    failures = run_group(edge_cases(mutant.suite), in_process_caller(function_of(mutant)),
                         seed).failures
    return frozenset(f.misconception.key for f in failures), tuple(f.check for f in failures)


@pytest.mark.parametrize("student", [f"student-{number}" for number in range(20)])
def test_every_seed_keeps_the_misconceptions_each_hidden_edge_case_finds(student):
    """Each student's edge cases find what the written ones find, and fail a wrong answer on
    the same checks as another student's (the same points, with proportional credit too)."""
    seed = seed_key(student, "02-greedy-pack")
    for mutant in MUTANTS:
        found, failed = edge_case_failures(mutant.key, seed)
        assert found == edge_case_failures(mutant.key)[0], mutant.key
        assert failed == edge_case_failures(mutant.key, seed_key("ann", "02-greedy-pack"))[1], \
            mutant.key
    for suite in {m.suite for m in MUTANTS}:
        reference = in_process_caller(load(suite).reference)
        assert run_group(edge_cases(suite), reference, seed).ok, suite


PRINTS = STRICT.code.replace("    used = 0", "    print('SEEN', parts, budget)\n    used = 0")


def test_the_kernel_varies_as_the_grader_does_and_prints_nothing_of_the_hidden_inputs(
        tmp_path, monkeypatch, capsys):
    assert STRICT.code != PRINTS
    graded = grade_notebook(submit(tmp_path / "submitted", "ann", PACK,
                                   with_answer(PACK, PRINTS)), PACK, "ann", FAST)
    edge = next(g for g in graded.groups if g.name == "edge-cases")
    folder = tmp_path / "autograded" / "ann" / PACK.name  # where nbgrader runs it
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    scope: dict = {}
    exec(PRINTS, scope)  # noqa: S102 - the course's own gallery
    capsys.readouterr()
    check.run_tests(PACK.name, scope["pack"], "edge-cases")
    said, err = capsys.readouterr()
    assert err.strip() == check.FAILED_NOTE
    assert [f.call for f in edge.failures] and all(f.call in said for f in edge.failures)
    assert "SEEN" not in said
    assert "SEEN" in graded.output  # printed during the visible checks: shown
    hidden_ids = {f.call.split("'id': '")[1].split("'")[0] for f in edge.failures}
    assert not any(part_id in graded.output for part_id in hidden_ids)


def test_feedback_names_no_hidden_check_that_passed(tmp_path):
    graded = grade_notebook(submit(tmp_path, "ref", PACK, with_answer(PACK, None)), PACK, "ref",
                            FAST)
    assert graded.score == PACK.max_score
    page, results = feedback_html(graded), json.dumps(gradescope(graded))
    hidden = [c.name for g in load(PACK.suite).groups if not g.visible for c in g.checks]
    visible = {c.name for c in load(PACK.suite).group("visible").checks}
    for name in (n for n in hidden if n not in visible):
        assert name not in page and name not in results, name
    assert "hidden checks passed" in page
