"""How the grader looks for a failing example, and how it stops code that never returns.

Property checks replay the examples a passing search would try, search (and shrink) only for
the first failure of a group, remember failed searches by the calls they made, and a call that
burns CPU is stopped by the worker's CPU timer long before the wall-clock limit.
"""

from __future__ import annotations

from hypothesis import strategies as st

from autograder.checks.suite import (
    Check,
    CheckFailed,
    Group,
    Misconception,
    Outcome,
    StudentError,
    fail,
    in_process_caller,
    property_check,
    run_group,
)
from autograder.run.isolation import Limits
from autograder.run.sandbox import Sandbox

WRONG = Misconception("too-big", "numbers above 10 are refused", "01-the-window-is-finite")


def small_numbers_only(call, example: int) -> None:
    """Fails when the function's answer for ``example`` is above 10."""
    got = call([example]).value
    if got > 10:
        raise fail("answers stay small", "f", [example], str(got), "at most 10", WRONG)


def echo(value: int) -> int:
    return value


def counting(func):
    calls: list[list] = []
    inner = in_process_caller(func)

    def call(args: list) -> Outcome:
        calls.append(args)
        return inner(args)

    return call, calls


def test_the_first_failure_of_a_group_is_shrunk_later_ones_are_the_smallest_replayed():
    numbers = st.integers(0, 1000)
    first = property_check("first", numbers, small_numbers_only)
    second = property_check("second", numbers, small_numbers_only)
    seen: list[int] = []
    property_check("record", numbers, lambda call, example: seen.append(example)).run(
        in_process_caller(echo))
    result = run_group(Group("g", "", (first, second)), in_process_caller(echo))
    shrunk, picked = result.failures
    assert shrunk.call == "f(11)"  # Hypothesis shrank it to the boundary
    assert picked.call == f"f({min((n for n in seen if n > 10), key=lambda n: len(repr(n)))})"


def test_a_remembered_failed_search_gives_the_same_failure_without_searching():
    numbers = st.integers(0, 1000)
    check = property_check("remembered", numbers, small_numbers_only)
    fresh_call, fresh_calls = counting(echo)
    again_call, again_calls = counting(lambda value: value + 0)  # another function, same answers
    failures = []
    for call in (fresh_call, again_call):
        try:
            check.run(call)
        except CheckFailed as exc:
            failures.append(exc.failure)
    assert len(failures) == 2 and failures[0] == failures[1]
    assert len(again_calls) < len(fresh_calls)  # repeated the search's calls, no new search


def test_an_answer_that_differs_anywhere_gets_its_own_search():
    numbers = st.integers(0, 1000)
    check = property_check("own search", numbers, small_numbers_only)
    messages = []
    for func in (echo, lambda value: value * 2):
        try:
            check.run(in_process_caller(func))
        except CheckFailed as exc:
            messages.append(exc.failure.call)
    assert messages == ["f(11)", "f(6)"]


ENDLESS = "def f(x):\n    while True:\n        pass\n"
STUBBORN = ("def f(x):\n    while True:\n        try:\n            while True:\n"
            "                pass\n        except BaseException:\n            pass\n")
SLEEPY = "import time\ndef f(x):\n    time.sleep(600)\n"


def timed_out(cells: str, limits: Limits) -> StudentError:
    with Sandbox([cells], limits) as box:
        try:
            box.call("f", [1])
        except StudentError as exc:
            return exc
    raise AssertionError("the call returned")


LIMIT_SAYS = "the time one call may take (0.2 s of CPU time, 1 second in all) while calling f"


def test_a_busy_loop_is_stopped_by_its_cpu_time_not_the_wall_clock():
    error = timed_out(ENDLESS, Limits(call_seconds=60, call_cpu_seconds=0.2))
    assert (error.kind, error.clock) == ("timeout", "cpu")
    assert "0.2 s of CPU time, 60 seconds in all) while calling f" in error.describe()


def test_code_that_sleeps_or_catches_the_cpu_timer_meets_the_wall_clock():
    for cells in (SLEEPY, STUBBORN):
        error = timed_out(cells, Limits(call_seconds=1, call_cpu_seconds=0.2))
        assert (error.kind, error.clock) == ("timeout", "wall"), cells
        assert LIMIT_SAYS in error.describe(), cells


def test_the_feedback_does_not_depend_on_which_clock_ran_out_first():
    """On a loaded machine the wall clock can stop a busy loop before its CPU timer does: the
    learner must read the same words (and a regrade must write the same feedback) either way."""
    limits = Limits(call_seconds=3, call_cpu_seconds=0.2)
    by_cpu, by_wall = timed_out(ENDLESS, limits), timed_out(SLEEPY, limits)
    assert (by_cpu.clock, by_wall.clock) == ("cpu", "wall")
    assert by_cpu.describe() == by_wall.describe() == (
        "it did not return within the time one call may take (0.2 s of CPU time, 3 seconds in "
        "all) while calling f (an endless loop?)")


# --- calls sent ahead (`Sandbox.expect`) -----------------------------------------------------

LOOPS_ON_3 = "def f(x):\n    while x == 3:\n        pass\n    return x\n"
SLEEPS_ON_3 = "import time\ndef f(x):\n    if x == 3:\n        time.sleep(600)\n    return x\n"
EXITS_ON_3 = "import os\ndef f(x):\n    if x == 3:\n        os._exit(1)\n    return x\n"
AHEAD_LIMITS = Limits(call_seconds=1, call_cpu_seconds=0.2, restarts=1)


