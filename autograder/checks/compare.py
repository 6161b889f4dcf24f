"""The shape every suite shares: ask the learner's function, compare what comes back with the
course's answer, and when they differ fail with the likeliest misconception.

A suite says once how its exercise is judged — a `Compare` for a function that only returns, a
`CompareOrRaise` for one that must also raise on purpose — and then reads as its cases and its
misconceptions: `case` for a named example, `holds` for a property of every answer, `matches`
for the course's exact answer on generated input, `leaves_alone` for arguments a call must not
change.

A check is named for what it catches. An example that can go wrong in several ways is split into
*sides* listed before its `case`, each named for one thing: `well_formed` (the answer's shape),
`left_alone` (the arguments unchanged), `shows` (a property of this answer) and `about` (the
answer is not wrong for these reasons, as the diagnosis names them). Whatever fails a side also
fails the `case` of the same example in the same group, so sides change no group's result: they
only make the first failing check say what went wrong.
"""

from __future__ import annotations

import copy
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from autograder.checks.recorded import NotRecorded
from autograder.checks.suite import (
    Answer,
    Caller,
    Check,
    CheckFailed,
    Expected,
    Misconception,
    Outcome,
    answer,
    call_or_fail,
    fail,
    property_check,
    show,
    variation,
    wrong_kind,
)

# A property of every answer: ``test(args, got)`` is None when it holds for the returned ``got``,
# else what was expected, in words (the misconception then comes from the suite's diagnosis). A
# test that needs another message or misconception raises `wrong` or `fail` itself.
Test = Callable[[list, Any], str | None]

# A hidden example of its own for one student: new arguments, drawn from the student's random
# source, that test the same idea as the example written (see `_Judge.varied`).
Draw = Callable[[random.Random], list]


def _whole(args: list) -> Any:
    return args


def _first(args: list) -> Any:
    return args[0]


def _never(got: Any) -> bool:
    return False


def _holds(args: list, got: Any) -> None:
    return None


def vary_parts(rng: random.Random, args: list, scale: bool = True,
               counts: tuple[int, ...] = ()) -> list:
    """A hidden example varied for one student: every part's id (a dict with an ``"id"``, at
    any depth of the arguments) gets one prefix, and (``scale``) every whole token count and
    every whole-number argument one factor, except the arguments at the positions ``counts``
    (0 for the first): numbers of things such as ``cap=1`` or ``top_k``, not tokens. What fits,
    what ties and in which order all stay as they were."""
    prefix = "".join(rng.choices(string.ascii_lowercase, k=3)) + "-"
    factor = rng.randint(2, 9) if scale else 1

    def scaled(value):
        return value * factor if type(value) is int else value

    def varied(value):
        if type(value) is list:
            return [varied(item) for item in value]
        if type(value) is not dict:
            return value
        changed = {key: varied(item) for key, item in value.items()}
        if "tokens" in value:
            changed["tokens"] = scaled(value["tokens"])
        if type(value.get("id")) is str:
            changed["id"] = prefix + value["id"]
        return changed

    return [arg if position in counts else varied(arg) if type(arg) in (list, dict)
            else scaled(arg) for position, arg in enumerate(args)]


def outcome(reference: Callable[..., Any],
            error: type[Exception] = ValueError) -> Callable[[list], Any]:
    """The course's answer as `CompareOrRaise` asks for it: what ``reference(*args)`` returns,
    or the ``error`` it raises (returned, not raised)."""

    def expected(args: list) -> Any:
        try:
            return reference(*args)
        except error as exc:
            return exc

    return expected


@dataclass(frozen=True)
class Unchanged:
    """Which arguments a call must leave as they were, and how a failure names them."""

    noun: str = "parts"
    compared: Callable[[list], Any] = _whole  # what must be as it was after the call
    shown: Callable[[list], Any] = _first  # what the failure shows of it

    def require(self, check: str, function: str, args: list, value: Any, after: list | None,
                misconception: Misconception) -> None:
        """Fail when the call changed what it was given."""
        if after is None or self.compared(after) == self.compared(args):
            return
        noun, before, now = self.noun, self.shown(args), self.shown(after)
        if before == now:  # what changed is an argument the failure does not show: show them all
            noun, before, now = "arguments", args, after
        raise fail(check, function, args, f"{show(value)}, but the call changed the {noun} from "
                   f"{show(before)} to {show(now)}", f"the {self.noun} left as they were",
                   misconception)


# The misconception keys every judge names on its own (an error or a missing function, a call
# that changed its arguments): a suite's table must hold each one.
REQUIRED = {
    "crash": "the function raised an error, never returned, or crashed",
    "missing": "there is no function of that name",
    "mutates-input": "a call changed the arguments it was given",
}


