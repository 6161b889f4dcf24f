"""Tests for exercise 05: ``wrapped_cost(chunk_id, text, ratio=4.0) -> int``.

The chunk as sent is ``### [<chunk_id>]\\n```\\n<text>\\n```\\n``
(``packlab.packing.tokens.wrap_chunk``); its cost is ``ceil(len(wrapped) / ratio)``, and a ratio
that is not a positive finite number is a ValueError whose message names ``ratio``.
"""

from __future__ import annotations

import math
import random
import string

from autograder.checks.compare import Draw
from autograder.checks.recorded import Reference
from autograder.checks.suite import (
    Caller,
    Check,
    CheckFailed,
    Failure,
    Group,
    Misconception,
    StudentError,
    Suite,
    common_misconceptions,
    show,
    variation,
)
from packlab.packing.tokens import wrap_chunk

LESSON = "05-counting-tokens-honestly"
FUNCTION = "wrapped_cost"
wrapped_cost = Reference("tokens.wrapped_cost")

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-an-int": Misconception(
        "not-an-int",
        "a cost is a whole number of tokens: return a plain int (not None, a string or a list — "
        "did you forget `return`?).",
        LESSON,
    ),
    "returns-float": Misconception(
        "returns-float",
        "the cost must be an int. `len(...) / ratio` is a float, and so is `//` with a float "
        "ratio; `math.ceil(...)` gives back an int.",
        LESSON,
    ),
    "rounds-down": Misconception(
        "rounds-down",
        "an estimate that may be short must round *up*: `int(x)` and `x // 1` throw the "
        "leftover characters away, `math.ceil(x)` charges a whole token for them.",
        LESSON,
    ),
    "rounds-to-nearest": Misconception(
        "rounds-to-nearest",
        "`round()` rounds 11.25 down to 11, so the leftover characters cost nothing: a "
        "conservative estimate always rounds up, with `math.ceil`.",
        LESSON,
    ),
    "plus-one": Misconception(
        "plus-one",
        "`int(x) + 1` is not rounding up: when the length divides exactly by the ratio, "
        "there is no leftover and no extra token. Use `math.ceil(x)`.",
        LESSON,
    ),
    "forgets-wrapper": Misconception(
        "forgets-wrapper",
        "the chunk is sent wrapped, and the heading line and the two fence lines cost tokens "
        "too: measure the whole wrapped string, not only the text (or the text and its id).",
        LESSON,
    ),
    "forgets-id": Misconception(
        "forgets-id",
        "the id is part of what is sent (`### [doc-7]`): a long id costs more than a short one. "
        "Put the real chunk_id in the heading and count it.",
        LESSON,
    ),
    "ignores-ratio": Misconception(
        "ignores-ratio",
        "the ratio is a parameter: divide by `ratio`, not by a fixed 4 (a cautious caller may "
        "pass 3.0 or 3.5 characters per token).",
        LESSON,
    ),
    "counts-bytes": Misconception(
        "counts-bytes",
        "the estimate counts characters, `len(wrapped)` on the str: `len(wrapped.encode())` "
        "counts UTF-8 bytes, two to four for each non-Latin character.",
        LESSON,
    ),
    "wrong-format": Misconception(
        "wrong-format",
        "the wrapper must be exactly the one in the task: `### [<chunk_id>]`, a newline, three "
        "backticks, a newline, the text, a newline, three backticks, a newline — print your "
        "wrapped string and compare it character by character.",
        LESSON,
    ),
    "no-validation": Misconception(
        "no-validation",
        "a ratio that is 0, negative, NaN or infinite is a mistake in the calling code: check it "
        "first and `raise ValueError(...)`, instead of dividing by it.",
        LESSON,
    ),
    "unclear-error": Misconception(
        "unclear-error",
        "the ValueError should say what is wrong: its message must name `ratio` (for example "
        "\"ratio must be a positive finite number, got 0\").",
        LESSON,
    ),
    "rejects-good-ratio": Misconception(
        "rejects-good-ratio",
        "every positive finite number is a good ratio, whole (3) or not (3.5): only 0, negative "
        "numbers, NaN and infinities are refused.",
        LESSON,
    ),
}

HEADER_AND_FENCES = len(wrap_chunk("", ""))  # 16 characters around the id and the text


