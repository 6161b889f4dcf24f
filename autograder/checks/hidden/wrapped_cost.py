"""The hidden tests of exercise 05, ``wrapped_cost``: edge cases and properties."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from hypothesis import strategies as st

from autograder.checks.suite import Caller, Group, property_check, show
from autograder.checks.suites.wrapped_cost import (
    MISCONCEPTIONS,
    args_of,
    case,
    check_cost,
    check_refused,
    diagnose,
    failure,
    refusal,
)

# Characters from several scripts, whitespace and an emoji; no surrogates, so JSON carries them.
ALPHABET = st.sampled_from(list("abc xyzDOC.,:;-_/\n\t0123456789{}\"'`#éßΩλ日本語返金🙂"))
texts = st.text(ALPHABET, max_size=60)
chunk_ids = st.one_of(
    st.sampled_from(["doc-7", "refunds.md", "kb/42", "a", "chunk-warranty"]),
    st.text(st.sampled_from(list("abcdefgh0123456789-_/.")), min_size=1, max_size=24),
)
ratios = st.sampled_from([1, 1.5, 2, 2.5, 3, 3.0, 3.5, 4, 4.0, 4.5, 5, 6.25, 8])
cost_examples = st.tuples(chunk_ids, texts, ratios)
bad_ratios = st.one_of(
    st.sampled_from([0, 0.0, -0.0, -1, -4.0, math.nan, math.inf, -math.inf]),
    st.floats(max_value=0, allow_nan=False, allow_infinity=False),
)

FORMULA = "the cost is ⌈len(wrapped) / ratio⌉ as an int, for any id, text and ratio"
MONOTONE = "a longer text never costs less than a shorter one"
AT_LEAST_BARE = "the wrapped chunk costs more than its bare text"
BAD_RATIO = "every ratio that is not a positive finite number raises a ValueError naming ratio"


def equals_formula(call: Caller, example: tuple[str, str, float]) -> None:
    check_cost(call, FORMULA, *example)


def monotone_in_text(call: Caller, example: tuple[tuple[str, str, float], str]) -> None:
    (chunk_id, text, ratio), extra = example
    short = check_cost(call, MONOTONE, chunk_id, text, ratio)
    longer = check_cost(call, MONOTONE, chunk_id, text + extra, ratio)
    if longer < short:
        raise failure(MONOTONE, args_of(chunk_id, text + extra, ratio), show(longer),
                      f"at least {short}, the cost of the shorter text {show(text)}",
                      diagnose(chunk_id, text + extra, ratio, longer, call))


def more_than_bare(call: Caller, example: tuple[str, str, float]) -> None:
    chunk_id, text, ratio = example
    got = check_cost(call, AT_LEAST_BARE, chunk_id, text, ratio)
    bare = math.ceil(len(text) / ratio)
    if got <= bare:
        raise failure(AT_LEAST_BARE, args_of(chunk_id, text, ratio), show(got),
                      f"more than {bare}, the cost of the bare text",
                      MISCONCEPTIONS["forgets-wrapper"])


WORDS = ("refunds", "within", "days", "poles", "ship", "free", "the", "warranty", "card", "tent")


def refused(ratio: Callable[[random.Random], float]) -> Callable[[random.Random], list]:
    """A student's own call with a bad ``ratio``: an id and a text of their own."""

    def draw(rng: random.Random) -> list:
        chunk_id = f"{rng.choice(('doc', 'kb', 'faq', 'note'))}-{rng.randint(1, 99)}"
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 8))).capitalize()
        return [chunk_id, text, ratio(rng)]

    return draw


def refuses_bad_ratio(call: Caller, ratio: float) -> None:
    check_refused(call, BAD_RATIO, ratio)


GROUPS = (
    Group(
        "edge-cases",
        "Rounding up (exact and one over), other ratios, the wrapper and the id counted, "
        "empty text, non-Latin text, bad ratios.",
        (
            case("a wrapped length that divides exactly costs no extra token (48 / 4 = 12)",
                 "doc-7", "Refunds within thirty days."),
            case("one character over a multiple of the ratio costs a whole extra token "
                 "(⌈49 / 4⌉ = 13)",
                 "doc-7", "Refunds go back to the card."),
            case("the ratio is honoured: 3.5 characters per token (⌈67 / 3.5⌉ = 20)",
                 "kb/42", "Spare poles are sent free within the warranty.", 3.5),
            case("a whole-number ratio works too: 3 characters per token (⌈67 / 3⌉ = 23)",
                 "kb/42", "Spare poles are sent free within the warranty.", 3),
            case("a generous ratio of 6.25 gives a smaller cost, still rounded up "
                 "(⌈64 / 6.25⌉ = 11)",
                 "faq", "Poles that crack without a fall are a defect.", 6.25),
            case("the wrapper is counted: 'OK' alone is 1 token, wrapped it is 5",
                 "a", "OK"),
            case("the id is counted: a long id costs more than a short one",
                 "manuals/tents/ridgeline-2/poles-and-hubs", "Check the hubs."),
            case("an empty text still pays for its wrapper (⌈21 / 4⌉ = 6)", "doc-7", ""),
            case("Japanese text counts characters, not UTF-8 bytes",
                 "jp-1", "ご注文のテントのポールが二日目の夜に折れました。返金できますか。"),
            case("Greek text and an emoji count characters, not bytes",
                 "el-2", "Ο πάσσαλος έσπασε τη δεύτερη νύχτα ⛺🙂", 3.5),
            case("a big chunk at 2.5 characters per token comes back as an int",
                 "doc-9", "x" * 1001, 2.5),
            refusal("a negative ratio raises a ValueError that names ratio", -4.0,
                    refused(lambda rng: -rng.choice((rng.randint(1, 12),
                                                     round(rng.uniform(0.01, 12), 2))))),
            refusal("a ratio of NaN raises a ValueError that names ratio", math.nan,
                    refused(lambda rng: math.nan)),
            refusal("an infinite ratio raises a ValueError that names ratio", math.inf,
                    refused(lambda rng: math.inf)),
            refusal("a ratio of 0.0 raises a ValueError that names ratio", 0.0,
                    refused(lambda rng: rng.choice((0.0, -0.0)))),
        ),
    ),
    Group(
        "properties",
        "For generated ids, texts and ratios: the formula, monotone in the text, more than "
        "the bare text, every bad ratio refused.",
        (
            property_check(FORMULA, cost_examples, equals_formula),
            property_check(MONOTONE, st.tuples(cost_examples, texts),
                           monotone_in_text),
            property_check(AT_LEAST_BARE, cost_examples, more_than_bare),
            property_check(BAD_RATIO, bad_ratios, refuses_bad_ratio,
                           max_examples=30),
        ),
    ),
)
