"""Tests for exercises 02 and 03: ``pack(parts, budget) -> list[str]``."""

from __future__ import annotations

from autograder.checks.compare import Compare, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Check, Group, Misconception, Suite, common_misconceptions, show
from packlab.packing.packers import stop_at_first_miss

LESSON = "02-priority-then-greedy"
FUNCTION = "pack"
greedy = Reference("packers.greedy")

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-list": Misconception(
        "not-a-list",
        "pack returns a list of id strings, like ['sys', 'small'] — not None, a string or a "
        "number (did you forget `return`?).",
        LESSON,
    ),
    "returns-parts": Misconception(
        "returns-parts",
        "the answer lists each chosen part's id, `part[\"id\"]`, not the part dicts themselves.",
        LESSON,
    ),
    "break-at-first-miss": Misconception(
        "break-at-first-miss",
        "the loop stops at the first part that does not fit, so the smaller parts after it "
        "never get their chance. Skip that part and keep going: no `break`.",
        "03-the-early-stop-trap",
    ),
    "strict-less-than": Misconception(
        "strict-less-than",
        "a part that lands exactly on the budget still fits: compare with `<=`, not `<`.",
        LESSON,
    ),
    "sorts-parts": Misconception(
        "sorts-parts",
        "the parts arrive in priority order: walk them in that order and return their ids in "
        "that order — never sort, reverse or reorder them, not even to fit more in.",
        LESSON,
    ),
    "splits-part": Misconception(
        "splits-part",
        "a part is taken whole or not at all: take it only when the tokens used so far plus "
        "all of its tokens stay within the budget.",
        LESSON,
    ),
    "not-greedy": Misconception(
        "not-greedy",
        "walk the parts in order and take each one exactly when the tokens used so far plus its "
        "tokens are at most the budget; every id at most once.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "packing must not change the parts it was given: the caller still needs all of them.",
        LESSON,
    ),
}


def parts_of(tokens: dict[str, int]) -> list[dict]:
    """Parts in the order given: ``{"sys": 100}`` becomes ``[{"id": "sys", "tokens": 100}]``."""
    return [{"id": part_id, "tokens": cost} for part_id, cost in tokens.items()]


def in_input_order(ids: list[str], parts: list[dict]) -> bool:
    """Whether ``ids`` are ids of ``parts``, each at most once, in the parts' order."""
    remaining = iter(part["id"] for part in parts)
    return all(part_id in remaining for part_id in ids)


def cost(parts: list[dict], ids: list[str]) -> int:
    """The tokens of the parts with these ids (unknown ids cost nothing)."""
    tokens = {part["id"]: part["tokens"] for part in parts}
    return sum(tokens.get(part_id, 0) for part_id in ids)


def tokens_text(count: int) -> str:
    return f"{count} token" if count == 1 else f"{count} tokens"


def first_wrong_turn(parts: list[dict], budget: int, taken: list[str]) -> str | None:
    """Replay the walk with these choices; explain the first part taken or skipped wrongly."""
    used = 0
    for part in parts:
        part_id, tokens = part["id"], part["tokens"]
        fits = used + tokens <= budget
        if fits != (part_id in taken):
            sign, verdict = ("≤", "still fits") if fits else (">", "does not fit")
            return (f"{part_id!r} ({tokens_text(tokens)}) {verdict} at its turn: {used} used + "
                    f"{tokens} = {used + tokens} {sign} {budget}")
        if fits:
            used += tokens
    return None


def wrong_choice(parts: list[dict], budget: int, ids: list[str]) -> str:
    """The key of the likeliest wrong idea behind packing ``ids`` (id strings) instead."""
    if ids == list(stop_at_first_miss(parts, budget).taken):
        return "break-at-first-miss"
    if ids == greedy(parts, budget - 1):  # with whole tokens, `< budget` is `<= budget - 1`
        return "strict-less-than"
    known = {part["id"] for part in parts}
    reordered = len(set(ids)) == len(ids) and set(ids) <= known and not in_input_order(ids, parts)
    other_orders = (sorted(parts, key=lambda part: part["tokens"]), parts[::-1])
    if reordered or any(sorted(ids) == sorted(greedy(order, budget)) for order in other_orders):
        return "sorts-parts"
    if cost(parts, ids) > budget:
        return "splits-part"
    return "not-greedy"


