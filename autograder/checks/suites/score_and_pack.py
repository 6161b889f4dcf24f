"""Tests for exercise 09: ``score_and_pack(items, query, budget) -> dict``.

The expected answers come from ``autograder.checks.reference.relevance`` (BM25 + recency + error
signal + priority, pinned items first, greedy packing, chronological output, honest accounting;
instructor-only, the student install reads the answers recorded for the visible checks). A wrong
answer is diagnosed by comparing it with the same scorer run with one signal changed or removed. """

from __future__ import annotations

from autograder.checks.compare import Compare, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Check, Group, Misconception, Suite, common_misconceptions, show
from packlab.packing.packers import stop_at_first_miss
from packlab.packing.relevance import classic_idf, score_items

LESSON = "09-scoring-relevance"
FUNCTION = "score_and_pack"
score_and_pack = Reference("relevance.score_and_pack")
KEYS = ("included", "tokens_used", "tokens_before", "deferred_count")

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-dict": Misconception(
        "not-a-dict",
        "the answer is one dict with the keys included, tokens_used, tokens_before and "
        "deferred_count — not a list, a tuple or None (did you forget `return`?).",
        LESSON,
    ),
    "missing-key": Misconception(
        "missing-key",
        "the answer has exactly four keys, spelled `included`, `tokens_used`, `tokens_before` "
        "and `deferred_count`.",
        LESSON,
    ),
    "field-types": Misconception(
        "field-types",
        "`included` is a list of id strings; the three counts are whole numbers (ints).",
        LESSON,
    ),
    "returns-items": Misconception(
        "returns-items",
        "`included` lists each packed item's id, `item[\"id\"]`, not the item dicts themselves.",
        LESSON,
    ),
    "output-by-score": Misconception(
        "output-by-score",
        "the items are *chosen* by score but *returned* in their original, chronological order: "
        "the model reads the story in the order it happened.",
        LESSON,
    ),
    "ignores-pinned": Misconception(
        "ignores-pinned",
        "a pinned item is packed before every scored item, whatever its score (pinned items in "
        "chronological order, each while it still fits).",
        LESSON,
    ),
    "break-at-first-miss": Misconception(
        "break-at-first-miss",
        "the packing stops at the first item that does not fit, so smaller items further down "
        "the ranking never get their chance. Skip that item and keep going.",
        "03-the-early-stop-trap",
    ),
    "classic-idf": Misconception(
        "classic-idf",
        "the IDF is ln(1 + (N − n + 0.5) / (n + 0.5)). The classic ln((N − n + 0.5) / (n + 0.5)) "
        "goes negative for a word in more than half of the items, and then a match *lowers* "
        "the score.",
        LESSON,
    ),
    "no-length-normalisation": Misconception(
        "no-length-normalisation",
        "BM25 discounts long items: the denominator is f + k1 · (1 − b + b · |D| / avgdl) with "
        "b = 0.75, |D| the item's word count and avgdl the average over all items.",
        LESSON,
    ),
    "no-recency": Misconception(
        "no-recency",
        "every item gets a recency bonus of 0.1 × (i + 1) / N (i = its position, N = the number "
        "of items), so of two equal items the newer one wins.",
        LESSON,
    ),
    "no-error-signal": Misconception(
        "no-error-signal",
        "an item whose words include error, panic, traceback, fail, security or regression "
        "(whole words, any case) gets +1.0.",
        LESSON,
    ),
    "ignores-priority": Misconception(
        "ignores-priority",
        "an item's `priority` (0 when the key is missing) is added to its score.",
        LESSON,
    ),
    "tokenise": Misconception(
        "tokenise",
        "words are the runs of a–z and 0–9 after lower-casing: punctuation separates words, so "
        "'Deploy-failed:' holds the words 'deploy' and 'failed'.",
        LESSON,
    ),
    "query-repeats": Misconception(
        "query-repeats",
        "BM25 sums over the *distinct* words of the query: a word typed twice counts once.",
        LESSON,
    ),
    "ties-order": Misconception(
        "ties-order",
        "items with exactly the same score are ranked in chronological order (the older first): "
        "a stable sort by score, highest first, does it.",
        LESSON,
    ),
    "not-by-score": Misconception(
        "not-by-score",
        "after the pinned items, rank the rest by score = BM25 + recency + error signal + "
        "priority, highest first, and take each one that still fits.",
        LESSON,
    ),
    "over-budget": Misconception(
        "over-budget",
        "the packed items must fit in the budget, pinned ones included: take an item only when "
        "the tokens used so far plus its tokens are at most the budget.",
        LESSON,
    ),
    "tokens-used-wrong": Misconception(
        "tokens-used-wrong",
        "`tokens_used` is the sum of the tokens of the included items only.",
        LESSON,
    ),
    "tokens-before-wrong": Misconception(
        "tokens-before-wrong",
        "`tokens_before` is what sending everything would cost: the tokens of all the items.",
        LESSON,
    ),
    "deferred-count-wrong": Misconception(
        "deferred-count-wrong",
        "`deferred_count` counts the items left out (N − len(included)), not their tokens.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "scoring and packing must not change the items given: the caller still needs them.",
        LESSON,
    ),
}


