"""How a test suite is written: groups of checks that call a student's function through a caller.

A *caller* hides where the student's code runs. The grader's caller sends the arguments to the
sandbox; the notebook's caller (used by nbgrader's test cells and by the learner's own runs) calls
the function in the kernel. Either way a check sees only plain data coming back, so one suite
gives the same verdict in both places.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import hashlib
import itertools
import json
import marshal
import random
import reprlib
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from autograder.worker import NotPlain, plain_args, to_plain, warning_names, with_callables


@dataclass(frozen=True)
class Misconception:
    """A wrong idea a failing check points to, and the lesson that puts it right."""

    key: str
    text: str
    lesson: str


TIMED_OUT = "it did not return within"  # how a timeout's failure begins (`StudentError.describe`)
SKIPPED = "not called: earlier in this group"  # ... and a call not made after it


class StudentError(Exception):
    """The student's function did not return plain data.

    ``kind`` is one of: raised, timeout, crashed, not-plain, missing, skipped, interfered.
    Timeouts, crashes and interference are *fatal*: the grader stops calling this submission's
    code in that group.
    """

    def __init__(self, kind: str, detail: str, clock: str = ""):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.clock = clock  # for a timeout: "cpu" or "wall", whichever stopped it (not shown)

    @property
    def fatal(self) -> bool:
        return self.kind in ("timeout", "crashed", "skipped", "interfered")

    def describe(self) -> str:
        """What came back, in a learner's words."""
        return {
            "raised": f"it raised {self.detail}",
            "timeout": f"{TIMED_OUT} {self.detail} (an endless loop?)",
            "crashed": f"the Python process running it died ({self.detail})",
            "not-plain": f"it returned {self.detail}, not plain Python data",
            "skipped": f"{SKIPPED} {self.detail}",
            "interfered": f"your code interfered with the grader (it sent {self.detail})",
            "missing": f"there is no function called `{self.detail}` "
                       "(was the cell run, or renamed?)",
        }[self.kind]


@dataclass(frozen=True)
class Outcome:
    """What one call gave back: the return value, the arguments as they were afterwards, and
    the warnings it gave (``"UserWarning: message"``)."""

    value: Any
    args_after: list
    warnings: tuple[str, ...] = ()


Caller = Callable[[list], Outcome]


@dataclass(frozen=True)
class Failure:
    """One failing check, told the way a learner needs it."""

    check: str
    call: str
    got: str
    expected: str
    misconception: Misconception

    def message(self) -> str:
        lesson = self.misconception.lesson  # "" for an exercise that goes with no lesson
        return "\n".join([
            f"✗ {self.check}",
            f"    the call:      {self.call}",
            f"    came back:     {self.got}",
            f"    expected:      {self.expected}",
            f"    this suggests: {self.misconception.text}",
            *([f"    revisit:       lessons/{lesson}.ipynb"] if lesson else []),
        ])


class CheckFailed(AssertionError):
    """Raised inside a check; carries the learner-facing `Failure`."""

    def __init__(self, failure: Failure):
        super().__init__(failure.message())
        self.failure = failure


class Examples:
    """The examples a property check tries when every one passes: drawn by Hypothesis once per
    process (``draw``), unless given first from the store (`autograder.checks.example_cache`); and
    the arguments of the first call the check makes on each (``first``, see `ahead`)."""

    def __init__(self, draw: Callable[[], list], first: Callable[[Any], list | None]):
        self._draw = draw
        self._first = first
        self._examples: list | None = None
        self._ahead: dict[int, list | None] = {}  # first calls that depend on no seed

    def __call__(self) -> list:
        if self._examples is None:
            self._examples = self._draw()
        return self._examples

    def drawn(self) -> list:
        """Draw them with Hypothesis, whatever was given (what the store keeps)."""
        return self._draw()

    def give(self, examples: list) -> None:
        """Use ``examples``, exactly what `drawn` gives, instead of drawing them."""
        self._examples = examples
        self._ahead.clear()

    def ahead(self, start: int, stop: int) -> list[list]:
        """The first calls the check makes on examples ``start`` to ``stop``, in order (none for
        an example it stops on without calling). Worked out once, unless the seed varies them."""
        calls = []
        for position, example in enumerate(self()[start:stop], start):
            if position in self._ahead:
                args = self._ahead[position]
            else:
                reads = _SEED_READS[0]
                args = self._first(example)
                if _SEED_READS[0] == reads:
                    self._ahead[position] = args
            if args is not None:
                calls.append(args)
        return calls