def answers(box: Sandbox, *xs: int) -> list:
    return [box.call("f", [x]).value for x in xs]


def test_calls_sent_ahead_come_back_to_their_own_calls():
    with Sandbox(["def f(x):\n    return x * 10\n"], AHEAD_LIMITS) as box:
        box.call("f", [0])
        box.expect("f", [[1], [2], [3]])
        # the next one sent, then one never sent (the rest are dropped), then the usual way
        assert answers(box, 1, 7, 2, 3) == [10, 70, 20, 30]


def test_a_call_sent_ahead_keeps_its_own_cpu_and_wall_limits():
    for cells, clock in ((LOOPS_ON_3, "cpu"), (SLEEPS_ON_3, "wall")):
        with Sandbox([cells], AHEAD_LIMITS) as box:
            box.call("f", [0])
            box.expect("f", [[1], [2], [3], [4]])
            assert answers(box, 1, 2) == [1, 2]
            try:
                box.call("f", [3])
            except StudentError as exc:
                assert (exc.kind, exc.clock) == ("timeout", clock), cells
                assert "0.2 s of CPU time, 1 second in all) while calling f" in exc.describe()
            else:
                raise AssertionError("the call returned")
            assert answers(box, 4) == [4]  # a fresh worker, as after any timeout


def test_a_call_sent_ahead_and_never_made_costs_the_student_nothing():
    """Code that loops, sleeps or dies on a call the grader sent ahead but did not need is
    never blamed for it: no failure, no restart used up."""
    for cells in (LOOPS_ON_3, SLEEPS_ON_3, EXITS_ON_3):
        with Sandbox([cells], AHEAD_LIMITS) as box:
            box.call("f", [0])
            for _ in range(AHEAD_LIMITS.restarts + 2):
                box.expect("f", [[1], [3]])
                assert answers(box, 1, 5) == [1, 5], cells


def test_a_replay_in_the_sandbox_sends_its_examples_in_batches(monkeypatch):
    writes = []
    write = Sandbox._write
    monkeypatch.setattr(Sandbox, "_write", lambda self, lines, *rest, **named: (
        writes.append(lines.count(b"\n")), write(self, lines, *rest, **named))[1])
    numbers = st.integers(0, 1000)
    with Sandbox(["def f(x):\n    return x % 11\n"], Limits()) as box:
        sandboxed = run_group(Group("g", "", (property_check("p", numbers, small_numbers_only),)),
                              box.caller("f"))
    in_process = run_group(Group("g", "", (property_check("q", numbers, small_numbers_only),)),
                           in_process_caller(lambda x: x % 11))
    assert sandboxed.ok and in_process.ok
    calls = sum(writes[1:])  # the first message runs the cells
    assert calls >= 50 and len(writes) - 1 <= calls // 10, writes


def named_example(number: int) -> Check:
    """A check of one named example: the answer for ``number`` stays small."""
    return Check(f"example {number}", lambda call: small_numbers_only(call, number))


def test_a_groups_named_examples_are_sent_in_one_message_and_judged_as_before(monkeypatch):
    writes = []
    write = Sandbox._write
    monkeypatch.setattr(Sandbox, "_write", lambda self, lines, *rest, **named: (
        writes.append(lines.count(b"\n")), write(self, lines, *rest, **named))[1])
    group = Group("g", "", tuple(named_example(n) for n in (1, 5, 12, 7, 30, 3)))
    with Sandbox(["def f(x):\n    return x\n"], Limits()) as box:
        sandboxed = run_group(group, box.caller("f"))
    in_process = run_group(group, in_process_caller(echo))
    assert writes[1:] == [6], writes  # after the cells: the six calls at once
    assert sandboxed.passed == in_process.passed == ["example 1", "example 5", "example 7",
                                                     "example 3"]
    assert [f.call for f in sandboxed.failures] == [f.call for f in in_process.failures] \
        == ["f(12)", "f(30)"]


def test_a_replay_in_the_sandbox_fails_as_one_in_process_does():
    numbers = st.integers(0, 1000)
    check = property_check("same", numbers, small_numbers_only)
    with Sandbox(["def f(x):\n    return x\n"], Limits()) as box:
        sandboxed = run_group(Group("g", "", (check,)), box.caller("f"))
    fresh = property_check("same", numbers, small_numbers_only)  # nothing remembered
    in_process = run_group(Group("g", "", (fresh,)), in_process_caller(echo))
    assert [f.call for f in sandboxed.failures] == [f.call for f in in_process.failures] \
        == ["f(11)"]


def test_calls_worked_out_ahead_are_kept_only_when_no_seed_varies_them():
    from autograder.checks.suite import Examples, seeded, variation

    worked: list[int] = []

    def plain(example: int) -> list:
        worked.append(example)
        return [example]

    def varied(example: int) -> list:
        rng = variation([example])
        return [example + (rng.randint(1, 9) if rng else 0)]

    kept = Examples(lambda: [1, 2, 3], plain)
    assert kept.ahead(0, 3) == kept.ahead(0, 3) == [[1], [2], [3]]
    assert worked == [1, 2, 3]  # once
    per_student = Examples(lambda: [1, 2, 3], varied)
    with seeded("a\0s001"):
        first = per_student.ahead(0, 3)
    with seeded("a\0s002"):
        second = per_student.ahead(0, 3)
    assert first != second and per_student.ahead(0, 3) == [[1], [2], [3]]