# --- the course's answer, and the same scorer with one idea changed -------------------------

def without(items: list[dict], key: str) -> list[dict]:
    return [{k: v for k, v in item.items() if k != key} for item in items]


def on_spaces(text: str) -> list[str]:
    return text.lower().split()


def variants(items: list[dict], query: str, budget: int):
    """(misconception key, what a packer with that wrong idea returns)."""
    yield "ignores-pinned", lambda: score_and_pack(without(items, "pinned"), query, budget)
    yield "break-at-first-miss", lambda: score_and_pack(items, query, budget,
                                                        packer=stop_at_first_miss)
    yield "no-length-normalisation", lambda: score_and_pack(items, query, budget, b=0.0)
    yield "no-recency", lambda: score_and_pack(items, query, budget, recency_weight=0.0)
    yield "no-error-signal", lambda: score_and_pack(items, query, budget, error_boost=0.0)
    yield "ignores-priority", lambda: score_and_pack(without(items, "priority"), query, budget)
    yield "tokenise", lambda: score_and_pack(items, query, budget, tokenise=on_spaces)
    yield "classic-idf", lambda: score_and_pack(items, query, budget, idf=classic_idf)


def packing_order(items: list[dict], query: str) -> str:
    """The order the items are packed in (pinned ones chronologically, then by score, ties older
    first), with their scores, for a failure message."""
    scores = score_items(items, query)
    order = [s for s in scores if s.pinned] + sorted(
        (s for s in scores if not s.pinned), key=lambda s: (-s.total, s.index))
    shown = [f"{s.id} (pinned)" if s.pinned else f"{s.id} {s.total:.3f}" for s in order[:8]]
    return ", ".join(shown) + (", …" if len(order) > 8 else "")


def expected_text(items: list[dict], query: str, budget: int) -> str:
    order = packing_order(items, query)
    return f"{show(score_and_pack(items, query, budget))}; packing order: {order}"


# --- diagnosis ------------------------------------------------------------------------------

def is_id_list(value) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def shape_problem(got) -> str | None:
    """The key of what is wrong with the answer's shape, or None when it is well formed."""
    if type(got) is not dict:
        return "not-a-dict"
    if sorted(got) != sorted(KEYS):
        return "missing-key"
    if type(got["included"]) is list and any(type(x) is dict for x in got["included"]):
        return "returns-items"
    if not is_id_list(got["included"]) or any(type(got[k]) is not int for k in KEYS[1:]):
        return "field-types"
    return None


def choice_problem(items: list[dict], query: str, budget: int, included: list[str],
                   fallback: str) -> str:
    """The likeliest wrong idea behind a wrong list of included ids."""
    right = score_and_pack(items, query, budget)["included"]
    if sorted(included) == sorted(right):
        return "output-by-score"
    for key, variant in variants(items, query, budget):
        other = variant()["included"]
        if sorted(other) != sorted(right) and sorted(included) == sorted(other):
            return key
    tokens = {item["id"]: item["tokens"] for item in items}
    if sum(tokens.get(key, 0) for key in set(included)) > budget:
        return "over-budget"
    return fallback