@dataclass(frozen=True)
class Check:
    name: str
    run: Callable[[Caller], None]
    examples: Examples | None = None  # a property check's examples


@dataclass(frozen=True)
class Group:
    """The checks behind one nbgrader test cell: the cell passes when every check passes."""

    name: str
    description: str
    checks: tuple[Check, ...]
    visible: bool = False


@dataclass(frozen=True)
class Suite:
    """The tests of one exercise function, and the trusted implementation they compare with."""

    function: str
    groups: tuple[Group, ...]
    reference: Callable
    missing: tuple[str, ...] = ()  # hidden groups not installed here (the student install)

    def group(self, name: str) -> Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(f"suite {self.function!r} has no group {name!r}")


@dataclass
class GroupResult:
    group: str
    passed: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def passed_shown(group: Group, passed: list[str]) -> list[str]:
    """What a learner is shown of the checks of ``group`` that passed: their names for a visible
    group; for a hidden one only how many, since its names would tell what the hidden tests try
    (and its failures show their calls anyway)."""
    if group.visible or not passed:
        return list(passed)
    return [f"{len(passed)} hidden check{'s' if len(passed) > 1 else ''} passed"]


class GroupCaller:
    """The caller a group's checks share.

    After a timeout or crash the group's other calls are not made: the group has failed.
    ``failed`` says whether a check of the group has failed already (the group's points are
    lost, so later checks need only find an example, not the smallest one; see
    `property_check`).
    """

    def __init__(self, call: Caller):
        self._call = call
        self._fatal: StudentError | None = None
        self.failed = False

    def __call__(self, args: list) -> Outcome:
        if self._fatal is not None:
            raise StudentError("skipped", self._fatal.describe())
        try:
            return self._call(args)
        except StudentError as exc:
            if exc.fatal:
                self._fatal = exc
            raise

    def expect(self, calls: list[list]) -> None:
        """The calls coming next, in order (see `expect`)."""
        if self._fatal is None:
            expect(self._call, calls)


def expect(call: Caller, calls: list[list]) -> None:
    """Tell ``call`` the calls about to be made through it, in order, so that a caller with a
    pipe can send them all at once (`autograder.run.sandbox.Sandbox.expect`); the calls themselves
    are made as before, one by one, and anything else may come instead."""
    ahead = getattr(call, "expect", None)
    if ahead is not None:
        ahead(calls)


# --- hidden edge cases vary per student -----------------------------------------------------

_SEED: ContextVar[str] = ContextVar("seed", default="")
_SEED_READS = [0]  # how often `variation` was asked: a computation that asked depends on the seed


def seed_key(student: str, assignment: str) -> str:
    """What a student's hidden edge cases are varied by: the assignment and the student."""
    return f"{assignment}\0{student}"


@contextlib.contextmanager
def seeded(key: str) -> Iterator[None]:
    """Vary the hidden edge cases run inside by ``key`` (none: as written)."""
    token = _SEED.set(key)
    try:
        yield
    finally:
        _SEED.reset(token)


def variation(args: list) -> random.Random | None:
    """The random source that varies this example under the current seed (None: no seed).

    It depends on the seed and the example alone, so the sides of one example and a regrade
    of the same student's work vary it alike."""
    _SEED_READS[0] += 1
    key = _SEED.get()
    if not key:
        return None
    text = f"{key}\0{json.dumps(args, sort_keys=True, default=repr)}"
    return random.Random(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())


