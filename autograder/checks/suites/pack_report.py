"""Tests for exercise 04: ``pack_report(parts, budget) -> {"included", "dropped", "used"}``."""

from __future__ import annotations

from autograder.checks.compare import Compare, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Check, Group, Misconception, Suite, common_misconceptions, show
from autograder.checks.suites.pack import (
    cost,
    first_wrong_turn,
    in_input_order,
    is_id_list,
    parts_of,
    wrong_choice,
)

LESSON = "04-honest-accounting"
FUNCTION = "pack_report"
report = Reference("packers.report")
KEYS = ("included", "dropped", "used")

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-dict": Misconception(
        "not-a-dict",
        "the report is one dict, {\"included\": [...], \"dropped\": [...], \"used\": ...} — not a "
        "tuple, a list or None (did you forget `return`?).",
        LESSON,
    ),
    "missing-key": Misconception(
        "missing-key",
        "the report has exactly three keys, spelled `included`, `dropped` and `used`.",
        LESSON,
    ),
    "field-types": Misconception(
        "field-types",
        "`included` and `dropped` are lists of id strings and `used` is a whole number (an int).",
        LESSON,
    ),
    "returns-parts": Misconception(
        "returns-parts",
        "`included` and `dropped` list each part's id, `part[\"id\"]`, not the part dicts "
        "themselves.",
        LESSON,
    ),
    "break-at-first-miss": Misconception(
        "break-at-first-miss",
        "the walk stops at the first part that does not fit, so the smaller parts after it are "
        "dropped without a chance. Drop that one part and keep going.",
        "03-the-early-stop-trap",
    ),
    "strict-less-than": Misconception(
        "strict-less-than",
        "a part that lands exactly on the budget still fits: compare with `<=`, not `<`.",
        LESSON,
    ),
    "sorts-parts": Misconception(
        "sorts-parts",
        "the parts arrive in priority order: walk them in that order and list the included ids "
        "in that order — never sort, reverse or reorder them.",
        LESSON,
    ),
    "splits-part": Misconception(
        "splits-part",
        "a part is included whole or not at all: include it only when the tokens used so far "
        "plus all of its tokens stay within the budget.",
        LESSON,
    ),
    "not-greedy": Misconception(
        "not-greedy",
        "walk the parts in order and include each one exactly when the tokens used so far plus "
        "its tokens are at most the budget.",
        LESSON,
    ),
    "not-a-partition": Misconception(
        "not-a-partition",
        "every part ends up in exactly one of the two lists: included if it fit, dropped if "
        "not — none left out, none listed twice.",
        LESSON,
    ),
    "dropped-order-lost": Misconception(
        "dropped-order-lost",
        "`dropped` lists the left-out ids in input order, just like `included` — not reversed "
        "or sorted.",
        LESSON,
    ),
    "used-counts-dropped": Misconception(
        "used-counts-dropped",
        "`used` counts only the parts that were included: a dropped part costs nothing.",
        LESSON,
    ),
    "used-wrong": Misconception(
        "used-wrong",
        "`used` is the sum of the tokens of the included parts — not the budget, not what is "
        "left of it.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "reporting must not change the parts it was given: the caller still needs all of them.",
        LESSON,
    ),
}


def shape_problem(got) -> str | None:
    """The key of what is wrong with the report's shape, or None when it is well formed."""
    if type(got) is not dict:
        return "not-a-dict"
    if sorted(got) != sorted(KEYS):
        return "missing-key"
    lists = (got["included"], got["dropped"])
    if all(type(ids) is list for ids in lists) and any(
            type(item) is dict for ids in lists for item in ids):
        return "returns-parts"
    if not all(is_id_list(ids) for ids in lists) or type(got["used"]) is not int:
        return "field-types"
    return None


def content_problem(parts: list[dict], budget: int, got: dict) -> str:
    """The key of the likeliest wrong idea behind a well-formed but wrong report."""
    expected = report(parts, budget)
    included, dropped = got["included"], got["dropped"]
    if included != expected["included"]:
        return wrong_choice(parts, budget, included)
    if sorted(included + dropped) != sorted(part["id"] for part in parts):
        return "not-a-partition"
    if dropped != expected["dropped"]:
        return "dropped-order-lost"
    if got["used"] == sum(part["tokens"] for part in parts):
        return "used-counts-dropped"
    return "used-wrong"