def content_problem(items: list[dict], query: str, budget: int, got: dict,
                    fallback: str) -> str:
    expected = score_and_pack(items, query, budget)
    if got["included"] != expected["included"]:
        return choice_problem(items, query, budget, got["included"], fallback)
    for key in KEYS[1:]:
        if got[key] != expected[key]:
            return key.replace("_", "-") + "-wrong"
    return fallback


def diagnose(args: list, got, fallback: str = "not-by-score") -> Misconception:
    """Name the likeliest wrong idea behind a wrong answer (``fallback`` when nothing fits)."""
    return MISCONCEPTIONS[shape_problem(got) or content_problem(*args, got, fallback)]


def scorer(fallback: str = "not-by-score") -> Compare:
    """How an answer is judged, its diagnosis falling back on ``fallback``."""
    return Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=score_and_pack,
                   diagnose=lambda args, got: diagnose(args, got, fallback),
                   malformed=shape_problem, expected_text=expected_text, vary=vary_parts)


SCORER = scorer()


def case(name: str, items: list[dict], query: str, budget: int,
         fallback: str = "not-by-score") -> Check:
    return scorer(fallback).case(name, items, query, budget)


def example(name: str, answer: tuple[list[str], int, int, int], items: list[dict], query: str,
            budget: int, fallback: str = "not-by-score") -> Check:
    """A visible example, its answer written out as (included, tokens_used, tokens_before,
    deferred_count)."""
    included, used, before, deferred = answer
    return scorer(fallback).answers(name, {"included": included, "tokens_used": used,
                                           "tokens_before": before, "deferred_count": deferred},
                                    items, query, budget)


def item(key: str, text: str, tokens: int, **extra) -> dict:
    return {"id": key, "text": text, "tokens": tokens, **extra}


# --- named cases ----------------------------------------------------------------------------

LESSON_EXAMPLE = [
    item("sys", "You answer questions about deploys.", 7, pinned=True),
    item("note", "Deploys roll out in three waves.", 7),
    item("cache", "INFO cache warmed", 4),
    item("log", "ERROR deploy 4.2 failed: migration timed out", 10),
    item("ask", "Why did the deploy fail?", 6, pinned=True),
]

MORE_WORDS = [
    item("a", "deploy notes", 10),
    item("b", "deploy rollback plan", 10),
    item("c", "tax rules", 10),
]

ACCOUNT_EXAMPLE = [
    item("p", "deploy steps", 15),
    item("q", "deploy rollback", 12),
    item("r", "cache", 8),
    item("s", "tax rules", 20),
]


# --- the suite ------------------------------------------------------------------------------
# One visible group per step of the exercise (course.toml's [[exercises.steps]]). Each step's
# checks hold the other steps' ideas still, so a mistake about one idea fails its own step:
# no alarm word, priority or pinned item before the step that teaches it; words of plain
# lower-case letters and digits after step 1; items of one size in a call until step 4 (then
# skipping one that does not fit is the same as stopping); and no pinned item or alarm word in
# step 4.

