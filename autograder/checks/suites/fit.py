"""Tests for exercise 06: ``fit(items, budget, reserve=0, tokenizer=None) -> dict``.

The expected answers come from `autograder.checks.reference.fitting` (the course's `fit`,
instructor-only; the student install reads the answers recorded for the visible checks,
`autograder.checks.recorded`); the classic wrong versions of the walk in
`packlab.packing.fitting.MISTAKES` name the likeliest mistake behind a wrong answer.

A check that expects an error catches the `StudentError` itself: the function must *raise*, a
``ValueError`` (or a class of the learner's own, which the grader cannot see into), and its
message must name what the course's error names (the item, and for a required item that does not
fit: the tokens it needs, the tokens left, the shortfall, the budget and the reserve).
"""

from __future__ import annotations

import math
import re

from autograder.checks.compare import CompareOrRaise, Draw, Unchanged, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import (
    Answer,
    Caller,
    Check,
    Group,
    Misconception,
    Suite,
    common_misconceptions,
    error_parts,
    show,
    wrong_kind,
)
from packlab.packing.fitting import (
    KEYS,
    MISTAKES,
    FitError,
    InvalidInput,
    RequiredDoesNotFit,
    is_number,
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


# The course's answer for these arguments (or the error it raises), without its warning.
expected_outcome = Reference("fitting.outcome")


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
                     unchanged=Unchanged("items", compared=lambda args: args[0]),
                     vary=lambda rng, args: vary_parts(rng, args, scale=False))


def case(name: str, items: list[dict], budget, reserve=0, tokenizer: str | None = None,
         draw: Draw | None = None) -> Check:
    return FIT.case(name, *args_of(items, budget, reserve, tokenizer), draw=draw)


def result(included: list[str], excluded: list[str], used: int, remaining: int) -> dict:
    """fit's answer, written out."""
    return {"included": included, "excluded": excluded, "tokens_used": used,
            "tokens_remaining": remaining}


def example(name: str, answer: dict | FitError, items: list[dict], budget, reserve=0,
            tokenizer: str | None = None) -> Check:
    """A visible example, its answer (or the error it raises) written out."""
    return FIT.answers(name, answer, *args_of(items, budget, reserve, tokenizer))


def warns(name: str, items: list[dict], budget, wanted: int, tokenizer: str | None = None,
          answer: dict | None = None, draw: Draw | None = None) -> Check:
    """fit returns the course's answer (``answer``, when written out) and gives ``wanted``
    UserWarnings (0 or 1); a hidden one calls with what ``draw`` makes for the student."""
    written = args_of(items, budget, 0, tokenizer)
    judge = FIT if answer is None else FIT.knowing(answer)

    def run(call: Caller) -> None:
        args = judge.varied(written, draw)
        got = judge.returned(call, name, args, exact=True)
        count = sum(w.startswith("UserWarning") for w in got.warnings)
        if count != wanted:
            said = "no warning" if count == 0 else f"{count} UserWarnings"
            expected = show(judge.expected(args))
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


# The lesson's agent request. Step 1 sees it without required items or pairs (the tool call and
# its result one item); step 3 sees it whole.
AGENT = [
    item("system", 120, 100, required=True),
    item("history-1", 60, 30),
    item("history-2", 80, 30),
    item("chunk-faq", 150, 40),
    item("tool-call", 40, 80, pair="lookup"),
    item("tool-result", 200, 80, pair="lookup"),
    item("latest", 50, 90, required=True),
]
AGENT_PLAIN = [
    item("system", 120, 100),
    item("history-1", 60, 30),
    item("history-2", 80, 30),
    item("chunk-faq", 150, 40),
    item("tool", 240, 80),
    item("latest", 50, 90),
]

# --- the suite ------------------------------------------------------------------------------------
# One visible group per step of the exercise (course.toml's [[exercises.steps]]); a step's checks
# use only what the steps before it taught: the reserve is 0 after step 1, required items appear
# from step 2, pairs from step 3, and counting and invalid input only in step 4.

REQUIRED_SHORT = [item("system", 300, 100, required=True), item("rag", 500, 90),
                  item("latest", 320, 80, required=True)]

