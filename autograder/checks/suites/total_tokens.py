"""Tests for exercise 01: ``total_tokens(parts) -> int``."""

from __future__ import annotations

from autograder.checks.compare import Compare, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Check, Group, Misconception, Suite, common_misconceptions

LESSON = "01-the-window-is-finite"
FUNCTION = "total_tokens"
sum_of_tokens = Reference("tokens.sum_of_tokens")

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-an-int": Misconception(
        "not-an-int",
        "the total is a whole number of tokens: return a plain int (not a string, a float, "
        "a list or None — did you forget `return`?).",
        LESSON,
    ),
    "counts-parts": Misconception(
        "counts-parts",
        "the total adds up each part's `tokens`, not the number of parts.",
        LESSON,
    ),
    "off-by-one": Misconception(
        "off-by-one",
        "every part counts, the first and the last included: check where your loop starts and "
        "stops, and that the sum starts at 0.",
        LESSON,
    ),
    "wrong-sum": Misconception(
        "wrong-sum",
        "the total is exactly the sum of every part's `tokens` field — nothing added, nothing "
        "left out.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "counting must not change the parts it was given: the caller still needs them.",
        LESSON,
    ),
}


def parts_of(*tokens: int) -> list[dict]:
    return [{"id": f"p{i}", "tokens": t} for i, t in enumerate(tokens, 1)]


def diagnose(args: list, got) -> Misconception:
    """Name the likeliest wrong idea behind a wrong total."""
    if type(got) is not int:
        return MISCONCEPTIONS["not-an-int"]
    tokens = [p["tokens"] for p in args[0]]
    if got == len(args[0]):
        return MISCONCEPTIONS["counts-parts"]
    if tokens and got in (sum(tokens[1:]), sum(tokens[:-1])):
        return MISCONCEPTIONS["off-by-one"]
    return MISCONCEPTIONS["wrong-sum"]


TOTAL = Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=sum_of_tokens,
                diagnose=diagnose, malformed=lambda got: type(got) is not int, vary=vary_parts)


def case(name: str, *tokens: int) -> Check:
    return TOTAL.case(name, parts_of(*tokens))


LESSON_EXAMPLE = parts_of(100, 50, 25)


# The visible group only: the hidden ones are in autograder/checks/hidden/total_tokens.py.
SUITE = Suite(
    function=FUNCTION,
    reference=sum_of_tokens,
    groups=(
        Group(
            "visible",
            "The lesson's example, a single part and an empty list.",
            (
                TOTAL.well_formed("total_tokens returns a whole number, an int (not a string, a "
                                  "float or None)", LESSON_EXAMPLE),
                TOTAL.left_alone("the parts list is left as it was", LESSON_EXAMPLE),
                case("the total adds up every part's tokens, the first and the last included: "
                     "100 + 50 + 25 = 175", 100, 50, 25),
                case("a single part's total is its own tokens", 42),
                case("an empty list costs nothing", ),
            ),
            visible=True,
        ),
    ),
)
