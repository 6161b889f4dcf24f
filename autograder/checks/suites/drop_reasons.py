"""Tests for exercise 07: ``pack_with_reasons(parts, budget) -> {"included", "dropped", "used"}``.

Parts carry a priority (higher packed first, ties in input order). Each dropped entry is
``{"id": ..., "reason": "over-budget" | "single-chunk-too-large"}``, and the too-large test is
against the *whole* budget, never what is left of it (a part exactly the budget is not too large).
"""

from __future__ import annotations

from autograder.checks.compare import Compare, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Check, Group, Misconception, Suite, common_misconceptions
from packlab.packing.reasons import OVER_BUDGET, REASONS, TOO_LARGE, reason_for

LESSON = "07-drop-reasons-and-refusal"
FUNCTION = "pack_with_reasons"
pack_with_reasons = Reference("reasons.pack_with_reasons")
KEYS = ("included", "dropped", "used")

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-dict": Misconception(
        "not-a-dict",
        "the result is one dict, {\"included\": [...], \"dropped\": [...], \"used\": ...} — not a "
        "tuple, a list or None (did you forget `return`?).",
        LESSON,
    ),
    "missing-key": Misconception(
        "missing-key",
        "the result has exactly three keys, spelled `included`, `dropped` and `used`.",
        LESSON,
    ),
    "field-types": Misconception(
        "field-types",
        "`included` is a list of id strings, `dropped` a list of dicts and `used` a whole "
        "number (an int).",
        LESSON,
    ),
    "dropped-without-reasons": Misconception(
        "dropped-without-reasons",
        "each entry of `dropped` is a dict with two keys, {\"id\": \"doc\", \"reason\": "
        "\"over-budget\"} — not a bare id, and not the whole part.",
        LESSON,
    ),
    "unknown-reason": Misconception(
        "unknown-reason",
        "a reason is one of exactly two strings, \"over-budget\" or \"single-chunk-too-large\", "
        "spelled just so.",
        LESSON,
    ),
    "reason-against-remaining": Misconception(
        "reason-against-remaining",
        "\"single-chunk-too-large\" compares the part with the WHOLE budget, not with what is "
        "left: a part that fits alone but lost to others is \"over-budget\".",
        LESSON,
    ),
    "one-reason-only": Misconception(
        "one-reason-only",
        "there are two reasons: a part bigger than the whole budget is "
        "\"single-chunk-too-large\" (nothing else could make room for it); only the others are "
        "\"over-budget\".",
        LESSON,
    ),
    "strict-too-large": Misconception(
        "strict-too-large",
        "a part exactly the size of the budget is not too large — it fits when alone. Too large "
        "means tokens > budget, not >=.",
        LESSON,
    ),
    "wrong-reason": Misconception(
        "wrong-reason",
        "a dropped part is \"single-chunk-too-large\" exactly when its tokens exceed the whole "
        "budget, and \"over-budget\" otherwise.",
        LESSON,
    ),
    "ignores-priority": Misconception(
        "ignores-priority",
        "parts are packed in priority order, highest first, whatever their position in the "
        "list: a later part with a higher priority gets its chance first.",
        LESSON,
    ),
    "ties-reversed": Misconception(
        "ties-reversed",
        "parts of equal priority are packed in input order. `sorted(..., reverse=True)` keeps "
        "that order; sorting ascending and then reversing the list flips it.",
        LESSON,
    ),
    "ties-not-input-order": Misconception(
        "ties-not-input-order",
        "parts of equal priority are packed in input order — not by id, size or anything "
        "else. Sort by the priority alone and rely on Python's stable sort.",
        LESSON,
    ),
    "break-at-first-miss": Misconception(
        "break-at-first-miss",
        "the walk stops at the first part that does not fit, so the parts after it never get "
        "their chance. Drop that one part and keep going.",
        "03-the-early-stop-trap",
    ),
    "strict-less-than": Misconception(
        "strict-less-than",
        "a part that lands exactly on the budget still fits: compare with `<=`, not `<`.",
        "02-priority-then-greedy",
    ),
    "output-in-priority-order": Misconception(
        "output-in-priority-order",
        "priority decides which parts go in, never where they sit: list `included` and "
        "`dropped` in input order, not in the order you packed them.",
        LESSON,
    ),
    "not-greedy": Misconception(
        "not-greedy",
        "walk the parts by priority (highest first, ties in input order) and include each one "
        "exactly when the tokens used so far plus its tokens are at most the budget.",
        LESSON,
    ),
    "not-a-partition": Misconception(
        "not-a-partition",
        "every part ends up exactly once: in `included` if it fit, in `dropped` if not — none "
        "left out, none listed twice.",
        LESSON,
    ),
    "used-wrong": Misconception(
        "used-wrong",
        "`used` is the sum of the tokens of the included parts — not the budget, not what is "
        "left, not the dropped parts.",
        LESSON,
    ),
    "nondeterministic": Misconception(
        "nondeterministic",
        "the same parts and budget must always give the same result: no random choices, no "
        "order that comes from a set.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "packing must not change the list it was given (`parts.sort()` sorts the caller's "
        "list in place): sort a copy with `sorted(...)`.",
        LESSON,
    ),
}


