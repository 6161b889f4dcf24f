"""The hidden tests of exercise 06, ``fit``: one group per step, its edge cases and properties.

As the visible groups do, a step's checks use only what the steps before it taught (see
`autograder.checks.suites.fit`)."""

from __future__ import annotations

import math
import random

from hypothesis import strategies as st

from autograder.checks.suite import Caller, Group, property_check, show
from autograder.checks.suites.fit import (
    FIT,
    args_of,
    case,
    expected_outcome,
    item,
    warns,
)

NAMES = ("sys", "turn-2", "doc", "call", "memo", "chunk", "turn-1", "result", "note", "ask",
         "rule", "log")


@st.composite
def requests(draw, with_required: bool = False, pairs: bool = False,
             reserve: bool = False) -> list:
    """Arguments for fit: up to 6 units (an item, or a pair with ``pairs``), shuffled, ints
    only; a reserve only with ``reserve``."""
    units = draw(st.lists(st.tuples(st.sampled_from([1, 1, 2] if pairs else [1]),
                                    st.integers(0, 3),
                                    st.sampled_from([False, False, True]) if with_required
                                    else st.just(False)), max_size=6))
    members = []
    for number, (size, priority, required) in enumerate(units):
        for _ in range(size):
            members.append((priority, required, f"pair-{number + 1}" if size == 2 else None,
                            draw(st.integers(0, 60))))
    order = draw(st.permutations(range(len(members))))
    items = [item(NAMES[position], members[index][3], members[index][0], members[index][1],
                  members[index][2]) for position, index in enumerate(order)]
    budget = draw(st.integers(1, 250))
    held = draw(st.one_of(st.just(0), st.integers(0, budget - 1))) if reserve else 0
    return args_of(items, budget, held)


PARTITION = "every id is included or excluded exactly once, both lists in input order"
ACCOUNTING = "tokens_used adds up the included items, within budget − reserve, and the rest remains"
PAIRS = "the items of a pair group are all included or all excluded"
GREEDY_ALONE = "the choice is greedy by priority, ties in input order, within budget − reserve"
GREEDY = "the choice is greedy by priority, ties in input order, pairs whole"
REQUIRED = "required items are all included, or a ValueError names the one that did not fit"
UNCHANGED = "the items are left as they were"


def in_input_order(ids: list[str], items: list[dict]) -> bool:
    remaining = iter(it["id"] for it in items)
    return all(i in remaining for i in ids)


def partitions_in_order(args: list, got: dict) -> str | None:
    items = args[0]
    lists = (got["included"], got["excluded"])
    if (sorted(lists[0] + lists[1]) != sorted(it["id"] for it in items)
            or not all(in_input_order(ids, items) for ids in lists)):
        return FIT.text(args)
    return None


def accounts_honestly(args: list, got: dict) -> str | None:
    items, budget = args[0], args[1]
    reserve = args[2] if len(args) > 2 else 0
    cost = {it["id"]: it["tokens"] for it in items}
    used = sum(cost.get(i, 0) for i in got["included"])
    usable = budget - reserve
    if got["tokens_used"] != used or used > usable or got["tokens_remaining"] != usable - used:
        return (f"tokens_used = {used} (the included items' tokens, at most {usable}) and "
                f"tokens_remaining = {usable - used}")
    return None


def keeps_pairs_whole(args: list, got: dict) -> str | None:
    groups: dict[str, set[bool]] = {}
    for it in args[0]:
        if "pair_id" in it:
            groups.setdefault(it["pair_id"], set()).add(it["id"] in got["included"])
    split = [group for group, states in groups.items() if len(states) > 1]
    if split:
        return f"{show(expected_outcome(args))} — pair group {split[0]!r} was split"
    return None


def leaves_items_alone(call: Caller, args: list) -> None:
    """Whatever fit returns, the items are as they were (an error here is another check's)."""
    got = FIT.ask(call, UNCHANGED, args, show(expected_outcome(args)))
    if got.returned and got.not_plain is None:
        FIT.require_unchanged(UNCHANGED, args, got.value, got.args_after)


NAN, INF = math.nan, math.inf

# --- a student's own examples (`autograder.checks.compare.Draw`) of the edge cases written below

WORDS = ("refund", "tent", "pole", "order", "the", "within", "days", "card", "ships", "free",
         "warranty", "claim", "photo", "parcel")


def _content(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))


# These examples are about warnings alone, as the ones written are: every item fits, and the
# priorities fall in input order, so no packing decision can go wrong in them.

