"""The hidden tests of exercise 09, ``score_and_pack``: one group per step, its edge cases and
properties. As the visible groups do, a step's checks hold the other steps' ideas still (see
`autograder.checks.suites.score_and_pack`)."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from autograder.checks.reference.relevance import ranking
from autograder.checks.suite import Group
from autograder.checks.suites.pack import first_wrong_turn, in_input_order
from autograder.checks.suites.score_and_pack import (
    MISCONCEPTIONS,
    SCORER,
    case,
    diagnose,
    expected_text,
    item,
)
from packlab.packing.relevance import score_items

PINNED_LOWEST = [
    item("sys", "Be brief and polite.", 30, pinned=True),
    item("doc", "deploy failed because the migration timed out", 35),
    item("log", "deploy migration timed out", 35),
]

SCORE_REVERSED = [
    item("old", "notes about the cache", 10),
    item("mid", "migration notes", 10),
    item("new", "migration migration timed out", 10),
]

ERROR_BOOST = [
    item("log-1", "Error disk full on node 3", 10),
    item("log-2", "disk usage at 71 percent on node 3", 10),
]

TIE = [
    item("older", "release notes", 10, priority=0.05),
    item("newer", "release notes", 10),
]

PRIORITY = [
    item("memo", "the customer prefers email", 10, priority=2),
    item("doc", "refund policy for tents", 10),
]

ZERO_BUDGET = [
    item("big", "deploy failed", 5),
    item("empty", "", 0),
    item("small", "deploy", 1),
]

EMPTY_QUERY_PLAIN = [
    item("a", "deploy notes", 10),
    item("b", "cache warmed", 10),
    item("c", "tax rules", 10),
]

EMPTY_QUERY = [
    item("a", "deploy notes", 10),
    item("b", "ERROR deploy failed", 10),
    item("c", "cache warmed", 10),
    item("d", "tax rules", 10, priority=1),
    item("e", "queue retries", 10),
]

EVERYWHERE = [
    item("runbook", "deploy deploy deploy", 10),
    item("notes", "deploy notes for the tax rules and the queue", 10),
    item("cache", "deploy cache warmed after the restart", 10),
]

# Old, big items that never fit: with five items, a word in two of them keeps a positive IDF
# under the classic formula too, so these cases test one idea each.
FILLERS = [
    item("old-1", "cache warmed", 50),
    item("old-2", "tax rules", 50),
    item("old-3", "queue retries", 50),
]

LENGTH = [
    *FILLERS,
    item("short", "migration timed out", 10),
    item("long", "migration notes: the orders table gets a new index on customer id, and the "
                 "tax rules for the EU change in the same release", 10),
]

BIG_FIRST = [
    item("sys", "Answer briefly.", 10, pinned=True),
    item("dump", "deploy log deploy log deploy log migration failed", 200),
    item("log", "deploy migration", 20),
    item("note", "deploy", 20),
]

IDENTICAL = [
    item("copy-1", "health check returned 503", 10),
    item("copy-2", "health check returned 503", 10),
]

ACCOUNTING = [
    item("sys", "Answer from the logs.", 12, pinned=True),
    item("log-a", "queue retries rising", 25),
    item("log-b", "ERROR payment queue stalled", 30),
    item("doc", "how the payment queue retries", 40),
    item("ask", "why is the payment queue stuck", 8, pinned=True),
]

PINNED_TOO_BIG = [
    item("sys", "Long instructions.", 50, pinned=True),
    item("ask", "why did the deploy fail", 10, pinned=True),
    item("log", "deploy failed", 20),
]

PUNCTUATION = [
    *FILLERS,
    item("log", "Deploy-failed: ROLLBACK.", 10),
    item("note", "rollback plan ready", 10),
]

QUERY_REPEATS = [
    item("a", "migration", 10),
    item("b", "cache", 10, priority=1),
]

UNCHANGED = [
    item("sys", "Answer briefly.", 5, pinned=True),
    item("log", "ERROR deploy failed", 20, priority=1),
    item("doc", "deploy notes", 20),
]

NAMES = ("sys", "log-3", "doc", "turn-2", "memo", "log-1", "note", "ask", "turn-1", "tool")
VOCAB = ("deploy", "Deploy", "failed", "fail", "ERROR", "cache", "migration", "the", "index",
         "retry", "Panic:", "health-check", "tax", "orders", "queue", "security", "rollback",
         "503", "timed", "out.")
QUERY_WORDS = ("deploy", "fail", "migration", "the", "cache", "why", "queue", "503")


PLAIN = ("deploy", "failed", "cache", "migration", "the", "index", "retry", "tax", "orders",
         "queue", "rollback", "503", "timed", "out")
CASES = ("Deploy", "health-check", "out.", "Rollback:", "(queue)")
ALARMS = ("fail", "error", "panic", "security")


def example_of(size: int, seed: int, vocab: tuple[str, ...] = VOCAB, pinned: bool = True,
               priority: bool = True, one_size: bool = False) -> tuple[list[dict], str, int]:
    """``size`` items, a query of up to 3 words and a budget between 0 and all their tokens;
    their words from ``vocab``, pinned items and priorities only when asked, and with
    ``one_size`` every item of the same number of tokens.

    Built from two generated numbers: shrinking a failing example then takes a few dozen tries
    (fewer items first) instead of thousands, so a wrong answer is reported within seconds.
    """
    chooser = random.Random(seed)
    items = []
    size_of_all = chooser.randint(0, 60)
    for key in NAMES[:size]:
        text = " ".join(chooser.choice(vocab) for _ in range(chooser.randint(0, 10)))
        entry = {"id": key, "text": text,
                 "tokens": size_of_all if one_size else chooser.randint(0, 60)}
        level = chooser.choice((None, None, 0, 0.5, 1, 2))
        if priority and level is not None:
            entry["priority"] = level
        pin = chooser.choice((None, None, False, False, True))
        if pinned and pin is not None:
            entry["pinned"] = pin
        items.append(entry)
    query = " ".join(chooser.choice(QUERY_WORDS) for _ in range(chooser.randint(0, 3)))
    budget = chooser.randint(0, sum(entry["tokens"] for entry in items))
    return items, query, budget


def examples_of(**kind) -> st.SearchStrategy:
    """Generated calls (`example_of`) of one kind."""
    return st.tuples(st.integers(0, 8), st.integers(0, 2**32)).map(
        lambda pair: example_of(*pair, **kind))


# Each step's generated calls: only what it teaches varies (see the suite's notes).
RELEVANT = examples_of(vocab=PLAIN + CASES, pinned=False, priority=False, one_size=True)
SIGNALLED = examples_of(vocab=PLAIN + ALARMS, pinned=False, one_size=True)
PINNED = examples_of(vocab=PLAIN, one_size=True)
SIZED = examples_of(vocab=PLAIN, pinned=False)


IDS = "the included ids come from the items, each once, in chronological order"
BUDGET = "tokens_used is the sum of the included items' tokens and at most the budget"
ACCOUNT = "tokens_before is the sum of all tokens and deferred_count is N − len(included)"
SAME = "the same call twice gives the same answer"
GREEDY = "every item left out did not fit at its turn in the packing order"
MATCHES = "the answer is exactly the course's scoring and packing"
LEFT_ALONE = "the items are left as they were"


def chronological(args: list, got: dict) -> str | None:
    if not in_input_order(got["included"], args[0]):
        return expected_text(*args)
    return None


def within_budget(args: list, got: dict) -> None:
    items, _, budget = args
    tokens = {entry["id"]: entry["tokens"] for entry in items}
    used = sum(tokens.get(key, 0) for key in got["included"])
    if got["tokens_used"] != used or used > budget:
        raise SCORER.wrong(BUDGET, args, got,
                           f"tokens_used = {used} (the included items' tokens), at most {budget}",
                           diagnose(args, got, "over-budget" if used > budget
                                    else "tokens-used-wrong"))


def accounts(args: list, got: dict) -> None:
    items = args[0]
    before = sum(entry["tokens"] for entry in items)
    deferred = len(items) - len(got["included"])
    if got["tokens_before"] != before:
        raise SCORER.wrong(ACCOUNT, args, got, f"tokens_before = {before}",
                           MISCONCEPTIONS["tokens-before-wrong"])
    if got["deferred_count"] != deferred:
        raise SCORER.wrong(ACCOUNT, args, got,
                           f"deferred_count = {deferred} (N = {len(items)} items, "
                           f"{len(got['included'])} included)",
                           MISCONCEPTIONS["deferred-count-wrong"])


def greedy_in_packing_order(args: list, got: dict) -> str | None:
    items, query, budget = args
    order = [{"id": s.id, "tokens": s.tokens} for s in ranking(score_items(items, query))]
    reason = first_wrong_turn(order, budget, got["included"])
    if reason:
        return f"{expected_text(*args)}; because {reason}"
    return None


GROUPS = (
    Group(
        "relevance-hidden",
        "Step 1: a word in every item, punctuation and case, chronological output, length "
        "normalisation, recency, an empty query; generated calls: ids in chronological order, "
        "an honest account, the same answer twice, the course's exact answer, the items "
        "unchanged.",
        (
            case("a word in every item never counts against it (IDF stays positive)",
                 EVERYWHERE, "deploy", 10, "classic-idf"),
            case("punctuation separates words and case does not matter",
                 PUNCTUATION, "deploy", 10, "tokenise"),
            case("the output is chronological even when the scores rank the newest first",
                 SCORE_REVERSED, "migration", 30, "output-by-score"),
            case("a short item beats a long one with the same match (b = 0.75)",
                 LENGTH, "migration", 10, "no-length-normalisation"),
            case("of two identical items the newer one wins (recency)",
                 IDENTICAL, "health check", 10, "no-recency"),
            case("an empty query ranks by recency alone: the newest goes first",
                 EMPTY_QUERY_PLAIN, "", 20, "no-recency"),
            SCORER.holds(IDS, RELEVANT, chronological),
            SCORER.holds(ACCOUNT, RELEVANT, accounts),
            SCORER.same_twice(SAME, RELEVANT, "the same answer both times",
                              MISCONCEPTIONS["not-by-score"], max_examples=30),
            SCORER.matches(MATCHES, RELEVANT),
            SCORER.leaves_alone(LEFT_ALONE, RELEVANT, max_examples=30),
        ),
    ),
    Group(
        "signals-hidden",
        "Step 2: the error boost, priority, a tie between them, a repeated query word, an "
        "empty query; generated calls with alarm words and priorities: the course's exact "
        "answer.",
        (
            case("a log line with the word Error gets the error boost",
                 ERROR_BOOST, "restart", 10, "no-error-signal"),
            case("two items with exactly the same score: the older one goes first",
                 TIE, "deploy", 10, "ties-order"),
            case("priority is added to the score: the memo with priority 2 wins",
                 PRIORITY, "tent refund policy", 10, "ignores-priority"),
            case("a word repeated in the query counts once, so priority 1 still wins",
                 QUERY_REPEATS, "migration migration migration", 10, "query-repeats"),
            case("an empty query ranks by recency, error signal and priority alone",
                 EMPTY_QUERY, "", 30),
            SCORER.matches(MATCHES, SIGNALLED),
        ),
    ),
    Group(
        "pinned-hidden",
        "Step 3: a pinned item with the lowest score; generated calls with pinned items: the "
        "course's exact answer, greedy in the packing order.",
        (
            case("a pinned item is always in, even when its score is the lowest",
                 PINNED_LOWEST, "deploy migration", 70, "ignores-pinned"),
            SCORER.holds(GREEDY, PINNED, greedy_in_packing_order),
            SCORER.matches(MATCHES, PINNED),
        ),
    ),
    Group(
        "pack-hidden",
        "Step 4: a big item first, a zero budget, a pinned item too big, the accounting, the "
        "items unchanged; generated calls with items of every size: within the budget, an "
        "honest account, greedy in the packing order, the course's exact answer.",
        (
            case("a big high-scoring item that does not fit is skipped and the walk goes on",
                 BIG_FIRST, "deploy migration", 50, "break-at-first-miss"),
            case("with a budget of 0, only the item of 0 tokens is included",
                 ZERO_BUDGET, "deploy", 0, "over-budget"),
            case("tokens_used, tokens_before and deferred_count add up",
                 ACCOUNTING, "payment queue", 60),
            case("a pinned item that does not fit is deferred and packing goes on",
                 PINNED_TOO_BIG, "deploy", 35, "over-budget"),
            SCORER.left_alone("the items list is left exactly as it was",
                              UNCHANGED, "deploy", 30),
            case("the pinned item, then the ERROR log with priority 1; the plain note does "
                 "not fit and is deferred", UNCHANGED, "deploy", 30),
            SCORER.holds(BUDGET, SIZED, within_budget),
            SCORER.holds(ACCOUNT, SIZED, accounts),
            SCORER.holds(GREEDY, SIZED, greedy_in_packing_order),
            SCORER.matches(MATCHES, SIZED),
        ),
    ),
)