def diagnose(args: list, got) -> Misconception:
    """Name the likeliest wrong idea behind a wrong report."""
    return MISCONCEPTIONS[shape_problem(got) or content_problem(*args, got)]


REPORT = Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=report,
                 diagnose=diagnose, malformed=shape_problem, vary=vary_parts)


def case(name: str, tokens: dict[str, int], budget: int) -> Check:
    return REPORT.case(name, parts_of(tokens), budget)


def example(name: str, answer: tuple[list[str], list[str], int], tokens: dict[str, int],
            budget: int) -> Check:
    """A visible example, its report written out as (included, dropped, used)."""
    included, dropped, used = answer
    return REPORT.answers(name, {"included": included, "dropped": dropped, "used": used},
                          parts_of(tokens), budget)


LESSON_EXAMPLE = (parts_of({"sys": 100, "huge": 80, "a": 15, "b": 10}), 130)

PARTITION = "every part is included or dropped exactly once, both lists in input order"


def partitions_in_order(args: list, got: dict) -> str | None:
    parts, budget = args
    ids = [part["id"] for part in parts]
    lists = (got["included"], got["dropped"])
    if (sorted(lists[0] + lists[1]) != sorted(ids)
            or not all(in_input_order(listed, parts) for listed in lists)):
        return show(report(parts, budget))
    return None


def used_is_honest(args: list, got: dict) -> str | None:
    parts, budget = args
    included_cost = cost(parts, got["included"])
    if got["used"] != included_cost or got["used"] > budget:
        return f"used = {included_cost} (the included parts' tokens), at most {budget}"
    return None


def fits_at_its_turn(args: list, got: dict) -> str | None:
    parts, budget = args
    reason = first_wrong_turn(parts, budget, got["included"])
    if reason:
        return f"{show(report(parts, budget))}, because {reason}"
    return None


# The visible group only: the hidden ones are in autograder/checks/hidden/pack_report.py.
SUITE = Suite(
    function=FUNCTION,
    reference=report,
    groups=(
        Group(
            "visible",
            "The lesson's example, a budget that everything fits in, and an empty list.",
            (
                REPORT.well_formed("pack_report returns a dict with the keys 'included', "
                                   "'dropped' and 'used'; the lists hold ids such as 'sys', not "
                                   "the parts themselves", *LESSON_EXAMPLE),
                REPORT.left_alone("the parts list is left as it was", *LESSON_EXAMPLE),
                REPORT.shows(PARTITION, partitions_in_order, *LESSON_EXAMPLE),
                REPORT.shows("'huge' (80 tokens) does not fit after 'sys' and is dropped; 'a' and "
                             "'b' after it still fit and are included", fits_at_its_turn,
                             *LESSON_EXAMPLE),
                REPORT.shows("used counts the included parts only (100 + 15 + 10 = 125), never "
                             "the dropped ones", used_is_honest, *LESSON_EXAMPLE),
                example("parts of 100, 80, 15 and 10 tokens in a budget of 130 drop only "
                        "'huge'", (["sys", "a", "b"], ["huge"], 125),
                        {"sys": 100, "huge": 80, "a": 15, "b": 10}, 130),
                example("when everything fits, nothing is dropped and used is the total",
                        (["sys", "turn", "chunk"], [], 200),
                        {"sys": 100, "turn": 60, "chunk": 40}, 500),
                example("an empty list of parts gives an empty report that used 0 tokens",
                        ([], [], 0), {}, 100),
                example("dropped ids are listed in input order, not reversed or sorted: 'tool' "
                        "then 'doc'", (["sys", "turn", "ask"], ["tool", "doc"], 70),
                        {"sys": 40, "tool": 90, "turn": 20, "doc": 70, "ask": 10}, 75),
                example("a part that lands exactly on the budget is included: 70 + 50 = 120 in "
                        "a budget of 120", (["rules", "ask"], ["extra"], 120),
                        {"rules": 70, "ask": 50, "extra": 5}, 120),
            ),
            visible=True,
        ),
    ),
)