def _priorities(rng: random.Random, items: list[dict]) -> list[dict]:
    """``items`` with priorities of their own, falling in input order."""
    drawn = sorted(rng.sample(range(10), len(items)), reverse=True)
    for it, priority in zip(items, drawn, strict=True):
        it["priority"] = priority
    return items


def _budget(rng: random.Random, items: list[dict], cost=lambda it: math.ceil(
        len(it["content"]) / 4)) -> int:
    """A budget every item fits in (``cost``: an item's tokens when it has no count)."""
    total = sum(it["tokens"] if "tokens" in it else cost(it) for it in items)
    return rng.randint(max(1, total), total + 20)


def estimated(rng: random.Random) -> list:
    """Three items fit must estimate (content, no tokens), and perhaps one counted."""
    names = rng.sample(NAMES, 4)
    items = [item(name, content=_content(rng)) for name in names[:3]]
    if rng.random() < 0.5:
        items.insert(rng.randint(0, 3), item(names[3], rng.randint(0, 40)))
    return args_of(_priorities(rng, items), _budget(rng, items), 0)


def counted(rng: random.Random) -> list:
    """One to four items, each with its own token count (some with content too)."""
    items = [item(name, rng.randint(0, 60), content=_content(rng) if rng.random() < 0.5 else None)
             for name in rng.sample(NAMES, rng.randint(1, 4))]
    return args_of(_priorities(rng, items), _budget(rng, items), 0)


def tokenized(rng: random.Random) -> list:
    """One to four items without token counts, and a tokenizer to count them."""
    items = [item(name, content=_content(rng)) for name in rng.sample(NAMES, rng.randint(1, 4))]
    budget = _budget(rng, items, lambda it: len(it["content"].split()))
    return args_of(_priorities(rng, items), budget, 0, "words")


def nothing(rng: random.Random) -> list:
    """No items, a budget and a reserve (never 0: the reserve is what this example is about)."""
    budget = rng.randint(2, 500)
    return args_of([], budget, rng.randint(1, budget - 1))


