"""Tests for exercise 06: ``fit(items, budget, reserve=0, tokenizer=None) -> dict``.

The expected answers come from `packlab.packing.fitting` (the course's `fit`); the classic wrong
versions of the walk in `packlab.packing.fitting.MISTAKES` name the likeliest mistake behind a
wrong answer.

A check that expects an error catches the `StudentError` itself: the function must *raise*, a
``ValueError`` (or a class of the learner's own, which the grader cannot see into), and its
message must name what the course's error names (the item, and for a required item that does not
fit: the tokens it needs, the tokens left, the shortfall, the budget and the reserve).
"""

from __future__ import annotations

import copy
import math
import re
import warnings

from hypothesis import strategies as st

from autograder.compare import CompareOrRaise, Unchanged
from autograder.suite import (
    Answer,
    Caller,
    Check,
    Group,
    Misconception,
    Suite,
    common_misconceptions,
    error_parts,
    property_check,
    show,
    wrong_kind,
)
from autograder.worker import with_callables
from packlab.packing.fitting import (
    KEYS,
    MISTAKES,
    RULES,
    FitError,
    RequiredDoesNotFit,
    fit,
    is_number,
    outcome,
)

LESSON = "06-fit-priority-required-pairs"
FUNCTION = "fit"

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-dict": Misconception(
        "not-a-dict",
        "fit returns one dict, {\"included\": [...], \"excluded\": [...], \"tokens_used\": ..., "
        "\"tokens_remaining\": ...} — not a tuple, a list or None (did you forget `return`?).",
        LESSON,
    ),
    "missing-key": Misconception(
        "missing-key",
        "the result has exactly four keys, spelled `included`, `excluded`, `tokens_used` and "
        "`tokens_remaining`.",
        LESSON,
    ),
    "field-types": Misconception(
        "field-types",
        "`included` and `excluded` are lists of id strings (not the item dicts), and "
        "`tokens_used` and `tokens_remaining` are numbers.",
        LESSON,
    ),
    "ignores-priority": Misconception(
        "ignores-priority",
        "the items are weighed by priority, highest first, not in the order they arrive: a "
        "later item with a higher priority gets its chance before an earlier, lower one.",
        LESSON,
    ),
    "output-in-priority-order": Misconception(
        "output-in-priority-order",
        "priority decides *what* goes in, never the order it is listed in: `included` and "
        "`excluded` keep the items' input order (a chat must stay in conversation order).",
        LESSON,
    ),
    "unstable-ties": Misconception(
        "unstable-ties",
        "items of equal priority are weighed in input order: the earlier one gets the room "
        "first. Python's `sorted` with a key keeps ties in order; do not reverse them.",
        LESSON,
    ),
    "break-at-first-miss": Misconception(
        "break-at-first-miss",
        "the walk stops at the first item that does not fit, so the smaller items after it never "
        "get their chance. Exclude that one item and keep going.",
        "03-the-early-stop-trap",
    ),
    "no-reserve": Misconception(
        "no-reserve",
        "the reserve is held back for the model's reply: items share only `budget - reserve` "
        "tokens, and `tokens_remaining` is what is left of that.",
        LESSON,
    ),
    "required-promoted": Misconception(
        "required-promoted",
        "`required` does not move an item forward: it is weighed at the turn its own priority "
        "gives it. The flag only changes what happens when it does not fit there (raise).",
        LESSON,
    ),
    "required-dropped": Misconception(
        "required-dropped",
        "a required item that does not fit at its turn must not be quietly excluded: raise a "
        "ValueError that says so, so the request never goes out without it.",
        LESSON,
    ),
    "vague-required-error": Misconception(
        "vague-required-error",
        "the error for a required item that does not fit should let the caller fix it at once: "
        "name the item (or pair group), the tokens it needs, the tokens left after the items "
        "placed before it, the shortfall, the budget and the reserve.",
        LESSON,
    ),
    "pair-split": Misconception(
        "pair-split",
        "items sharing a `pair_id` go in together or not at all: weigh the group once, at its "
        "first member's turn, at the sum of its members' tokens. Half a tool call breaks the "
        "request.",
        LESSON,
    ),
    "missing-validation": Misconception(
        "missing-validation",
        "fit must refuse input it cannot trust — duplicate ids, token counts or priorities that "
        "are NaN, infinite, negative or not numbers, a pair group that disagrees, a bad budget "
        "or reserve — by raising a ValueError, instead of packing it anyway.",
        LESSON,
    ),
    "vague-validation-error": Misconception(
        "vague-validation-error",
        "a validation error should name the culprit: the item's id, the pair group's id, or "
        "the word budget or reserve, so the caller knows what to fix.",
        LESSON,
    ),
    "not-a-value-error": Misconception(
        "not-a-value-error",
        "fit reports a problem by raising ValueError (or a subclass of it) on purpose, with a "
        "message. This error is of another kind, often one Python raised by accident (a "
        "TypeError from adding text to a number, a KeyError from a missing key): the bad input "
        "slipped past your checks.",
        LESSON,
    ),
    "token-counting": Misconception(
        "token-counting",
        "an item's cost is its `tokens` when it has them; otherwise `tokenizer(content)` when a "
        "tokenizer is given, and only without one the estimate ceil(len(content) / 4).",
        LESSON,
    ),
    "not-a-partition": Misconception(
        "not-a-partition",
        "every item ends up in exactly one of `included` and `excluded` — none left out, none "
        "listed twice.",
        LESSON,
    ),
    "used-wrong": Misconception(
        "used-wrong",
        "`tokens_used` is the sum of the included items' tokens, nothing else.",
        LESSON,
    ),
    "remaining-wrong": Misconception(
        "remaining-wrong",
        "`tokens_remaining` is `budget - reserve - tokens_used`.",
        LESSON,
    ),
    "not-greedy": Misconception(
        "not-greedy",
        "weigh the items (pair groups as one) by priority, ties in input order, and include each "
        "one exactly when the tokens used so far plus its tokens are at most budget - reserve.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "fit must not change the items it was given (no sorting them in place, no new keys): "
        "the caller still needs them as they were.",
        LESSON,
    ),
    "warns-once": Misconception(
        "warns-once",
        "when fit has to estimate a count (no tokens, no tokenizer), it says so with one "
        "`warnings.warn(...)` (a UserWarning) per call of fit — not one per estimated item, "
        "and none at all when every count was given or a tokenizer was passed.",
        LESSON,
    ),
}