# --- the wrong answers a diagnosis compares with ----------------------------------------------

def _walk(parts: list[dict], order: list[int], budget: int, *, strict: bool = False,
          stop: bool = False) -> set[int]:
    """Positions kept by a greedy walk in ``order`` (``<`` when strict; ``break`` when stop)."""
    used, kept = 0, set()
    for i in order:
        tokens = parts[i]["tokens"]
        if used + tokens < budget or (not strict and used + tokens == budget):
            kept.add(i)
            used += tokens
        elif stop:
            break
    return kept


def _stable(parts: list[dict]) -> list[int]:
    return sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)


def _ties_flipped(parts: list[dict]) -> list[int]:
    return sorted(range(len(parts)), key=lambda i: parts[i]["priority"])[::-1]


def _ties_by_id(parts: list[dict]) -> list[int]:
    return sorted(range(len(parts)), key=lambda i: (-parts[i]["priority"], parts[i]["id"]))


def _ids(parts: list[dict], kept: set[int], order: list[int] | None = None) -> list[str]:
    positions = range(len(parts)) if order is None else order
    return [parts[i]["id"] for i in positions if i in kept]


WRONG_WALKS = (  # (key, the positions that wrong idea keeps), most specific first
    ("break-at-first-miss", lambda p, b: _walk(p, _stable(p), b, stop=True)),
    ("strict-less-than", lambda p, b: _walk(p, _stable(p), b, strict=True)),
    ("ties-reversed", lambda p, b: _walk(p, _ties_flipped(p), b)),
    ("ties-not-input-order", lambda p, b: _walk(p, _ties_by_id(p), b)),
    ("ignores-priority", lambda p, b: _walk(p, list(range(len(p))), b)),
    ("ignores-priority", lambda p, b: _walk(p, sorted(range(len(p)),
                                                      key=lambda i: p[i]["priority"]), b)),
)


def included_problem(parts: list[dict], budget: int, included: list[str]) -> str:
    """The key of the likeliest wrong idea behind the wrong ``included`` ids."""
    expected = pack_with_reasons(parts, budget)["included"]
    if sorted(included) == sorted(expected):
        return "output-in-priority-order"
    for key, walk in WRONG_WALKS:
        kept = walk(parts, budget)
        if included == _ids(parts, kept):
            return key
        if sorted(included) == sorted(_ids(parts, kept)):  # wrong idea, and listed reordered
            return key
    return "not-greedy"


def reasons_problem(parts: list[dict], budget: int, dropped: list[dict]) -> str:
    """The key behind right ids with wrong reasons."""
    got = [drop["reason"] for drop in dropped]
    if any(reason not in REASONS for reason in got):
        return "unknown-reason"
    tokens = {part["id"]: part["tokens"] for part in parts}
    sizes = [tokens.get(drop["id"], 0) for drop in dropped]
    expected = [reason_for(size, budget) for size in sizes]
    if got == [TOO_LARGE if size >= budget else OVER_BUDGET for size in sizes]:
        return "strict-too-large"  # differs from the right reasons only at size == budget
    if set(got) == {TOO_LARGE} and OVER_BUDGET in expected:
        return "reason-against-remaining"
    if set(got) == {OVER_BUDGET} and TOO_LARGE in expected:
        return "one-reason-only"
    return "wrong-reason"


def is_drop(entry) -> bool:
    return (type(entry) is dict and sorted(entry) == ["id", "reason"]
            and type(entry["id"]) is str and type(entry["reason"]) is str)


def shape_problem(got) -> str | None:
    """The key of what is wrong with the result's shape, or None when it is well formed."""
    if type(got) is not dict:
        return "not-a-dict"
    if sorted(got) != sorted(KEYS):
        return "missing-key"
    included, dropped = got["included"], got["dropped"]
    if type(included) is not list or any(type(item) is not str for item in included):
        return "field-types"
    if type(dropped) is not list:
        return "field-types"
    if not all(is_drop(entry) for entry in dropped):
        return "dropped-without-reasons"
    if type(got["used"]) is not int:
        return "field-types"
    return None