GROUPS = (
    Group(
        "priority-hidden",
        "Step 1: priority against input order, ties, skip and continue, exact fits, the "
        "reserve, zero-token items and an empty list; generated requests with ties, budgets and "
        "reserves.",
        (
            case("a higher priority wins even when the item comes later in the input",
                 [item("old-chunk", 60, 10), item("fresh-chunk", 60, 50)], 100),
            case("included ids come back in input order, not in priority order",
                 [item("history", 30, 10), item("system", 40, 100), item("latest", 20, 90)],
                 200),
            case("on equal priorities the earlier item is weighed first",
                 [item("chunk-a", 50, 20), item("chunk-b", 50, 20), item("chunk-c", 50, 20)],
                 120),
            case("an item too big for what is left is excluded and the walk goes on",
                 [item("sys", 40, 100), item("big", 100, 80), item("note", 30, 50),
                  item("memo", 20, 10)], 100),
            case("an item that lands exactly on budget − reserve is included",
                 [item("sys", 60, 9), item("doc", 40, 5)], 120, 20),
            case("the reserve is held back: items share only budget − reserve tokens",
                 [item("sys", 50, 100), item("doc", 40, 50), item("note", 30, 10)], 130, 40),
            case("tokens_remaining is what is left of budget − reserve",
                 [item("sys", 30, 10), item("doc", 45, 5)], 200, 25),
            case("items of 0 tokens always fit, even when nothing else is left",
                 [item("doc", 50, 5), item("flag", 0, 1), item("big", 80, 9)], 50),
            case("an empty list of items fits, with all of budget − reserve remaining",
                 [], 100, 10, draw=nothing),
            FIT.holds(PARTITION, requests(reserve=True), partitions_in_order),
            FIT.holds(ACCOUNTING, requests(reserve=True), accounts_honestly),
            FIT.matches(GREEDY_ALONE, requests(reserve=True)),
            property_check(UNCHANGED, requests(reserve=True), leaves_items_alone),
        ),
    ),
    Group(
        "required-hidden",
        "Step 2: required items at their own turn, exact fits, and generated requests with "
        "required items.",
        (
            case("a required item keeps its own priority's turn, and raises if the items "
                 "before it left too little",
                 [item("guide", 70, 60), item("policy", 50, 20, required=True)], 110),
            case("a required item that lands exactly on the budget is included",
                 [item("notes", 40, 50), item("rules", 60, 10, required=True)], 100),
            case("a required item with the highest priority goes in first",
                 [item("doc", 90, 10), item("rules", 30, 99, required=True)], 100),
            FIT.matches(REQUIRED, requests(with_required=True)),
        ),
    ),
    Group(
        "pairs-hidden",
        "Step 3: pairs whole, weighed at their first member's turn, a required pair group that "
        "does not fit, pair groups whose items disagree, and generated requests with pairs.",
        (
            case("a tool call and its result go in together or not at all",
                 [item("sys", 60, 100), item("call", 20, 80, pair="p1"),
                  item("result", 50, 80, pair="p1"), item("note", 10, 10)], 100),
            case("a pair group is weighed at its first member's turn, at the sum of its "
                 "tokens", [item("call", 30, 50, pair="x"), item("doc", 40, 50),
                            item("note", 10, 50), item("result", 30, 50, pair="x")], 70),
            case("a required pair group that does not fit raises, naming its pair_id",
                 [item("system", 200, 100, required=True),
                  item("call", 30, 90, required=True, pair="turn-7"),
                  item("result", 400, 90, required=True, pair="turn-7")], 500),
            case("a pair group whose items have different priorities is refused with a "
                 "ValueError naming it",
                 [item("call", 10, 80, pair="lookup-2"), item("result", 10, 40,
                                                              pair="lookup-2")], 100),
            case("a pair group whose items disagree on required is refused with a "
                 "ValueError naming it",
                 [item("call", 10, 80, required=True, pair="lookup-2"),
                  item("result", 10, 80, pair="lookup-2")], 100),
            FIT.holds(PAIRS, requests(pairs=True), keeps_pairs_whole),
            FIT.matches(GREEDY, requests(pairs=True)),
        ),
    ),
    Group(
        "input-hidden",
        "Step 4: counting with and without a tokenizer, one warning per call, and each "
        "kind of input refused.",
        (
            case("with a tokenizer, an item without tokens costs tokenizer(content)",
                 [item("sys", content="Answer in one short paragraph please", priority=9),
                  item("doc", content="Tents ship free over sixty euros", priority=5)],
                 10, 0, "words"),
            case("an item's own tokens are used as they are, even with a tokenizer",
                 [item("sys", 4, 9, content="this text has many more words than four"),
                  item("doc", content="only three words", priority=5)], 7, 0, "words"),
            case("without tokens or tokenizer, an item costs ceil(len(content) / 4)",
                 [item("a", content="thirteen char", priority=2),
                  item("b", content="six ch", priority=1)], 5),
            warns("three estimated items give one UserWarning for the whole call",
                  [item("a", content="thirteen char", priority=2),
                   item("b", content="six ch", priority=1),
                   item("c", content="twelve chars", priority=0)], 9, 1, draw=estimated),
            warns("with every count given, fit does not warn",
                  [item("sys", 40, 9), item("doc", 30, 5)], 100, 0, draw=counted),
            warns("with a tokenizer, nothing is estimated and fit does not warn",
                  [item("sys", content="Answer in one short paragraph please", priority=9)],
                  10, 0, "words", draw=tokenized),
            case("two items with the same id are refused, naming the id",
                 [item("chunk-3", 10), item("chunk-3", 20)], 100),
            case("a token count of NaN is refused with a ValueError naming the item",
                 [item("sys", 10, 5), item("chunk-9", NAN, 1)], 100),
            case("a negative token count is refused with a ValueError naming the item",
                 [item("chunk-9", -50, 1), item("sys", 10, 5)], 100),
            case("an infinite token count is refused with a ValueError naming the item",
                 [item("chunk-9", INF, 1)], 100),
            case("a token count that is text is refused with a ValueError naming the item",
                 [item("chunk-9", "many", 1)], 100),
            case("True is not a token count: it is refused with a ValueError naming the item",
                 [item("chunk-9", True, 1)], 100),
            case("an infinite priority is refused with a ValueError naming the item",
                 [item("chunk-9", 10, INF)], 100),
            case("an item with no tokens and content that is not text is refused with a "
                 "ValueError naming it",
                 [{"id": "chunk-9", "content": 42}], 100),
            case("a tokenizer that returns NaN is refused with a ValueError naming the item",
                 [item("chunk-9", content="some text")], 100, 0, "nan"),
            case("a tokenizer that returns text instead of a number is refused with a "
                 "ValueError naming the item",
                 [item("chunk-9", content="some text")], 100, 0, "not-a-number"),
            case("a tokenizer that returns a negative count is refused with a ValueError "
                 "naming the item",
                 [item("chunk-9", content="some text")], 100, 0, "negative"),
            case("a budget of 0 is refused with a ValueError", [item("sys", 10)], 0),
            case("a negative reserve is refused with a ValueError", [item("sys", 10)], 100, -5),
            case("a reserve as large as the budget is refused with a ValueError",
                 [item("sys", 10)], 100, 100),
        ),
    ),
)
