"""The hidden tests of exercise 01, ``total_tokens``: edge cases and properties."""

from __future__ import annotations

from hypothesis import strategies as st

from autograder.checks.suite import Group
from autograder.checks.suites.total_tokens import TOTAL, case, parts_of

# The arguments of a call: one generated list of parts.
calls = st.lists(st.integers(0, 10_000), max_size=20).map(lambda t: [parts_of(*t)])


GROUPS = (
    Group(
        "edge-cases",
        "Zero-token parts, one big part among small ones, many parts, the input unchanged.",
        (
            case("parts of zero tokens add nothing", 0, 0, 7, 0),
            case("the first and last parts both count", 9, 1, 1, 1, 9),
            case("a huge part counts in full", 1, 128_000, 2),
            case("two hundred parts of 3 tokens make 600", *([3] * 200)),
            case("two parts whose costs are equal are both counted", 5, 5),
        ),
    ),
    Group(
        "properties",
        "For generated lists of parts: the result is the sum of the tokens, and the parts "
        "are left unchanged.",
        (
            TOTAL.matches("the total equals the sum of every part's tokens", calls),
        ),
    ),
)