class MissingMisconception(KeyError):
    """A suite's misconception table lacks a key the judge needs."""

    def __str__(self) -> str:
        return str(self.args[0])


def missing_keys(misconceptions: dict[str, Misconception]) -> list[str]:
    """The keys of `REQUIRED` that ``misconceptions`` lacks, each said in words."""
    return [f"the misconception table has no {key!r} entry, which the grader names when {why} "
            f"(add \"{key}\": Misconception(\"{key}\", \"<what the learner did wrong>\", LESSON))"
            for key, why in REQUIRED.items() if key not in misconceptions]


@dataclass(frozen=True, kw_only=True)
class _Judge:
    """What both kinds share: the function's name, its misconceptions, what it must not change."""

    function: str
    misconceptions: dict[str, Misconception]
    unchanged: Unchanged = Unchanged()
    # How a hidden edge case's arguments vary per student (`autograder.checks.suite.seeded`): a new
    # example that tests the same idea. None: the examples are run as written.
    vary: Callable[[random.Random, list], list] | None = None

    def __post_init__(self) -> None:
        lacking = missing_keys(self.misconceptions)
        if lacking:
            raise MissingMisconception(f"{self.function}'s suite: " + "; ".join(lacking) + ".")

    def varied(self, args: list, draw: Draw | None = None) -> list:
        """``args``, or under the current seed a variation of them: the example ``draw`` makes,
        or else ``vary``'s."""
        rng = variation(args) if draw is not None or self.vary is not None else None
        if rng is None:
            return args
        return draw(rng) if draw is not None else self.vary(rng, copy.deepcopy(args))

    def fail(self, check: str, args: list, got: str, expected: str,
             misconception: Misconception) -> CheckFailed:
        return fail(check, self.function, args, got, expected, misconception)

    def named(self, *args: Any) -> Misconception:
        """The diagnosis of a wrong answer; in the student install, where it would need an
        answer of the reference that was not recorded (`autograder.checks.recorded`), a plain
        one."""
        try:
            return self.diagnose(*args)
        except NotRecorded:
            return Misconception(
                "unnamed", "the answer differs from the expected one in a way this install "
                "cannot name (it holds only the answers its checks were recorded with): compare "
                "the two line by line. Grading names the idea behind it.",
                self.misconceptions["crash"].lesson)

    def require_unchanged(self, check: str, args: list, value: Any, after: list | None) -> None:
        self.unchanged.require(check, self.function, args, value, after,
                               self.misconceptions["mutates-input"])

    def check(self, call: Caller, check: str, args: list) -> None:
        """The course's answer exactly, and the arguments left as they were."""
        raise NotImplementedError

    def value(self, call: Caller, check: str, args: list) -> Any:
        """Call on input the function must answer; fail unless a well-formed answer comes back."""
        raise NotImplementedError

    def refuted(self, check: str, args: list, got: Any, expected: str) -> CheckFailed:
        """The failure of a property that does not hold for the answer ``got``."""
        raise NotImplementedError

    def called(self, call: Caller, check: str, args: list) -> Any:
        """Call, judging nothing but a crash or a missing function: what came back
        (``value``, ``args_after``), whatever its shape."""
        raise NotImplementedError

    def case(self, name: str, *args: Any, draw: Draw | None = None) -> Check:
        """A named example: called with ``args`` (or what ``draw`` makes for a student, see
        `varied`), the function gives the course's answer."""
        arguments = list(args)
        return Check(name, lambda call: self.check(call, name, self.varied(arguments, draw)))

    def answers(self, name: str, expected: Any, *args: Any) -> Check:
        """A named example whose answer is written out: called with ``args``, the function gives
        ``expected`` (for a function that must raise: an instance of ``error``). Visible checks
        are written so, and the student install computes no answer of the course's."""
        judge = self.knowing(expected)
        arguments = list(args)
        return Check(name, lambda call: judge.check(call, name, arguments))

    def knowing(self, expected: Any) -> _Judge:
        """This judge, with ``expected`` as the course's answer to every call."""
        raise NotImplementedError

    def shows(self, name: str, test: Test, *args: Any) -> Check:
        """One side of a named example: called with ``args``, ``test`` holds for the answer."""
        written = list(args)

        def run(call: Caller) -> None:
            arguments = self.varied(written)
            got = self.value(call, name, arguments)
            try:
                expected = test(arguments, got)
            except CheckFailed as exc:  # a test that says its own failure, under this name
                raise CheckFailed(replace(exc.failure, check=name)) from None
            if expected is not None:
                raise self.refuted(name, arguments, got, expected)

        return Check(name, run)

    def well_formed(self, name: str, *args: Any) -> Check:
        """One side of a named example: the answer has the right shape (see `shows`)."""
        return self.shows(name, _holds, *args)

    def left_alone(self, name: str, *args: Any) -> Check:
        """One side of a named example: the call leaves its arguments as they were (whatever
        it returns: a wrong answer is the other sides' to say)."""
        written = list(args)

        def run(call: Caller) -> None:
            arguments = self.varied(written)
            got = self.called(call, name, arguments)
            self.require_unchanged(name, arguments, got.value, got.args_after)

        return Check(name, run)

    def leaves_alone(self, name: str, strategy: st.SearchStrategy,
                     max_examples: int = 60) -> Check:
        """On generated arguments, a call leaves its arguments as they were (whatever it
        returns, as `left_alone`)."""

        def body(call: Caller, example: Any) -> None:
            args = list(example)
            outcome = self.called(call, name, args)
            self.require_unchanged(name, args, outcome.value, outcome.args_after)

        return property_check(name, strategy, body, max_examples)

    def matches(self, name: str, strategy: st.SearchStrategy, max_examples: int = 60) -> Check:
        """On generated arguments, the function gives the course's answer."""
        return property_check(name, strategy,
                              lambda call, example: self.check(call, name, list(example)),
                              max_examples)

    def holds(self, name: str, strategy: st.SearchStrategy, test: Test,
              max_examples: int = 60) -> Check:
        """On generated arguments, ``test`` holds for every answer (see `Test`)."""

        def body(call: Caller, example: Any) -> None:
            args = list(example)
            got = self.value(call, name, args)
            expected = test(args, got)
            if expected is not None:
                raise self.refuted(name, args, got, expected)

        return property_check(name, strategy, body, max_examples)