def run_group(group: Group, call: Caller, seed: str = "") -> GroupResult:
    """Run every check of a group; collect what passed and what failed. A hidden group's
    edge cases are varied by ``seed`` (see `seeded`); a visible group is run as written."""
    result = GroupResult(group.name)
    call = GroupCaller(call)
    with seeded("" if group.visible else seed):
        for position, check in enumerate(group.checks):
            if check.examples is None and (position == 0
                                           or group.checks[position - 1].examples is not None):
                call.expect(named_example_calls(group.checks[position:]))
            try:
                check.run(call)
            except CheckFailed as exc:
                result.failures.append(exc.failure)
                call.failed = True
            else:
                result.passed.append(check.name)
    return result


def named_example_calls(checks: Sequence[Check]) -> list[list]:
    """The first calls of the named-example checks (those without generated examples) that
    ``checks`` begin with, in order, worked out by the trusted side alone (`first_call`): sent
    ahead at once (`expect`), as a property check's replay sends its examples' calls."""
    calls = []
    for check in itertools.takewhile(lambda check: check.examples is None, checks):
        args = first_call(_run_body(check), None)
        if args is not None:
            calls.append(args)
    return calls


def _run_body(check: Check) -> Callable[[Caller, Any], None]:
    return lambda call, _example: check.run(call)


def in_process_caller(func: Callable) -> Caller:
    """Call ``func`` in this process, on a copy of the arguments, and keep only plain data."""

    def call(args: list) -> Outcome:
        args_copy = with_callables(copy.deepcopy(args))
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = func(*args_copy)
        except Exception as exc:  # noqa: BLE001 - a learner's function may raise anything
            text = str(exc)
            raise StudentError("raised", f"{type(exc).__name__}: {text}" if text else
                               type(exc).__name__) from None
        try:
            return Outcome(to_plain(value), to_plain(plain_args(args_copy, args)),
                           tuple(warning_names(caught)))
        except NotPlain as exc:
            raise StudentError("not-plain", str(exc)) from None

    return call


# --- writing checks -------------------------------------------------------------------------

class _Short(reprlib.Repr):
    """reprlib's shortening, but dicts keep their own key order (as the learner built them)."""

    def repr_dict(self, x: dict, level: int) -> str:
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        items = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}"
                 for k, v in list(x.items())[: self.maxdict]]
        if len(x) > self.maxdict:
            items.append("...")
        return "{" + ", ".join(items) + "}"


_short = _Short()
_short.maxlist, _short.maxdict, _short.maxstring, _short.maxother, _short.maxlevel = 8, 6, 40, 60, 4


def show(value: Any) -> str:
    """A Python-looking rendering of plain data, shortened when it is long."""
    return _short.repr(value)


def show_call(function: str, args: Iterable[Any]) -> str:
    return f"{function}({', '.join(show(a) for a in args)})"


def fail(check: str, function: str, args: list, got: str, expected: str,
         misconception: Misconception) -> CheckFailed:
    """Build the exception a check raises."""
    return CheckFailed(Failure(check, show_call(function, args), got, expected, misconception))


def common_misconceptions(lesson: str) -> dict[str, Misconception]:
    """The two failures every suite shares: the code stopped with an error, or is not there."""
    return {
        "crash": Misconception(
            "crash",
            "the function stops with an error (or never returns) on this input. Run this very "
            "call in a cell and read the message.",
            lesson,
        ),
        "missing": Misconception(
            "missing",
            "the answer cell must define the function with exactly this name. Check the `def` "
            "line, then run the cell.",
            lesson,
        ),
    }


Expected = str | Callable[[], str]  # what a failure says was expected, or how to say it


def said(expected: Expected) -> str:
    """The words of ``expected``, worked out only for a failure that shows them."""
    return expected if isinstance(expected, str) else expected()


def call_or_fail(call: Caller, check: str, function: str, args: list, expected: Expected,
                 misconceptions: dict[str, Misconception]) -> Outcome:
    """Call the student's function; turn an error into a failure pointing at its misconception."""
    try:
        return call(args)
    except StudentError as exc:
        key = "missing" if exc.kind == "missing" else "crash"
        raise fail(check, function, args, exc.describe(), said(expected),
                   misconceptions[key]) from exc


