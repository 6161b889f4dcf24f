"""The hidden tests of exercise 04, ``pack_report``: edge cases and properties."""

from __future__ import annotations

from autograder.checks.hidden.pack import examples
from autograder.checks.reference.packers import greedy
from autograder.checks.suite import Group, show
from autograder.checks.suites.pack import parts_of
from autograder.checks.suites.pack_report import (
    PARTITION,
    REPORT,
    case,
    fits_at_its_turn,
    partitions_in_order,
    used_is_honest,
)

MIDDLE_MISS = (parts_of({"sys": 40, "doc": 90, "turn": 30}), 80)
HONEST_USED = "used is the sum of the included parts' tokens and within the budget"
FITS_AT_ITS_TURN = "each part is included when it fits at its turn and dropped only when not"
GREEDY = "the included ids are exactly what greedy packing takes"
UNCHANGED = "the parts list is left as it was"


def includes_greedy_choice(args: list, got: dict) -> str | None:
    expected = greedy(*args)
    if got["included"] != expected:
        return f"included = {show(expected)}"
    return None


GROUPS = (
    Group(
        "edge-cases",
        "Exact fits, zero budgets and zero-token parts, oversized parts, the order of both "
        "lists, what `used` counts, the input unchanged.",
        (
            case("dropped ids are listed in input order, not reversed or sorted",
                 {"sys": 50, "doc": 80, "turn": 70, "ask": 90, "log": 5}, 60),
            case("a part that lands exactly on the budget is included",
                 {"sys": 60, "doc": 40}, 100),
            case("with a budget of 0, only parts of 0 tokens are included",
                 {"note": 0, "sys": 5, "memo": 0, "doc": 3}, 0),
            case("parts of 0 tokens are always included, even when the budget is used up",
                 {"note": 0, "doc": 50, "ask": 0, "log": 60, "memo": 0}, 50),
            case("a huge first part is dropped and the small ones after it are included",
                 {"doc": 500, "turn": 10, "note": 20, "ask": 30}, 100),
            case("when every part is bigger than the budget, all are dropped and used is 0",
                 {"doc": 200, "log": 300}, 100),
            case("used counts the included parts only, never the dropped ones",
                 {"sys": 30, "doc": 400, "turn": 20}, 100),
            case("the lists hold ids such as 'sys', not the parts themselves",
                 {"sys": 10, "doc": 90, "turn": 20}, 50),
            case("parts of the same size are included in input order until the budget runs out",
                 {"turn1": 30, "turn2": 30, "turn3": 30, "turn4": 30}, 90),
            case("a part too big for the budget in the middle is dropped and the walk goes on",
                 {"sys": 20, "doc": 500, "turn": 20, "ask": 20}, 60),
            REPORT.left_alone("the parts list is left exactly as it was", *MIDDLE_MISS),
            case("a part bigger than the budget is dropped and the part after it is still "
                 "included", {"sys": 40, "doc": 90, "turn": 30}, 80),
        ),
    ),
    Group(
        "properties",
        "For generated parts and budgets: a partition in input order, an honest `used`, "
        "each part placed by whether it fit at its turn, the parts unchanged.",
        (
            REPORT.holds(PARTITION, examples, partitions_in_order),
            REPORT.holds(HONEST_USED, examples, used_is_honest),
            REPORT.holds(FITS_AT_ITS_TURN, examples, fits_at_its_turn),
            REPORT.holds(GREEDY, examples, includes_greedy_choice),
            REPORT.leaves_alone(UNCHANGED, examples),
        ),
    ),
)