def _variants(chunk_id: str, text: str, ratio: float) -> list[tuple[str, int]]:
    """Wrong answers a learner might compute, each with the key of the idea behind it.

    Wrong lengths rounded up come first, then an extra token on exact fits, then wrong lengths
    rounded down or to nearest, and last the right length rounded the wrong way.
    """
    wrapped = len(wrap_chunk(chunk_id, text))
    lengths = [  # (key when this length is used, length, ratio used)
        ("counts-bytes", len(wrap_chunk(chunk_id, text).encode("utf-8")), ratio),
        ("ignores-ratio", wrapped, 4.0),
        ("forgets-wrapper", len(text), ratio),
        ("forgets-wrapper", len(chunk_id) + len(text), ratio),
        ("forgets-id", wrapped - len(chunk_id), ratio),
    ]
    exact = wrapped / ratio
    found = [(key, math.ceil(length / by)) for key, length, by in lengths]
    found.append(("plus-one", int(exact) + 1))
    for rounding in (math.floor, round):
        found += [(key, rounding(length / by)) for key, length, by in lengths]
    found += [("rounds-down", math.floor(exact)), ("rounds-to-nearest", round(exact))]
    return found


# A probe that tells the two rounding mistakes apart, and from a wrong length: the wrapped chunk
# has 27 characters, 27 / 4 = 6.75. Rounding up or to nearest gives 7, rounding down 6; a learner
# who leaves out the id (18 characters) gets 5 and one who leaves out the wrapper gets 1.
PROBE = ("abcdefghi", "OK", 4.0)


def _rounding_mistake(call: Caller | None) -> str | None:
    """Which rounding mistake the learner's function makes on the probe, if any."""
    if call is None:
        return "rounds-down"
    try:
        answer = call(list(PROBE)).value
    except StudentError:
        return None
    exact = len(wrap_chunk(*PROBE[:2])) / PROBE[2]
    if type(answer) is not int:
        return None
    return {math.floor(exact): "rounds-down", round(exact): "rounds-to-nearest"}.get(answer)


def diagnose(chunk_id: str, text: str, ratio: float, got,
             call: Caller | None = None) -> Misconception:
    """Name the likeliest wrong idea behind a wrong cost (``call`` allows one probing call)."""
    expected = wrapped_cost(chunk_id, text, ratio)
    if type(got) is float:
        return MISCONCEPTIONS["returns-float"]
    if type(got) is not int:
        return MISCONCEPTIONS["not-an-int"]
    if got == math.floor(len(wrap_chunk(chunk_id, text)) / ratio) != expected:
        mistake = _rounding_mistake(call)
        if mistake:
            return MISCONCEPTIONS[mistake]
    for key, value in _variants(chunk_id, text, ratio):
        if value == got != expected:
            return MISCONCEPTIONS[key]
    return MISCONCEPTIONS["wrong-format"]


def show_ratio(ratio: float) -> str:
    if isinstance(ratio, float) and not math.isfinite(ratio):
        return f"float({str(ratio)!r})"
    return repr(ratio)


def args_of(chunk_id: str, text: str, ratio: float | None) -> list:
    return [chunk_id, text] if ratio is None else [chunk_id, text, ratio]


def _call_text(args: list) -> str:
    shown = [show(a) for a in args[:2]] + [show_ratio(a) for a in args[2:]]
    return f"{FUNCTION}({', '.join(shown)})"


def failure(name: str, args: list, got: str, expected: str,
            misconception: Misconception) -> CheckFailed:
    # Like `fail`, but a non-finite ratio reads as float('nan'), which the learner can paste.
    return CheckFailed(Failure(name, _call_text(args), got, expected, misconception))


def check_cost(call: Caller, name: str, chunk_id: str, text: str,
               ratio: float | None = None, answer: int | None = None) -> int:
    """Call wrapped_cost and compare with ``answer`` (when written out) or the course's
    reference; return the cost."""
    used = 4.0 if ratio is None else ratio
    expected = wrapped_cost(chunk_id, text, used) if answer is None else answer
    args = args_of(chunk_id, text, ratio)
    length = len(wrap_chunk(chunk_id, text))
    why = f"{expected}: the wrapped chunk has {length} characters and ⌈{length} / {used:g}⌉ = " \
          f"{expected}"
    try:
        got = call(args).value
    except StudentError as exc:
        if exc.kind == "raised" and exc.detail.startswith("ValueError") and "ratio" in exc.detail:
            raise failure(name, args, exc.describe(), why,
                          MISCONCEPTIONS["rejects-good-ratio"]) from exc
        key = "missing" if exc.kind == "missing" else "crash"
        raise failure(name, args, exc.describe(), why, MISCONCEPTIONS[key]) from exc
    if type(got) is not int or got != expected:
        raise failure(name, args, show(got), why, diagnose(chunk_id, text, used, got, call))
    return got


def _letters(rng: random.Random, written: str) -> str:
    """``written`` with each ASCII letter drawn anew (in the same case): its length, and with
    it every cost, stays as written."""
    return "".join(rng.choice(string.ascii_uppercase if ch.isupper() else string.ascii_lowercase)
                   if ch.isascii() and ch.isalpha() else ch for ch in written)