def _same_examples_everywhere() -> None:
    """Make generated examples depend on the check alone, not on what else is imported.

    Hypothesis mixes in constants it finds in the "local" modules already imported, and those
    differ between a notebook's kernel and the grader's process, which would hand the two
    different examples (and possibly different scores). Using none keeps them identical; it also
    stops Hypothesis writing a .hypothesis/ cache into the learner's folder.
    """
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants"):
        empty = providers.Constants()
        providers._get_local_constants = lambda: empty
        providers.CONSTANTS_CACHE.cache.clear()


_same_examples_everywhere()


# --- functions that may raise on purpose -------------------------------------------------------

# Builtin exceptions a validation error must not be (a class of the learner's own is accepted:
# the grader cannot see its base class).
OTHER_ERRORS = frozenset(
    name for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException) and not issubclass(obj, ValueError)
)


@dataclass(frozen=True)
class Answer:
    """What the learner's function did: returned a plain ``value``, raised ``error``, or neither."""

    value: Any = None
    args_after: Any = None
    error: str | None = None  # "ClassName: message" when it raised
    not_plain: str | None = None  # it returned something that is not plain data
    warnings: tuple[str, ...] = ()  # the warnings it gave, when it returned

    @property
    def returned(self) -> bool:
        return self.error is None

    def got(self) -> str:
        if self.error is not None:
            return f"it raised {self.error}"
        if self.not_plain is not None:
            return f"it returned without raising, but not plain Python data ({self.not_plain})"
        return show(self.value)


def answer(call: Caller, check: str, function: str, args: list, expected: Expected,
           misconceptions: dict[str, Misconception]) -> Answer:
    """Call a function that may raise on purpose; a timeout, crash or missing function fails."""
    try:
        result = call(args)
    except StudentError as exc:
        if exc.kind == "raised":
            return Answer(error=exc.detail)
        if exc.kind == "not-plain":
            return Answer(not_plain=exc.detail)
        key = "missing" if exc.kind == "missing" else "crash"
        raise fail(check, function, args, exc.describe(), said(expected),
                   misconceptions[key]) from exc
    return Answer(result.value, result.args_after, warnings=result.warnings)


def error_parts(detail: str) -> tuple[str, str]:
    """``"ValueError: the message"`` → ``("ValueError", "the message")``."""
    kind, _, message = detail.partition(": ")
    return kind.strip(), message


def wrong_kind(detail: str) -> bool:
    """Did it raise a builtin exception that is not a ValueError?"""
    return error_parts(detail)[0] in OTHER_ERRORS


NONDETERMINISTIC = (
    "your function gave different answers for the same input: it did not answer the same way "
    "twice, and the wrong answer counts. A packer must be deterministic — same parts, same "
    "budget, same answer. Look for state kept between calls (a global counter, a list that "
    "grows, random choices). Before that: "
)


def answered_differently(first: Failure) -> Failure:
    """``first``, a wrong answer the function did not give again for the same input: it counts,
    told as an answer that changes from call to call."""
    wrong = first.misconception
    return Failure(first.check, first.call, first.got, first.expected,
                   Misconception("nondeterministic", NONDETERMINISTIC + wrong.text, wrong.lesson))


def nondeterministic(flaky: Flaky) -> Failure:
    """The failure of a search whose failing example passed when it was tried again."""
    found = [e for e in getattr(flaky, "exceptions", ()) if isinstance(e, CheckFailed)]
    if not found:
        lesson = "01-the-window-is-finite"
        return Failure("the same input always gives the same answer", "(several calls)",
                       "different answers for the same input", "the same answer every time",
                       Misconception("nondeterministic", NONDETERMINISTIC.removesuffix(
                           " Before that: "), lesson))
    return answered_differently(found[0].failure)