# --- calling fit ----------------------------------------------------------------------------------

def args_of(items: list[dict], budget, reserve=0, tokenizer: str | None = None) -> list:
    """The call's arguments, leaving out defaults; a tokenizer travels by name."""
    if tokenizer is not None:
        return [items, budget, reserve, {"callable": tokenizer}]
    return [items, budget, reserve] if reserve else [items, budget]


def expected_outcome(args: list, rules=None) -> dict | FitError:
    """The course's answer for these arguments (or the error it raises), without its warning."""
    real = with_callables(copy.deepcopy(args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return outcome(*real, rules=rules or RULES)


def mentions(message: str, wanted: str) -> bool:
    """Whether ``message`` names ``wanted``: a number as a whole number, a word anywhere."""
    if re.fullmatch(r"-?\d+(\.\d+)?", wanted):
        return re.search(rf"(?<![\d.]){re.escape(wanted)}(\.0+)?(?!\d)", message) is not None
    return wanted.lower() in message.lower()


def unmentioned(error: FitError, detail: str) -> list[str]:
    message = error_parts(detail)[1]
    return [wanted for wanted in error.mentions if not mentions(message, wanted)]


def describe_error(error: FitError) -> str:
    if isinstance(error, RequiredDoesNotFit):
        labels = ("", "needs ", "left ", "short ", "budget ", "reserve ")
        names = ", ".join(f"{label}{value}" for label, value in
                          zip(labels, error.mentions, strict=True))
        return f"a ValueError naming {names} — like: {error}"
    return f"a ValueError naming {', '.join(error.mentions)} — like: {error}"


# --- diagnosis ------------------------------------------------------------------------------------

def shape_problem(got) -> str | None:
    """The key of what is wrong with the result's shape, or None when it is well formed."""
    if type(got) is not dict:
        return "not-a-dict"
    if sorted(got) != sorted(KEYS):
        return "missing-key"
    lists = (got["included"], got["excluded"])
    if not all(type(ids) is list and all(type(i) is str for i in ids) for ids in lists):
        return "field-types"
    if not all(is_number(got[key]) for key in ("tokens_used", "tokens_remaining")):
        return "field-types"
    return None


def matching_mistake(args: list, got: Answer) -> str | None:
    """The first classic mistake whose walk gives exactly what the learner's fit gave."""
    for key, rules in MISTAKES.items():
        theirs = expected_outcome(args, rules)
        if isinstance(theirs, FitError):
            if (isinstance(theirs, RequiredDoesNotFit) and got.error is not None
                    and not unmentioned(theirs, got.error)):
                return key
        elif got.returned and got.not_plain is None and theirs == got.value:
            return key
    return None


def has_content_only(args: list) -> bool:
    return any(type(item) is dict and item.get("tokens") is None for item in args[0])


def value_problem(args: list, got: dict, expected: dict) -> str:
    """The key of the likeliest wrong idea behind a well-formed but wrong result."""
    ids = [item["id"] for item in args[0]]
    included, excluded = got["included"], got["excluded"]
    if sorted(included + excluded) != sorted(ids):
        return matching_mistake(args, Answer(got)) or "not-a-partition"
    if (sorted(included) == sorted(expected["included"])
            and (included != expected["included"] or excluded != expected["excluded"])):
        return "output-in-priority-order"
    mistake = matching_mistake(args, Answer(got))
    if mistake:
        return mistake
    if included == expected["included"]:
        if got["tokens_used"] != expected["tokens_used"]:
            return "token-counting" if has_content_only(args) else "used-wrong"
        return "remaining-wrong"
    return "token-counting" if has_content_only(args) else "not-greedy"


def diagnose(args: list, got: Answer, expected: dict | FitError) -> Misconception:
    """Name the likeliest wrong idea behind an answer that differs from the course's."""
    if isinstance(expected, FitError):
        if got.returned:  # it should have raised
            if isinstance(expected, RequiredDoesNotFit):
                return MISCONCEPTIONS[matching_mistake(args, got) or "required-dropped"]
            return MISCONCEPTIONS["missing-validation"]
        if wrong_kind(got.error):
            return MISCONCEPTIONS["not-a-value-error"]
        if isinstance(expected, RequiredDoesNotFit):
            return MISCONCEPTIONS[matching_mistake(args, got) or "vague-required-error"]
        return MISCONCEPTIONS["vague-validation-error"]
    if not got.returned:  # it raised on input that fits the rules
        key = matching_mistake(args, got)
        if key:
            return MISCONCEPTIONS[key]
        return MISCONCEPTIONS["not-a-value-error" if wrong_kind(got.error) else "crash"]
    if got.not_plain is not None:
        return MISCONCEPTIONS["field-types"]
    return MISCONCEPTIONS[shape_problem(got.value) or value_problem(args, got.value, expected)]


# --- checks ---------------------------------------------------------------------------------------

FIT = CompareOrRaise(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=expected_outcome,
                     error=FitError, describe_error=describe_error, unmentioned=unmentioned,
                     diagnose=diagnose, malformed=shape_problem,
                     unchanged=Unchanged("items", compared=lambda args: args[0]))


def case(name: str, items: list[dict], budget, reserve=0, tokenizer: str | None = None) -> Check:
    return FIT.case(name, *args_of(items, budget, reserve, tokenizer))


def warns(name: str, items: list[dict], budget, wanted: int, tokenizer: str | None = None):
    """fit returns the course's answer and gives ``wanted`` UserWarnings (0 or 1)."""
    args = args_of(items, budget, 0, tokenizer)

    def run(call: Caller) -> None:
        got = FIT.returned(call, name, args, exact=True)
        count = sum(w.startswith("UserWarning") for w in got.warnings)
        if count != wanted:
            said = "no warning" if count == 0 else f"{count} UserWarnings"
            expected = show(FIT.expected(args))
            raise FIT.fail(name, args, f"{show(got.value)}, with {said}",
                           f"{expected}, with {'one UserWarning' if wanted else 'no warning'}",
                           MISCONCEPTIONS["warns-once"])

    return Check(name, run)


def item(item_id: str, tokens=None, priority=0, required=False, pair=None, content=None) -> dict:
    """An item dict with only the keys that matter (defaults left out, as a caller would)."""
    made: dict = {"id": item_id}
    if tokens is not None:
        made["tokens"] = tokens
    if content is not None:
        made["content"] = content
    made["priority"] = priority
    if required:
        made["required"] = True
    if pair is not None:
        made["pair_id"] = pair
    return made


AGENT = [
    item("system", 120, 100, required=True),
    item("history-1", 60, 30),
    item("history-2", 80, 30),
    item("chunk-faq", 150, 40),
    item("tool-call", 40, 80, pair="lookup"),
    item("tool-result", 200, 80, pair="lookup"),
    item("latest", 50, 90, required=True),
]

# --- properties -----------------------------------------------------------------------------------

NAMES = ("sys", "turn-2", "doc", "call", "memo", "chunk", "turn-1", "result", "note", "ask",
         "rule", "log")


@st.composite
def requests(draw, with_required: bool = False) -> list:
    """Arguments for fit: up to 6 units (an item or a pair), shuffled, ints only."""
    units = draw(st.lists(st.tuples(st.sampled_from([1, 1, 2]), st.integers(0, 3),
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
    reserve = draw(st.one_of(st.just(0), st.integers(0, budget - 1)))
    return args_of(items, budget, reserve)


PARTITION = "every id is included or excluded exactly once, both lists in input order"
ACCOUNTING = "tokens_used adds up the included items, within budget − reserve, and the rest remains"
PAIRS = "the items of a pair group are all included or all excluded"
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


# --- the suite ------------------------------------------------------------------------------------

NAN, INF = math.nan, math.inf

REQUIRED_SHORT = [item("system", 300, 100, required=True), item("rag", 500, 90),
                  item("latest", 320, 80, required=True)]

SUITE = Suite(
    function=FUNCTION,
    reference=fit,
    groups=(
        Group(
            "visible",
            "The lesson's agent request, a budget that everything fits in, and a required item "
            "that does not fit.",
            (
                FIT.about("the reserve is held back: only budget − reserve = 550 tokens are "
                          "packed", {"no-reserve"}, *args_of(AGENT, 700, 150, None)),
                FIT.about("the highest priority is weighed first, wherever it sits in the list",
                          {"ignores-priority", "unstable-ties"}, *args_of(AGENT, 700, 150, None)),
                FIT.about("an item too big for what is left is excluded and the walk goes on",
                          {"break-at-first-miss"}, *args_of(AGENT, 700, 150, None)),
                FIT.about("included ids come back in input order, not in priority order",
                          {"output-in-priority-order"}, *args_of(AGENT, 700, 150, None)),
                case("the agent request at budget 700, reserve 150: required items, the tool pair "
                     "whole, then the rest by priority", AGENT, 700, 150),
                case("when everything fits, every id is included in input order and the rest of "
                     "budget − reserve remains",
                     [item("system", 100, 100), item("turn", 60, 50), item("chunk", 40, 20)],
                     1000, 100),
                FIT.about("a required item keeps its own priority's turn; it is not moved ahead "
                          "of higher priorities", {"required-promoted"},
                          *args_of(REQUIRED_SHORT, 1000, 150, None)),
                case("a required item that does not fit raises a ValueError naming it, the "
                     "tokens it needs and is short, the budget and the reserve",
                     REQUIRED_SHORT, 1000, 150),
            ),
            visible=True,
        ),
        Group(
            "edge-cases",
            "Priority against input order, ties, skip and continue, exact fits, the reserve, "
            "required items, pairs, token counting and every validation error.",
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
                case("a required item keeps its own priority's turn, and raises if the items "
                     "before it left too little",
                     [item("guide", 70, 60), item("policy", 50, 20, required=True)], 110, 10),
                case("a required pair group that does not fit raises, naming its pair_id",
                     [item("system", 200, 100, required=True),
                      item("call", 30, 90, required=True, pair="turn-7"),
                      item("result", 400, 90, required=True, pair="turn-7")], 600, 100),
                case("a tool call and its result go in together or not at all",
                     [item("sys", 60, 100), item("call", 20, 80, pair="p1"),
                      item("result", 50, 80, pair="p1"), item("note", 10, 10)], 100),
                case("a pair group is weighed at its first member's turn, at the sum of its "
                     "tokens", [item("call", 30, 50, pair="x"), item("doc", 40, 50),
                                item("note", 10, 50), item("result", 30, 50, pair="x")], 70),
                case("items of 0 tokens always fit, even when nothing else is left",
                     [item("doc", 50, 5), item("flag", 0, 1), item("big", 80, 9)], 50),
                case("an empty list of items fits, with all of budget − reserve remaining",
                     [], 100, 10),
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
                       item("c", content="twelve chars", priority=0)], 9, 1),
                warns("with every count given, fit does not warn",
                      [item("sys", 40, 9), item("doc", 30, 5)], 100, 0),
                warns("with a tokenizer, nothing is estimated and fit does not warn",
                      [item("sys", content="Answer in one short paragraph please", priority=9)],
                      10, 0, "words"),
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
                case("a pair group whose items have different priorities is refused with a "
                     "ValueError naming it",
                     [item("call", 10, 80, pair="lookup-2"), item("result", 10, 40,
                                                                  pair="lookup-2")], 100),
                case("a pair group whose items disagree on required is refused with a "
                     "ValueError naming it",
                     [item("call", 10, 80, required=True, pair="lookup-2"),
                      item("result", 10, 80, pair="lookup-2")], 100),
                case("a budget of 0 is refused with a ValueError", [item("sys", 10)], 0),
                case("a negative reserve is refused with a ValueError", [item("sys", 10)], 100, -5),
                case("a reserve as large as the budget is refused with a ValueError",
                     [item("sys", 10)], 100, 100),
            ),
        ),
        Group(
            "properties",
            "For generated requests (items and pairs, priorities with ties, budgets and "
            "reserves): a partition in input order, honest accounting, pairs whole, the greedy "
            "choice, required items included or refused, the items unchanged.",
            (
                FIT.holds(PARTITION, requests(), partitions_in_order),
                FIT.holds(ACCOUNTING, requests(), accounts_honestly),
                FIT.holds(PAIRS, requests(), keeps_pairs_whole),
                FIT.matches(GREEDY, requests()),
                FIT.matches(REQUIRED, requests(with_required=True)),
                property_check(UNCHANGED, requests(), leaves_items_alone),
            ),
        ),
    ),
)