PRIORITY = Group(
    "priority-visible",
    "Step 1: the lesson's agent request with a reserve, a budget everything fits in, and ties.",
    (
        FIT.about("the reserve is held back: only budget − reserve = 550 tokens are packed",
                  {"no-reserve"}, *args_of(AGENT_PLAIN, 700, 150, None)),
        FIT.about("the highest priority is weighed first, wherever it sits in the list",
                  {"ignores-priority", "unstable-ties"}, *args_of(AGENT_PLAIN, 700, 150, None)),
        FIT.about("an item too big for what is left is excluded and the walk goes on",
                  {"break-at-first-miss"}, *args_of(AGENT_PLAIN, 700, 150, None)),
        FIT.about("included ids come back in input order, not in priority order",
                  {"output-in-priority-order"}, *args_of(AGENT_PLAIN, 700, 150, None)),
        example("the agent request at budget 700, reserve 150: by priority, 'chunk-faq' skipped "
                "and the walk goes on", result(["system", "history-1", "history-2", "tool",
                                                "latest"], ["chunk-faq"], 550, 0),
                AGENT_PLAIN, 700, 150),
        example("when everything fits, every id is included in input order and the rest of "
                "budget − reserve remains", result(["system", "turn", "chunk"], [], 200, 700),
                [item("system", 100, 100), item("turn", 60, 50), item("chunk", 40, 20)],
                1000, 100),
        example("on equal priorities the earlier item is weighed first: 'faq-1' and 'faq-2' go "
                "in, 'faq-3' does not", result(["faq-1", "faq-2"], ["faq-3"], 80, 10),
                [item("faq-1", 40, 30), item("faq-2", 40, 30), item("faq-3", 40, 30)], 90),
    ),
    visible=True,
)

REQUIRED = Group(
    "required-visible",
    "Step 2: required items that fit, and one that does not fit at its own turn.",
    (
        example("required items that fit are simply included",
                result(["system", "latest"], ["rag"], 370, 30),
                [item("system", 300, 100, required=True), item("rag", 500, 90),
                 item("latest", 70, 80, required=True)], 400),
        FIT.about("a required item keeps its own priority's turn; it is not moved ahead of "
                  "higher priorities", {"required-promoted"}, *args_of(REQUIRED_SHORT, 850)),
        example("a required item that does not fit raises a ValueError naming it, the tokens it "
                "needs and is short, the budget and the reserve",
                RequiredDoesNotFit(
                    "required item 'latest' does not fit: it needs 320 tokens but only 50 are "
                    "left after the items placed before it, 270 short (budget 850, reserve 0)",
                    ("latest", "320", "50", "270", "850", "0")),
                REQUIRED_SHORT, 850),
    ),
    visible=True,
)

PAIRS = Group(
    "pairs-visible",
    "Step 3: a tool call and its result as a pair, and the whole agent request.",
    (
        example("a tool call and its result are a pair: they go in together or not at all",
                result(["rules", "aside"], ["lookup", "answer"], 70, 50),
                [item("rules", 50, 100), item("lookup", 30, 70, pair="t1"),
                 item("answer", 60, 70, pair="t1"), item("aside", 20, 5)], 120),
        example("the agent request at budget 550: required items, the tool pair whole, then the "
                "rest by priority",
                result(["system", "history-1", "history-2", "tool-call", "tool-result",
                        "latest"], ["chunk-faq"], 550, 0), AGENT, 550),
    ),
    visible=True,
)

INPUT = Group(
    "input-visible",
    "Step 4: items counted by estimate, with one warning, and a token count that is not a number.",
    (
        warns("two items without token counts are estimated, with one UserWarning for the whole "
              "call", [item("q", content="what ships free?", priority=3),
                       item("a", content="tents over sixty euros", priority=2)], 50, 1,
              answer=result(["q", "a"], [], 10, 40)),
        example("a token count that is not a number (NaN) is refused with a ValueError naming "
                "the item",
                InvalidInput("item 'memo' has tokens=nan: a token count must be a finite "
                             "number, 0 or more", ("memo",)),
                [item("rules", 30, 9), item("memo", math.nan, 2)], 200),
    ),
    visible=True,
)

# The visible groups only: the hidden ones are in autograder/checks/hidden/fit.py.
SUITE = Suite(function=FUNCTION, reference=Reference("fitting.fit"),
              groups=(PRIORITY, REQUIRED, PAIRS, INPUT))