class Transcript:
    """A caller that notes every call it passes on, as JSON text, and a digest of what came
    back (`_said`).

    Calls are plain JSON data both ways, so the text is an exact record that no later change
    to the objects can alter.
    """

    def __init__(self, call: Caller):
        self._call = call
        self.entries: list[tuple[str, str]] = []

    def __call__(self, args: list) -> Outcome:
        sent = json.dumps(args)
        try:
            outcome = self._call(args)
        except StudentError as exc:
            self.entries.append((sent, _said(exc)))
            raise
        self.entries.append((sent, _said(outcome)))
        return outcome

    def expect(self, calls: list[list]) -> None:
        expect(self._call, calls)

    @property
    def repeatable(self) -> bool:
        """Did every call come back without a timeout, crash or interference?"""
        return not any(said.startswith("fatal ") for _, said in self.entries)


def _said(result: Outcome | StudentError) -> str:
    """What came back, as its kind and a digest of it: a remembered search keeps these, not
    the answers (which may be megabytes each)."""
    if isinstance(result, StudentError):
        kind = "fatal" if result.fatal else "error"
        text = json.dumps([kind, result.kind, result.detail])
    else:
        kind, text = "ok", json.dumps(["ok", result.value, result.args_after, result.warnings])
    return f"{kind} {hashlib.sha256(text.encode()).hexdigest()}"


def _answers_alike(call: Caller, made: list[tuple[str, str]],
                   known: list[tuple[str, str]]) -> bool:
    """Does the function answer every call of ``known`` as it did there?

    ``made`` are the calls already made of it (their answers are compared without calling
    again); the rest are made now, stopping at the first answer that differs.
    """
    if len(made) > len(known) or known[:len(made)] != made:
        return False
    for sent, said in known[len(made):]:
        try:
            result = call(json.loads(sent))
        except StudentError as exc:
            if exc.fatal:
                return False
            result = exc
        if _said(result) != said:
            return False
    return True


MAX_REMEMBERED_FAILURES = 16
BATCH = 16  # examples whose calls a replay announces at once (`expect`)


class _Called(BaseException):
    """Raised by `first_call`'s caller, through the check's code, with the call's arguments."""


def plain_copy(value: Any) -> Any:
    """A deep copy of ``value``, quick for plain data (lists, tuples, dicts and scalars): the
    examples and arguments a check copies hundreds of times a notebook are copied by `marshal`
    (in C; its version 2 keeps no shared references, so every part is a copy of its own, as
    part by part), anything marshal does not write part by part. (marshal would give a buffer,
    a bytearray say, back as bytes: no example or argument holds one, they cross to the sandbox
    as JSON.)"""
    if type(value) in (list, dict, tuple):
        try:
            return marshal.loads(marshal.dumps(value, 2))
        except ValueError:  # an object marshal does not write: copied part by part
            pass
    return _copy(value)


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind in (str, int, float, bool) or value is None:
        return value
    if kind is list:
        return [_copy(item) for item in value]
    if kind is dict:
        return {_copy(key): _copy(item) for key, item in value.items()}
    if kind is tuple:
        return tuple(_copy(item) for item in value)
    return copy.deepcopy(value)


def first_call(body: Callable[[Caller, Any], None], example: Any) -> list | None:
    """The arguments ``body`` calls the function with first on ``example``; None when it
    stops without calling (the calls are plain data, worked out by the trusted side alone)."""

    def called(args: list) -> Outcome:
        raise _Called(args)

    try:
        body(called, plain_copy(example))
    except _Called as exc:
        return exc.args[0]
    except Exception:  # noqa: BLE001 - the check itself will say why, when it is run
        return None
    return None


