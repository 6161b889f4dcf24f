"""The hidden tests of exercise 07, ``pack_with_reasons``: edge cases and properties."""

from __future__ import annotations

from hypothesis import strategies as st

from autograder.checks.hidden.pack import NAMES
from autograder.checks.reference.reasons import pack_with_reasons
from autograder.checks.suite import Check, Group, show
from autograder.checks.suites.drop_reasons import (
    MISCONCEPTIONS,
    PACKER,
    UNCHANGED,
    case,
    ranked,
    reasons_problem,
)
from autograder.checks.suites.pack import in_input_order
from autograder.checks.suites.pack_report import used_is_honest
from packlab.packing.reasons import reason_for

examples = st.tuples(
    st.lists(st.tuples(st.integers(0, 150), st.integers(0, 3)), max_size=len(NAMES)).map(
        lambda rows: [{"id": key, "tokens": tokens, "priority": priority}
                      for key, (tokens, priority) in zip(NAMES, rows, strict=False)]),
    st.integers(0, 400),
)

PARTITION = "every id is included or dropped exactly once"
INCLUDED_ORDER = "included ids are listed in input order"
DROPPED_ORDER = "dropped entries are listed in input order"
REASONS_RIGHT = ("every reason is right by definition: too large exactly when the part alone "
                 "exceeds the whole budget")
HONEST_USED = "used is the sum of the included parts' tokens and within the budget"
GREEDY = "the included ids are exactly what greedy packing by priority takes"
SAME_TWICE = "the same input gives the same output, call after call"


def partitions(args: list, got: dict) -> None:
    listed = got["included"] + [drop["id"] for drop in got["dropped"]]
    if sorted(listed) != sorted(part["id"] for part in args[0]):
        raise PACKER.wrong(PARTITION, args, got, show(pack_with_reasons(*args)),
                           MISCONCEPTIONS["not-a-partition"])


def listed_in_input_order(name: str, key: str, ids) -> Check:
    """The ``key`` list's ids (``ids(got[key])``) are in input order."""

    def test(args: list, got: dict) -> None:
        if not in_input_order(ids(got[key]), args[0]):
            raise PACKER.wrong(name, args, got,
                               f"{key} = {show(pack_with_reasons(*args)[key])}",
                               MISCONCEPTIONS["output-in-priority-order"])

    return PACKER.holds(name, examples, test)


def reasons_by_definition(args: list, got: dict) -> None:
    parts, budget = args
    tokens = {part["id"]: part["tokens"] for part in parts}
    for drop in got["dropped"]:
        if drop["id"] in tokens and drop["reason"] != reason_for(tokens[drop["id"]], budget):
            size = tokens[drop["id"]]
            sign = ">" if size > budget else "≤"
            raise PACKER.wrong(REASONS_RIGHT, args, got,
                               f"{drop['id']!r} dropped as {reason_for(size, budget)!r}, because "
                               f"{size} {sign} {budget} (the whole budget)",
                               MISCONCEPTIONS[reasons_problem(parts, budget, got["dropped"])])


def greedy_by_priority(args: list, got: dict) -> str | None:
    expected = pack_with_reasons(*args)["included"]
    if got["included"] != expected:
        return f"included = {show(expected)}"
    return None


GROUPS = (
    Group(
        "edge-cases",
        "Exact fits, too large against the whole budget, ties, priority order, zero "
        "budgets, an empty list, the order of both lists, the input unchanged.",
        (
            case("a part exactly the size of the budget is included when it is alone",
                 ranked(("doc", 100, 5)), 100),
            case("a part bigger than the budget is single-chunk-too-large even when nothing "
                 "else is taken", ranked(("doc", 101, 5)), 100),
            case("a part that fits alone but not after a higher-priority one is over-budget",
                 ranked(("sys", 60, 9), ("doc", 80, 5)), 100),
            case("a part exactly the budget, dropped behind another, is over-budget, not "
                 "too large", ranked(("sys", 10, 9), ("doc", 100, 5)), 100),
            case("parts of equal priority are packed in input order",
                 ranked(("chunk-b", 40, 5), ("chunk-c", 40, 5), ("chunk-a", 40, 5)), 80),
            case("priority decides who goes first, not the position in the list",
                 ranked(("memo", 60, 1), ("note", 30, 2), ("sys", 50, 9)), 100),
            case("with a budget of 0 every positive part is too large and zero-token parts "
                 "are included",
                 ranked(("note", 0, 1), ("sys", 5, 9), ("memo", 0, 2), ("doc", 3, 5)), 0),
            case("an empty list gives an empty result that used 0 tokens", [], 100),
            case("a too-large part first is dropped and the walk goes on to the small ones",
                 ranked(("doc", 500, 9), ("turn", 10, 5), ("note", 20, 4), ("ask", 30, 3)),
                 100),
            case("included and dropped keep the input order, not the priority order",
                 ranked(("memo", 10, 1), ("doc", 70, 5), ("sys", 30, 9), ("log", 40, 6),
                        ("turn", 20, 7)), 75),
            case("priorities may be any numbers, fractions and negatives included",
                 ranked(("old", 40, -1), ("doc", 40, 0.5), ("sys", 40, 2.25),
                        ("tip", 40, 0.25)), 100),
            PACKER.left_alone("the parts list is left exactly as it was",
                              ranked(("memo", 40, 1), ("doc", 90, 5), ("sys", 30, 9)), 80),
            case("'doc' (90 tokens, more than the whole budget of 80) is dropped as "
                 "single-chunk-too-large and the lower-priority 'memo' still goes in",
                 ranked(("memo", 40, 1), ("doc", 90, 5), ("sys", 30, 9)), 80),
        ),
    ),
    Group(
        "properties",
        "For generated parts, priorities and budgets: a partition, both lists in input "
        "order, every reason right by definition, an honest `used`, greedy by priority, "
        "the same answer twice, the parts unchanged.",
        (
            PACKER.holds(PARTITION, examples, partitions),
            listed_in_input_order(INCLUDED_ORDER, "included", lambda ids: ids),
            listed_in_input_order(DROPPED_ORDER, "dropped",
                                  lambda drops: [drop["id"] for drop in drops]),
            PACKER.holds(REASONS_RIGHT, examples, reasons_by_definition),
            PACKER.holds(HONEST_USED, examples, used_is_honest),
            PACKER.holds(GREEDY, examples, greedy_by_priority),
            PACKER.same_twice(SAME_TWICE, examples, "the same result both times",
                              MISCONCEPTIONS["nondeterministic"]),
            PACKER.leaves_alone(UNCHANGED, examples),
        ),
    ),
)