def varied_chunk(name: str, chunk_id: str, text: str, ratio: float | None) -> tuple[str, str]:
    """The id and text a hidden example uses for one student (`autograder.checks.suite.seeded`):
    their ASCII letters drawn anew, so their lengths, and the cost, stay as written (a text the
    check's name quotes stays as it is named)."""
    rng = variation([chunk_id, text, ratio])
    if rng is None:
        return chunk_id, text
    return _letters(rng, chunk_id), text if f"'{text}'" in name else _letters(rng, text)


def case(name: str, chunk_id: str, text: str, ratio: float | None = None) -> Check:
    return Check(name, lambda call: check_cost(call, name, *varied_chunk(name, chunk_id, text,
                                                                         ratio), ratio))


def example(name: str, answer: int, chunk_id: str, text: str,
            ratio: float | None = None) -> Check:
    """A visible example, its cost written out."""
    return Check(name, lambda call: check_cost(call, name, chunk_id, text, ratio, answer))


# The wrong ideas behind a cost that is a whole number, but the wrong one.
WRONG_NUMBER = frozenset(("rounds-down", "rounds-to-nearest", "plus-one", "forgets-wrapper",
                          "forgets-id", "ignores-ratio", "counts-bytes", "wrong-format"))


def check_whole_number(call: Caller, name: str, chunk_id: str, text: str) -> None:
    """wrapped_cost returns an int; whether it is the right one is another check's business."""
    try:
        check_cost(call, name, chunk_id, text)
    except CheckFailed as exc:
        if exc.failure.misconception.key not in WRONG_NUMBER:
            raise


def whole_number(name: str, chunk_id: str, text: str) -> Check:
    return Check(name, lambda call: check_whole_number(call, name, chunk_id, text))


REFUSED_CHUNK = ("doc-7", "Refunds within 30 days.")  # what a bad ratio is tried on


def check_refused(call: Caller, name: str, ratio: float,
                  chunk: tuple[str, str] = REFUSED_CHUNK) -> None:
    """wrapped_cost with a bad ratio must raise ValueError, and its message must name `ratio`."""
    args = [*chunk, ratio]
    expected = "a ValueError whose message names `ratio`"
    try:
        got = call(args).value
    except StudentError as exc:
        if exc.kind == "raised" and exc.detail.startswith("ValueError"):
            if "ratio" in exc.detail:
                return
            raise failure(name, args, exc.describe(), expected,
                          MISCONCEPTIONS["unclear-error"]) from exc
        if exc.kind == "missing":
            raise failure(name, args, exc.describe(), expected,
                          MISCONCEPTIONS["missing"]) from exc
        if exc.fatal:
            raise failure(name, args, exc.describe(), expected, MISCONCEPTIONS["crash"]) from exc
        raise failure(name, args, exc.describe(), expected,
                      MISCONCEPTIONS["no-validation"]) from exc
    raise failure(name, args, f"it returned {show(got)}", expected,
                  MISCONCEPTIONS["no-validation"])


def refusal(name: str, ratio: float, draw: Draw | None = None) -> Check:
    """A bad ratio refused; a hidden one calls with the chunk and ratio ``draw`` makes for the
    student (`autograder.checks.suite.seeded`)."""
    written = [*REFUSED_CHUNK, ratio]

    def run(call: Caller) -> None:
        rng = variation(written) if draw is not None else None
        chunk_id, text, bad = written if rng is None else draw(rng)
        check_refused(call, name, bad, (chunk_id, text))

    return Check(name, run)


# The visible group only: the hidden ones are in autograder/checks/hidden/wrapped_cost.py.
SUITE = Suite(
    function=FUNCTION,
    reference=wrapped_cost,
    groups=(
        Group(
            "visible",
            "The task's example, with the default ratio and with a ratio of 3.",
            (
                whole_number("wrapped_cost returns a whole number of tokens, an int (not a "
                             "float)", "doc-7", "Refunds within 30 days."),
                example("'doc-7' with 'Refunds within 30 days.' costs ⌈44 / 4⌉ = 11: the id, "
                        "the heading and the fences all count, and 44 / 4 divides exactly, so no "
                        "extra token", 11, "doc-7", "Refunds within 30 days."),
                example("the cost rounds up, at the ratio given: the same chunk at 3 characters "
                        "per token costs ⌈44 / 3⌉ = 15", 15, "doc-7", "Refunds within 30 days.",
                        3.0),
                example("one character past a multiple of 4 costs a whole extra token: "
                        "⌈53 / 4⌉ = 14", 14, "faq-2", "Refunds reach the card in 5 days"),
                example("accented letters count as characters, not UTF-8 bytes: ⌈54 / 4⌉ = 14",
                        14, "fr-3", "Échange gratuit, même après l'été."),
                refusal("a ratio of 0 raises a ValueError that names ratio", 0),
            ),
            visible=True,
        ),
    ),
)