def property_check(name: str, strategy: st.SearchStrategy, body: Callable[[Caller, Any], None],
                   max_examples: int = 60) -> Check:
    """A check that runs ``body(call, example)`` on generated examples.

    Examples are derandomised, so the notebook and the grader see the same ones and agree: the
    examples a search tries when every one passes depend on the strategy alone. They are
    generated once per process (`examples`) and replayed straight away: an answer that passes
    them all passes the search. One that fails any gets the real search, with its shrinking to
    the smallest failing example and its message. A timeout or crash stops at once (no
    shrinking through endless loops).

    A failed search is remembered, as the calls it made and what came back. The search is
    deterministic: given the same answers to the same calls it makes the same calls and ends in
    the same failure. So an answer that gives every remembered call the remembered answer gets
    that search's failure without the search (scores and messages exactly as the search would
    give them, whatever order the class is graded in).

    When an earlier check of the group has failed (the group's points are lost already), a
    failing answer is shown the smallest of the replayed examples it fails, without a search.

    A wrong answer always counts: when the replay found one and the search then finds none (the
    function answered right when asked again), the check fails on the replay's example, told
    that the function did not answer the same way twice.
    """
    failed_searches: list[tuple[list[tuple[str, str]], Failure]] = []  # most recent first

    def search_with(call: Caller | None, seen: list[Any]) -> None:
        """Hypothesis's search; with no ``call``, only note the examples it generates.

        The source of ``search`` below seeds Hypothesis (derandomised): an edit to it, even a
        reordering, draws other examples, in the notebook and the grader alike."""
        fatal: list[CheckFailed] = []

        @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                  report_multiple_bugs=False,
                  suppress_health_check=list(HealthCheck),
                  phases=[Phase.explicit, Phase.generate, Phase.shrink])
        @given(strategy)
        def search(example: Any) -> None:
            if fatal:
                return
            seen.append(copy.deepcopy(example))
            if call is None:
                return
            try:
                body(call, example)
            except CheckFailed as exc:
                if isinstance(exc.__cause__, StudentError) and exc.__cause__.fatal:
                    fatal.append(exc)
                    return
                raise

        try:
            search()
        except CheckFailed as exc:
            raise CheckFailed(exc.failure) from None
        except Flaky as exc:
            raise CheckFailed(nondeterministic(exc)) from None
        if fatal:
            raise fatal[0]

    def generate() -> list[Any]:
        """The examples the search tries when every one passes."""
        generated: list[Any] = []
        search_with(None, generated)
        return generated

    examples = Examples(generate, lambda example: first_call(body, example))

    def replay(call: Caller, every: bool = False) -> list[tuple[Any, Failure]]:
        """Run the examples in order; the failures (the first only, unless ``every``).

        The calls of each `BATCH` of examples are announced before they are made (`expect`)."""
        failures = []
        drawn = examples()
        for start in range(0, len(drawn), BATCH):
            expect(call, examples.ahead(start, start + BATCH))
            for example in drawn[start:start + BATCH]:
                try:
                    body(call, plain_copy(example))
                except CheckFailed as exc:
                    if isinstance(exc.__cause__, StudentError) and exc.__cause__.fatal:
                        raise
                    failures.append((example, exc.failure))
                    if not every:
                        return failures
        return failures

    def known_failure(call: Caller, made: list[tuple[str, str]]) -> Failure | None:
        for position, (calls, failure) in enumerate(failed_searches):
            if _answers_alike(call, made, calls):
                failed_searches.insert(0, failed_searches.pop(position))
                return failure
        return None

    def search(call: Caller, failing: Any) -> None:
        """The real search, whose calls up to the ``failing`` example the replay found are
        announced (`expect`): the search tries the same examples first."""
        transcript = Transcript(call)
        upto = next((n for n, e in enumerate(examples()) if e is failing), -1) + 1
        expect(transcript, examples.ahead(0, upto))
        try:
            search_with(transcript, [])
        except CheckFailed as exc:
            if transcript.repeatable and exc.failure.misconception.key != "nondeterministic":
                failed_searches.insert(0, (transcript.entries, exc.failure))
                del failed_searches[MAX_REMEMBERED_FAILURES:]
            raise

    def run(call: Caller) -> None:
        if getattr(call, "failed", False):
            failures = replay(call, every=True)
            if failures:
                raise CheckFailed(min(failures, key=lambda found: len(repr(found[0])))[1])
            return
        made = Transcript(call)
        failed = replay(made)
        if not failed:
            return
        failure = known_failure(call, made.entries)
        if failure is not None:
            raise CheckFailed(failure)
        search(call, failed[0][0])
        # The search found nothing: asked again, the function answered right. Its wrong answer
        # in the replay still counts.
        raise CheckFailed(answered_differently(failed[0][1]))

    return Check(name, run, examples)