@dataclass(frozen=True, kw_only=True)
class Compare(_Judge):
    """A function that must return the course's answer.

    ``expected`` is the course's function, called as the learner's is (``expected(*args)``);
    ``diagnose(args, got)`` names the likeliest wrong idea behind a wrong answer; ``malformed(got)``
    is true for an answer not even of the right shape; ``render`` shows an answer (what came back
    and what was expected) in a failure; ``expected_text(*args)``, when given, says the expected
    answer instead.
    """

    expected: Callable[..., Any]
    diagnose: Callable[[list, Any], Misconception]
    malformed: Callable[[Any], Any] = _never
    render: Callable[[Any], str] = show
    expected_text: Callable[..., str] | None = None

    def knowing(self, expected: Any) -> Compare:
        return replace(self, expected=lambda *args: expected, expected_text=None, vary=None)

    def text(self, args: list) -> str:
        """The expected answer, as a failure says it."""
        if self.expected_text is not None:
            return self.expected_text(*args)
        return self.render(self.expected(*args))

    def wrong(self, check: str, args: list, got: Any, expected: str,
              misconception: Misconception | None = None) -> CheckFailed:
        """A wrong answer, named by the diagnosis unless the check names its misconception."""
        return self.fail(check, args, self.render(got), expected,
                         misconception or self.named(args, got))

    def ask(self, call: Caller, check: str, args: list) -> Outcome:
        """Call the learner's function; fail unless it returns a well-formed answer."""
        outcome = call_or_fail(call, check, self.function, args, lambda: self.text(args),
                               self.misconceptions)
        if self.malformed(outcome.value):
            raise self.wrong(check, args, outcome.value, self.text(args))
        return outcome

    def value(self, call: Caller, check: str, args: list) -> Any:
        return self.ask(call, check, args).value

    def called(self, call: Caller, check: str, args: list) -> Outcome:
        return call_or_fail(call, check, self.function, args, lambda: self.text(args),
                            self.misconceptions)

    def check(self, call: Caller, check: str, args: list) -> None:
        """The course's answer exactly, and the arguments left as they were."""
        outcome = self.ask(call, check, args)
        if outcome.value != self.expected(*args):
            raise self.wrong(check, args, outcome.value, self.text(args))
        self.require_unchanged(check, args, outcome.value, outcome.args_after)

    def refuted(self, check: str, args: list, got: Any, expected: str) -> CheckFailed:
        return self.wrong(check, args, got, expected)

    def about(self, name: str, keys: frozenset[str] | set[str], *args: Any) -> Check:
        """One side of a named example (see `shows`): it fails only when the answer is wrong
        for one of the reasons ``keys``, as the diagnosis names them."""
        written = list(args)

        def run(call: Caller) -> None:
            arguments = self.varied(written)
            got = self.ask(call, name, arguments).value
            if got != self.expected(*arguments) and self.named(arguments, got).key in keys:
                raise self.wrong(name, arguments, got, self.text(arguments))

        return Check(name, run)

    def same_twice(self, name: str, strategy: st.SearchStrategy, expected: str,
                   misconception: Misconception, max_examples: int = 60) -> Check:
        """On generated arguments, two calls give the same answer."""

        def body(call: Caller, example: Any) -> None:
            args = list(example)
            first = self.value(call, name, args)
            second = self.value(call, name, args)
            if first != second:
                raise self.fail(name, args,
                                f"{show(first)} the first time, {show(second)} the second",
                                expected, misconception)

        return property_check(name, strategy, body, max_examples)