def content_problem(parts: list[dict], budget: int, got: dict) -> str:
    """The key of the likeliest wrong idea behind a well-formed but wrong result."""
    expected = pack_with_reasons(parts, budget)
    included, dropped = got["included"], got["dropped"]
    dropped_ids = [drop["id"] for drop in dropped]
    if included != expected["included"]:
        return included_problem(parts, budget, included)
    if sorted(included + dropped_ids) != sorted(part["id"] for part in parts):
        return "not-a-partition"
    if dropped_ids != [drop["id"] for drop in expected["dropped"]]:
        return "output-in-priority-order"
    if dropped != expected["dropped"]:
        return reasons_problem(parts, budget, dropped)
    return "used-wrong"


def diagnose(args: list, got) -> Misconception:
    """Name the likeliest wrong idea behind a wrong result."""
    return MISCONCEPTIONS[shape_problem(got) or content_problem(*args, got)]


PACKER = Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=pack_with_reasons,
                 diagnose=diagnose, malformed=shape_problem, vary=vary_parts)
case = PACKER.case


def ranked(*parts: tuple[str, int, float]) -> list[dict]:
    """``("sys", 60, 9)`` becomes ``{"id": "sys", "tokens": 60, "priority": 9}``, in order."""
    return [{"id": key, "tokens": tokens, "priority": priority} for key, tokens, priority in parts]


def example(name: str, answer: tuple[list[str], list[tuple[str, str]], int], parts: list[dict],
            budget: int) -> Check:
    """A visible example, its answer written out as (included, [(id, reason)], used)."""
    included, dropped, used = answer
    return PACKER.answers(name, {"included": included, "used": used, "dropped": [
        {"id": part_id, "reason": reason} for part_id, reason in dropped]}, parts, budget)


UNCHANGED = "the parts list is left as it was"

LESSON_EXAMPLE = ranked(("system", 60, 100), ("memory", 30, 10), ("chunk-warranty", 290, 70),
                        ("chunk-refunds", 50, 60), ("turn-latest", 30, 90))

# The visible group only: the hidden ones are in autograder/checks/hidden/drop_reasons.py.
SUITE = Suite(
    function=FUNCTION,
    reference=pack_with_reasons,
    groups=(
        Group(
            "visible",
            "The lesson's example with both reasons, a budget that everything fits in, and a "
            "part bigger than the whole budget.",
            (
                PACKER.well_formed("pack_with_reasons returns a dict with 'included', 'dropped' "
                                   "and 'used'; each dropped entry has an id and a reason",
                                   LESSON_EXAMPLE, 150),
                PACKER.left_alone(UNCHANGED, LESSON_EXAMPLE, 150),
                PACKER.about("the highest priority is weighed first, wherever it sits in the "
                             "list", {"ignores-priority", "ties-reversed", "ties-not-input-order"},
                             LESSON_EXAMPLE, 150),
                PACKER.about("a part that does not fit is skipped and the walk goes on: "
                             "'chunk-refunds' still goes in after 'chunk-warranty' is dropped",
                             {"break-at-first-miss", "strict-less-than", "not-greedy"},
                             LESSON_EXAMPLE, 150),
                PACKER.about("both lists keep the input order, not the priority order",
                             {"output-in-priority-order", "not-a-partition"}, LESSON_EXAMPLE, 150),
                PACKER.about("each drop has its reason: 'chunk-warranty' (290 tokens) is "
                             "single-chunk-too-large, bigger than the whole budget of 150; "
                             "'memory' is over-budget, it lost to higher priorities",
                             {"reason-against-remaining", "one-reason-only", "strict-too-large",
                              "wrong-reason", "unknown-reason"}, LESSON_EXAMPLE, 150),
                example("at a budget of 150 the 290-token chunk is too large and the memory "
                        "lost the competition",
                        (["system", "chunk-refunds", "turn-latest"],
                         [("memory", OVER_BUDGET), ("chunk-warranty", TOO_LARGE)], 140),
                        LESSON_EXAMPLE, 150),
                example("when everything fits, nothing is dropped and used is the total",
                        ([p["id"] for p in LESSON_EXAMPLE], [], 460), LESSON_EXAMPLE, 500),
                example("a part bigger than the whole budget is dropped as "
                        "single-chunk-too-large", (["sys", "turn"], [("doc", TOO_LARGE)], 70),
                        ranked(("sys", 40, 9), ("doc", 120, 5), ("turn", 30, 7)), 100),
                example("a part of exactly the budget, dropped behind another, is over-budget, "
                        "not too large: 'page' (150 tokens) in a budget of 150",
                        (["rules"], [("page", OVER_BUDGET)], 20),
                        ranked(("rules", 20, 8), ("page", 150, 4)), 150),
                example("parts of equal priority are packed in input order: 'turn-2' and "
                        "'turn-3' go in, 'turn-1' is left out",
                        (["turn-2", "turn-3"], [("turn-1", OVER_BUDGET)], 100),
                        ranked(("turn-2", 50, 3), ("turn-3", 50, 3), ("turn-1", 50, 3)), 100),
            ),
            visible=True,
        ),
    ),
)