def diagnose(args: list, got) -> Misconception:
    """Name the likeliest wrong idea behind a wrong answer."""
    if type(got) is not list:
        return MISCONCEPTIONS["not-a-list"]
    if any(type(item) is dict for item in got):
        return MISCONCEPTIONS["returns-parts"]
    if any(type(item) is not str for item in got):
        return MISCONCEPTIONS["not-a-list"]
    return MISCONCEPTIONS[wrong_choice(*args, got)]


def is_id_list(value) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


PACK = Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=greedy,
               diagnose=diagnose, malformed=lambda got: not is_id_list(got), vary=vary_parts)


def case(name: str, tokens: dict[str, int], budget: int) -> Check:
    return PACK.case(name, parts_of(tokens), budget)


def example(name: str, ids: list[str], tokens: dict[str, int], budget: int) -> Check:
    """A visible example, its answer written out."""
    return PACK.answers(name, ids, parts_of(tokens), budget)


LESSON_EXAMPLE = (parts_of({"sys": 100, "huge": 80, "small": 10}), 130)

WITHIN_BUDGET = "the chosen parts never add up to more than the budget"


def keeps_input_order(args: list, got: list[str]) -> str | None:
    parts, budget = args
    if not in_input_order(got, parts):
        return f"ids of the given parts in input order, like {show(greedy(parts, budget))}"
    return None


def stays_within_budget(args: list, got: list[str]) -> None:
    parts, budget = args
    if cost(parts, got) > budget:
        raise PACK.fail(WITHIN_BUDGET, args, f"{show(got)}, {tokens_text(cost(parts, got))} in all",
                        f"at most {tokens_text(budget)} in all", diagnose(args, got))


def fits_at_its_turn(args: list, got: list[str]) -> str | None:
    parts, budget = args
    reason = first_wrong_turn(parts, budget, got)
    if reason:
        return f"{show(greedy(parts, budget))}, because {reason}"
    return None


# The visible group only: the hidden ones are in autograder/checks/hidden/pack.py.
SUITE = Suite(
    function=FUNCTION,
    reference=greedy,
    groups=(
        Group(
            "visible",
            "The lesson's example and a budget that everything fits in.",
            (
                PACK.well_formed("pack returns a list of id strings such as 'sys', not the "
                                 "parts themselves", *LESSON_EXAMPLE),
                PACK.left_alone("the parts list is left as it was", *LESSON_EXAMPLE),
                PACK.shows("the ids come back in input order, never sorted or reversed",
                           keeps_input_order, *LESSON_EXAMPLE),
                PACK.shows("a part is taken whole or not at all: the parts taken never add up "
                           "to more than the budget of 130", stays_within_budget,
                           *LESSON_EXAMPLE),
                PACK.shows("'huge' (80 tokens) does not fit after 'sys' and is skipped; 'small' "
                           "after it still fits and is taken", fits_at_its_turn, *LESSON_EXAMPLE),
                example("parts of 100, 80 and 10 tokens in a budget of 130 keep 'sys' and "
                        "'small'", ["sys", "small"], {"sys": 100, "huge": 80, "small": 10}, 130),
                example("when everything fits, every id comes back in input order",
                        ["sys", "turn", "chunk"], {"sys": 100, "turn": 60, "chunk": 40}, 500),
                example("a part that lands exactly on the budget still fits: 70 + 50 = 120 in a "
                        "budget of 120 keeps both", ["rules", "ask"],
                        {"rules": 70, "ask": 50, "extra": 5}, 120),
            ),
            visible=True,
        ),
    ),
)
