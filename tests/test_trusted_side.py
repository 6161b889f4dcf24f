"""The trusted side believes nothing the worker says, and never fails an honest answer.

Replies on the worker's pipe are hostile input: each malformed, forged, nested or oversized reply
is the student's failure ("your code interfered with the grader"), never a crash. An answer that
is merely inconsistent keeps the points it earned and is told so; a wrong reply always counts.
Exercise 06's warning is graded as its instructions state it.
"""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest
from conftest import COURSE, submit, with_answer

from autograder.checks import gallery
from autograder.checks.suite import StudentError
from autograder.run import isolation
from autograder.run.engine import grade_notebook
from autograder.run.isolation import Limits
from autograder.run.sandbox import MAX_PROBLEMS, Sandbox, call_outcome, ready_problems

FAST = Limits(call_seconds=2, setup_seconds=10, submission_seconds=60)

SENT = [[], 5]  # the arguments of the call being answered
FORGED_CALL_REPLIES = {
    "a list": [],
    "no ok": {"value": 1},
    "ok is not a bool": {"ok": 1, "value": [], "args": [], "warnings": []},
    "a key missing": {"ok": True, "value": []},
    "an extra key": {"ok": True, "value": [], "args": [[], 5], "warnings": [], "score": 5},
    "args not a list": {"ok": True, "value": [], "args": {}, "warnings": []},
    "fewer args than were sent": {"ok": True, "value": [], "args": [], "warnings": []},
    "warnings not a list": {"ok": True, "value": [], "args": [], "warnings": "many"},
    "an unknown failure": {"ok": False, "kind": "passed", "detail": ""},
    "a detail that is not text": {"ok": False, "kind": "raised", "detail": ["x"]},
    "nested too deep": {"ok": True, "value": json.loads("[" * 60 + "]" * 60), "args": [[], 5],
                        "warnings": []},
    "a warning that is not text": {"ok": True, "value": [], "args": [[], 5], "warnings": [1]},
}


@pytest.mark.parametrize("what", FORGED_CALL_REPLIES)
def test_a_forged_call_reply_is_interference(what):
    with pytest.raises(StudentError) as caught:
        call_outcome(FORGED_CALL_REPLIES[what], SENT)
    assert caught.value.kind == "interfered"
    assert caught.value.fatal
    assert "interfered with the grader" in caught.value.describe()


def test_a_well_formed_reply_is_believed_as_data_only():
    outcome = call_outcome({"ok": True, "value": ["sys"], "args": [[], 5],
                            "warnings": ["UserWarning: estimated"]}, SENT)
    assert (outcome.value, outcome.args_after, outcome.warnings) == \
        (["sys"], [[], 5], ("UserWarning: estimated",))
    with pytest.raises(StudentError) as caught:
        call_outcome({"ok": False, "kind": "raised", "detail": "x" * 100_000}, SENT)
    assert caught.value.kind == "raised" and len(caught.value.detail) < 600


@pytest.mark.parametrize("reply", [[], {"ready": False, "problems": []}, {"ready": True},
                                   {"ready": True, "problems": "none"},
                                   {"ready": True, "problems": [1]}])
def test_a_forged_ready_reply_is_interference(reply):
    with pytest.raises(StudentError) as caught:
        ready_problems(reply)
    assert caught.value.kind == "interfered"


def test_problems_are_bounded_in_number_and_length():
    shown = ready_problems({"ready": True, "problems": ["[bold]x[/]" * 10_000] * 12_000})
    assert len(shown) == MAX_PROBLEMS + 1
    assert all(len(p) < 600 for p in shown)
    assert "11,980 more cells also failed" in shown[-1]


WRONG_EVERY_SEVENTH_CALL = '''
calls = 0


def pack(parts, budget):
    """Greedy packing, but every 7th call forgets the last part it took (a real bug)."""
    global calls
    calls += 1
    taken, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            taken.append(part["id"])
            used += part["tokens"]
    if calls % 7 == 0 and taken:
        taken.pop()
    return taken
'''