@dataclass(frozen=True, kw_only=True)
class CompareOrRaise(_Judge):
    """A function that must return the course's answer, or raise where the course's raises.

    ``expected(args)`` is the course's answer, or the exception it raises (an ``error``); the
    learner's must then raise a ValueError (or a class of its own) whose message names everything
    ``unmentioned(error, detail)`` looks for, and ``describe_error(error)`` says so in a failure.
    ``diagnose(args, got, expected)`` names the likeliest wrong idea behind a wrong `Answer`;
    ``malformed(got)`` is true for a returned answer not even of the right shape.
    """

    expected: Callable[[list], Any]
    error: type[Exception]
    describe_error: Callable[[Any], str]
    unmentioned: Callable[[Any, str], list[str]]
    diagnose: Callable[[list, Answer, Any], Misconception]
    malformed: Callable[[Any], Any]

    def said(self, expected: Any) -> str:
        """The expected answer or error, as a failure says it."""
        return self.describe_error(expected) if isinstance(expected, self.error) else show(expected)

    def knowing(self, expected: Any) -> CompareOrRaise:
        return replace(self, expected=lambda args: expected, vary=None)

    def text(self, args: list) -> str:
        return self.said(self.expected(args))

    def ask(self, call: Caller, check: str, args: list, expected: Expected) -> Answer:
        return answer(call, check, self.function, args, expected, self.misconceptions)

    def wrong(self, check: str, args: list, got: Answer, expected: Any,
              words: str | None = None) -> CheckFailed:
        """A wrong answer or error, named by the diagnosis; ``words`` say what was expected."""
        return self.fail(check, args, got.got(), words or self.said(expected),
                         self.named(args, got, expected))

    def misses(self, got: Answer, expected: Any) -> bool:
        """Whether ``got`` is not what the course's function returns, or does not raise as it
        raises."""
        if isinstance(expected, self.error):
            return got.returned or wrong_kind(got.error) or bool(
                self.unmentioned(expected, got.error))
        return not got.returned or got.not_plain is not None or got.value != expected

    def check(self, call: Caller, check: str, args: list) -> None:
        """It returns what the course's function returns, or raises as it raises."""
        expected = self.expected(args)
        got = self.ask(call, check, args, lambda: self.said(expected))
        if self.misses(got, expected):
            raise self.wrong(check, args, got, expected)
        if not isinstance(expected, self.error):
            self.require_unchanged(check, args, got.value, got.args_after)

    def about(self, name: str, keys: frozenset[str] | set[str], *args: Any) -> Check:
        """One side of a named example (see `shows`): it fails only when the answer or error is
        wrong for one of the reasons ``keys``, as the diagnosis names them."""
        written = list(args)

        def run(call: Caller) -> None:
            arguments = self.varied(written)
            expected = self.expected(arguments)
            got = self.ask(call, name, arguments, lambda: self.said(expected))
            if self.misses(got, expected) and self.named(arguments, got,
                                                            expected).key in keys:
                raise self.wrong(name, arguments, got, expected)

        return Check(name, run)

    def returned(self, call: Caller, check: str, args: list, exact: bool = False) -> Answer:
        """Call on input the function must accept; fail unless it returns a well-formed answer
        (``exact``: the course's answer)."""
        expected = self.expected(args)
        got = self.ask(call, check, args, lambda: show(expected))
        if not got.returned or got.not_plain is not None or (
                got.value != expected if exact else self.malformed(got.value)):
            raise self.wrong(check, args, got, expected)
        return got

    def called(self, call: Caller, check: str, args: list) -> Answer:
        return self.ask(call, check, args, lambda: self.text(args))

    def value(self, call: Caller, check: str, args: list) -> Any:
        return self.returned(call, check, args).value

    def refuted(self, check: str, args: list, got: Any, expected: str) -> CheckFailed:
        return self.wrong(check, args, Answer(got), self.expected(args), expected)
