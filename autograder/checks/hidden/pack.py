"""The hidden tests of exercises 02 and 03, ``pack``: edge cases and properties."""

from __future__ import annotations

from hypothesis import strategies as st

from autograder.checks.suite import Group
from autograder.checks.suites.pack import (
    PACK,
    WITHIN_BUDGET,
    case,
    fits_at_its_turn,
    keeps_input_order,
    parts_of,
    stays_within_budget,
)

# Ids for generated parts, deliberately not in alphabetical order.
NAMES = ("sys", "turn2", "doc", "tool", "memo", "chunk", "turn1", "note", "ask", "log", "rule",
         "fact", "ex", "hist", "code")


examples = st.tuples(
    st.lists(st.integers(0, 200), max_size=len(NAMES)).map(
        lambda tokens: parts_of(dict(zip(NAMES, tokens, strict=False)))),
    st.integers(0, 600),
)
MIDDLE_MISS = (parts_of({"sys": 40, "doc": 90, "turn": 30}), 80)

IN_ORDER = "the ids come from the input, each at most once, in input order"
FITS_AT_ITS_TURN = "each part is taken exactly when it still fits at its turn"
UNCHANGED = "the parts list is left as it was"


GROUPS = (
    Group(
        "edge-cases",
        "Exact fits, zero budgets and zero-token parts, oversized parts first, last or in "
        "the middle, ids and their order, the input unchanged.",
        (
            case("a part that lands exactly on the budget is taken",
                 {"sys": 60, "doc": 40}, 100),
            case("with a budget of 0, only parts of 0 tokens fit",
                 {"note": 0, "sys": 5, "memo": 0, "doc": 3}, 0),
            case("an empty list of parts packs to an empty list", {}, 100),
            case("parts of 0 tokens always fit, even when the budget is used up",
                 {"note": 0, "doc": 50, "ask": 0, "log": 60, "memo": 0}, 50),
            case("a huge first part is skipped and the small ones after it are taken",
                 {"doc": 500, "turn": 10, "note": 20, "ask": 30}, 100),
            case("when every part is bigger than the budget, nothing is taken",
                 {"doc": 200, "log": 300}, 100),
            PACK.left_alone("the parts list is left exactly as it was", *MIDDLE_MISS),
            case("a part bigger than the budget is skipped and the part after it still "
                 "goes in", {"sys": 40, "doc": 90, "turn": 30}, 80),
            case("the answer lists ids such as 'sys', not the parts themselves",
                 {"sys": 10, "turn": 20}, 50),
            case("small parts after a big one come back in input order, never sorted by size",
                 {"doc": 70, "log": 90, "turn": 20, "ask": 5}, 100),
            case("parts of the same size are taken in input order until the budget runs out",
                 {"turn1": 30, "turn2": 30, "turn3": 30, "turn4": 30}, 90),
            case("a part too big for the budget in the middle is skipped and the walk goes on",
                 {"sys": 20, "doc": 500, "turn": 20, "ask": 20}, 60),
        ),
    ),
    Group(
        "properties",
        "For generated parts and budgets: ids in input order, within the budget, each part "
        "taken exactly when it fits, the parts unchanged.",
        (
            PACK.holds(IN_ORDER, examples, keeps_input_order),
            PACK.holds(WITHIN_BUDGET, examples, stays_within_budget),
            PACK.holds(FITS_AT_ITS_TURN, examples, fits_at_its_turn),
            PACK.leaves_alone(UNCHANGED, examples),
        ),
    ),
)