def test_an_inconsistent_answer_keeps_its_points_and_is_told_why(tmp_path):
    exercise = COURSE.exercise("02")
    path = submit(tmp_path, "flaky", exercise, with_answer(exercise, WRONG_EVERY_SEVENTH_CALL))
    result = grade_notebook(path, exercise, "flaky", FAST)
    assert result.error is None, result.error  # graded, not "not graded"
    failures = [f for g in result.groups for f in g.failures]
    assert failures, "wrong on every 7th call must fail something"
    messages = " ".join(f.message() for f in failures)
    assert "gave different answers for the same input" in messages
    assert "Flaky" not in messages
    earned = sum(g.max_points for g in result.groups if not g.failures)
    assert result.score == earned


def test_a_wrong_answer_given_once_counts_though_it_is_right_when_asked_again(tmp_path):
    """Wrong on the first generated input of the hidden properties, right on every call after:
    the search cannot reproduce it, and the wrong reply still fails its check."""
    exercise = COURSE.exercise("02")
    code = gallery.ATTACKS.joinpath("lies_once.py").read_text()
    path = submit(tmp_path, "liar", exercise, with_answer(exercise, code))
    result = grade_notebook(path, exercise, "liar", FAST)
    scores = {g.name: g.points for g in result.groups}
    assert scores == {"visible": 1, "edge-cases": 2, "properties": 0}, scores
    failures = [f for g in result.groups for f in g.failures]
    assert len(failures) == 1 and failures[0].misconception.key == "nondeterministic"
    assert "did not answer the same way twice" in failures[0].message()
    assert "'tool'" in failures[0].call  # the input it lied on, which is shown


@pytest.mark.parametrize("name", ["never_warns", "warns_per_item"])
def test_fit_warns_once_per_call_as_its_instructions_say(tmp_path, name):
    exercise = COURSE.exercise("06")
    mutant = gallery.load(f"fit/{name}")
    path = submit(tmp_path, name, exercise, with_answer(exercise, mutant.code))
    result = grade_notebook(path, exercise, name, FAST)
    assert result.score < exercise.max_score
    failures = [f for g in result.groups for f in g.failures]
    assert failures and {f.misconception.key for f in failures} == {"warns-once"}, \
        [f.message() for f in failures]
    assert "UserWarning" in failures[0].got or "no warning" in failures[0].got


def test_the_reference_fit_warns_exactly_once(tmp_path):
    exercise = COURSE.exercise("06")
    path = submit(tmp_path, "ref", exercise, with_answer(exercise, None))
    assert grade_notebook(path, exercise, "ref", FAST).score == exercise.max_score


HUGE_ANSWER = '''
def pack(parts, budget):
    return ["{letter}" * 1_000_000]  # 1 MB, and wrong for every call
'''


def test_a_failed_search_is_remembered_by_digests_not_by_answers(tmp_path):
    """What the grader keeps of a student (to replay a failed search for the next one) stays
    small however large the answers: 1 MB answers leave less than 1 MB behind."""
    exercise = COURSE.exercise("02")

    def grade(letter: str) -> None:
        path = submit(tmp_path, letter, exercise, with_answer(exercise, HUGE_ANSWER.replace(
            "{letter}", letter)))
        assert grade_notebook(path, exercise, letter, FAST).score == 0

    grade("a")  # the suites loaded, their examples generated
    gc.collect()
    tracemalloc.start()
    try:
        grade("b")
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept < 1_000_000, f"{kept:,} bytes kept after grading one student"


def test_what_the_code_printed_shows_no_folder_of_this_machine():
    """A traceback printed inside the sandbox names the interpreter's files by their real
    folder (bound at the same path); the feedback shows them without it."""
    with Sandbox(["import json, sys, traceback\nprint(sys.prefix)\ntry:\n"
                  "    json.loads('{')\nexcept ValueError:\n    traceback.print_exc()\n"
                  "def same(x):\n    return x"], FAST) as box:
        assert box.call("same", [2]).value == 2
        printed = box.output_tail()
    assert "json/decoder.py" in printed
    for path in isolation.host_paths():
        assert path not in printed