RELEVANCE = Group(
    "relevance-visible",
    "Step 1: the best BM25 match first, words split at punctuation, recency between equals, "
    "chronological output, everything fitting, and no items.",
    (
        SCORER.about("tokens_used, tokens_before and deferred_count add up: 20 tokens used of "
                     "the 30 offered, one item deferred",
                     {"tokens-used-wrong", "tokens-before-wrong", "deferred-count-wrong"},
                     MORE_WORDS, "deploy rollback", 20),
        example("the winners come back in story order (chronological), not in score order",
                (["x", "y"], 20, 50, 3),
                [item("x", "rollback steps", 10), item("y", "rollback rollback rollback", 10),
                 item("z", "cache", 10), item("w", "tax rules", 10),
                 item("v", "queue retries", 10)], "rollback", 20, "output-by-score"),
        example("punctuation separates words and case does not matter: "
                "'Rollback: (queue)' matches both words of 'Queue rollback'",
                (["msg-1"], 10, 60, 3),
                [item("note", "release notes for the mobile app", 20),
                 item("msg-1", "Rollback: (queue) drained.", 10),
                 item("msg-2", "rollback metrics exported to the dashboard", 10),
                 item("todo", "update the status page", 20)],
                "Queue rollback", 10, "tokenise"),
        example("of two identical items the newer one wins, by recency",
                (["dup-2"], 10, 20, 1),
                [item("dup-1", "cache miss on shard 7", 10),
                 item("dup-2", "cache miss on shard 7", 10)], "shard", 10, "no-recency"),
        example("a word found in most items still counts for them (IDF stays positive): the "
                "newer match 'b' goes in", (["b"], 10, 30, 2),
                [item("a", "deploy notes", 10), item("b", "deploy steps", 10),
                 item("c", "cache", 10)], "deploy", 10, "classic-idf"),
        example("the item matching more query words ranks first: 'b' and then 'a' go in",
                (["a", "b"], 20, 30, 1), MORE_WORDS, "deploy rollback", 20),
        example("when everything fits, every item is included in chronological order",
                (["a", "b", "c"], 30, 30, 0),
                [item("a", "deploy notes", 10), item("b", "rollback plan", 12),
                 item("c", "tax rules", 8)], "deploy", 100),
        example("no items: nothing included, nothing deferred", ([], 0, 0, 0), [],
                "deploy", 50),
    ),
    visible=True,
)

SIGNALS = Group(
    "signals-visible",
    "Step 2: a line with an alarm word, a word that only looks like one, and a priority.",
    (
        example("a line with the word ERROR gets the error boost",
                (["line-1"], 10, 20, 1),
                [item("line-1", "ERROR queue stuck on worker 2", 10),
                 item("line-2", "queue length at 40 on worker 2", 10)], "worker", 10,
                "no-error-signal"),
        example("alarm words count as whole words: 'failed' is not 'fail', so the newer "
                "'b' wins", (["b"], 10, 20, 1),
                [item("a", "deploy failed", 10), item("b", "deploy notes", 10)], "deploy", 10),
        example("priority is added to the score: 'a' with priority 2 beats the better match",
                (["a"], 10, 20, 1),
                [item("a", "tent sizes", 10, priority=2), item("b", "tent return rules", 10)],
                "return rules", 10, "ignores-priority"),
    ),
    visible=True,
)

PINNED = Group(
    "pinned-visible",
    "Step 3: a pinned item with the lowest score, and the lesson's deploy example.",
    (
        example("a pinned item goes in first, even with the lowest score",
                (["sys", "doc"], 20, 30, 1),
                [item("sys", "be brief", 10, pinned=True), item("doc", "deploy migration", 10),
                 item("log", "deploy", 10)], "deploy migration", 20, "ignores-pinned"),
        example("pinned instructions and question, then the ERROR log, in story order",
                (["sys", "cache", "log", "ask"], 27, 34, 1),
                LESSON_EXAMPLE, "why did the deploy fail", 27),
    ),
    visible=True,
)

PACK = Group(
    "pack-visible",
    "Step 4: items of different sizes: a big one skipped while the walk goes on, and the "
    "accounting.",
    (
        example("a big high-scoring item that does not fit is skipped and the walk goes on: "
                "'step', 'tip' and 'memo' still go in", (["step", "tip", "memo"], 35, 185, 1),
                [item("trace", "deploy trace deploy trace migration", 150),
                 item("step", "deploy migration", 15), item("tip", "deploy", 15),
                 item("memo", "tax rules", 5)], "deploy migration", 40, "break-at-first-miss"),
        SCORER.about("tokens_used, tokens_before and deferred_count add up: 27 tokens used of "
                     "the 55 offered, two items deferred",
                     {"tokens-used-wrong", "tokens-before-wrong", "deferred-count-wrong"},
                     ACCOUNT_EXAMPLE, "deploy rollback", 30),
        example("the best two fit and the other two are deferred",
                (["p", "q"], 27, 55, 2), ACCOUNT_EXAMPLE, "deploy rollback", 30),
    ),
    visible=True,
)

# The visible groups only: the hidden ones are in autograder/checks/hidden/score_and_pack.py.
SUITE = Suite(function=FUNCTION, reference=score_and_pack,
              groups=(RELEVANCE, SIGNALS, PINNED, PACK))
