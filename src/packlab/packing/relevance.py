"""Scoring relevance (lesson 09): Okapi BM25 plus recency, error, priority and pinned signals.

``score_and_pack(items, query, budget)`` is the lesson's version (with knobs to change one signal);
exercise 09 is graded against the instructor's own reference
(`autograder.checks.reference.relevance`, never in the student install), and its rules differ from
this module's in one place: items of exactly the same score go *older* first in the exercise,
*newer* first here. Items are plain dicts in chronological order (later in the list means newer)::

    {"id": "log-7", "text": "ERROR deploy failed", "tokens": 5, "priority": 0.0, "pinned": False}

The rules, exactly as the exercise states them:

- words: lower-case the text, then take the runs of the characters a-z and 0-9;
- BM25 (k1 = 1.5, b = 0.75) of each item's words against the *distinct* words of the query,
  with the IDF ln(1 + (N - n + 0.5) / (n + 0.5)), which is never negative;
- recency: 0.1 * (i + 1) / N for the item at position i of N;
- error signal: +1.0 when the item's words include error, panic, traceback, fail, security or
  regression;
- priority: the item's own ``priority`` (0 when missing);
- pinned items go first, in chronological order; then the rest by score, highest first; each
  is packed greedily (skip and continue), pinned ones included, so a pinned item that does not
  fit is deferred like any other;
- the winners come back in chronological order, with honest accounting.

The view ``relevance_view`` lets a learner type a query and slide a budget over the same items.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from packlab.packing.packers import Packer, greedy, ids_of
from packlab.packing.tokens import count_tokens

K1 = 1.5
B = 0.75
RECENCY_WEIGHT = 0.1
ERROR_BOOST = 1.0
ERROR_WORDS = frozenset({"error", "panic", "traceback", "fail", "security", "regression"})

_WORD = re.compile(r"[a-z0-9]+")

Tokeniser = Callable[[str], list[str]]
Idf = Callable[[int, int], float]


def words(text: str) -> list[str]:
    """The words BM25 sees: lower-cased runs of a-z and 0-9 (everything else separates)."""
    return _WORD.findall(text.lower())


def lucene_idf(n_docs: int, containing: int) -> float:
    """Lucene's IDF, ln(1 + (N - n + 0.5) / (n + 0.5)): always above zero."""
    return math.log(1 + (n_docs - containing + 0.5) / (containing + 0.5))


def classic_idf(n_docs: int, containing: int) -> float:
    """The classic Robertson-Sparck Jones IDF: negative when n is more than half of N."""
    return math.log((n_docs - containing + 0.5) / (containing + 0.5))


def saturation(freq: int, doc_len: int, avg_len: float, k1: float = K1, b: float = B) -> float:
    """BM25's term-frequency part: f * (k1 + 1) / (f + k1 * (1 - b + b * |D| / avgdl))."""
    if freq == 0:
        return 0.0
    return freq * (k1 + 1) / (freq + k1 * (1 - b + b * doc_len / avg_len))


def bm25_scores(texts: Sequence[str], query: str, *, k1: float = K1, b: float = B,
                idf: Idf = lucene_idf, tokenise: Tokeniser = words) -> list[float]:
    """The Okapi BM25 score of every text against the distinct words of ``query``."""
    docs = [tokenise(text) for text in texts]
    if not docs:
        return []
    avg_len = sum(len(doc) for doc in docs) / len(docs)
    counts = [Counter(doc) for doc in docs]
    scores = [0.0] * len(docs)
    for term in dict.fromkeys(tokenise(query)):
        containing = sum(1 for count in counts if term in count)
        if containing == 0:
            continue  # no document has it, so avg_len > 0 whenever we go on
        weight = idf(len(docs), containing)
        for i, (doc, count) in enumerate(zip(docs, counts, strict=True)):
            scores[i] += weight * saturation(count[term], len(doc), avg_len, k1, b)
    return scores


def recency(index: int, count: int, weight: float = RECENCY_WEIGHT) -> float:
    """The recency bonus of the item at ``index`` of ``count``: newest gets ``weight``."""
    return weight * (index + 1) / count


def has_error_signal(text: str, tokenise: Tokeniser = words) -> bool:
    """Whether the text contains one of ERROR_WORDS as a whole word, in any case."""
    return not ERROR_WORDS.isdisjoint(tokenise(text))


@dataclass(frozen=True)
class ItemScore:
    """One item's score, broken into its signals."""

    id: str
    index: int
    tokens: int
    pinned: bool
    bm25: float
    recency: float
    error: float
    priority: float

    @property
    def total(self) -> float:
        return self.bm25 + self.recency + self.error + self.priority


def score_items(items: Sequence[dict], query: str, *, k1: float = K1, b: float = B,
                idf: Idf = lucene_idf, recency_weight: float = RECENCY_WEIGHT,
                error_boost: float = ERROR_BOOST, tokenise: Tokeniser = words,
                ) -> list[ItemScore]:
    """Every item's signals, in chronological order (the order given)."""
    relevance = bm25_scores([item["text"] for item in items], query, k1=k1, b=b, idf=idf,
                            tokenise=tokenise)
    return [
        ItemScore(
            id=item["id"],
            index=i,
            tokens=item["tokens"],
            pinned=bool(item.get("pinned", False)),
            bm25=relevance[i],
            recency=recency(i, len(items), recency_weight),
            error=error_boost if has_error_signal(item["text"], tokenise) else 0.0,
            priority=item.get("priority", 0),
        )
        for i, item in enumerate(items)
    ]


def ranking(scores: Sequence[ItemScore]) -> list[ItemScore]:
    """The packing order: pinned items chronologically, then the rest by score, highest first,
    items of exactly the same score older first (as exercise 09 asks)."""
    pinned = [s for s in scores if s.pinned]
    scored = sorted((s for s in scores if not s.pinned), key=lambda s: (-s.total, s.index))
    return pinned + scored


def account(items: Sequence[dict], taken: set[str]) -> dict:
    """The result: the taken ids in chronological order, and honest accounting."""
    included = [item["id"] for item in items if item["id"] in taken]
    return {
        "included": included,
        "tokens_used": sum(item["tokens"] for item in items if item["id"] in taken),
        "tokens_before": sum(item["tokens"] for item in items),
        "deferred_count": len(items) - len(included),
    }


def score_and_pack(items: Sequence[dict], query: str, budget: int, *, packer: Packer = greedy,
                   **scoring) -> dict:
    """Score, rank, pack greedily and account; ``scoring`` changes the signals (for lessons)."""
    order = ranking(score_items(items, query, **scoring))
    taken = set(ids_of(packer([{"id": s.id, "tokens": s.tokens} for s in order], budget)))
    return account(items, taken)


def score_table(items: Sequence[dict], query: str, budget: int | None = None) -> str:
    """A text table of every item's signals, its rank and (with a budget) whether it is packed."""
    scores = score_items(items, query)
    rank = {s.id: r for r, s in enumerate(ranking(scores), start=1)}
    packed = set(score_and_pack(items, query, budget)["included"]) if budget is not None else set()
    width = max([len(s.id) for s in scores] + [4])
    head = f"{'item':<{width}}  tokens   bm25  recency  error  priority  total  rank"
    lines = [head + ("  packed" if budget is not None else "")]
    for s in scores:
        total = "pinned" if s.pinned else f"{s.total:.3f}"
        line = (f"{s.id:<{width}}  {s.tokens:>6}  {s.bm25:>5.3f}  {s.recency:>7.3f}  "
                f"{s.error:>5.1f}  {s.priority:>8.1f}  {total:>5}  {rank[s.id]:>4}")
        if budget is not None:
            line += "  yes" if s.id in packed else "  -"
        lines.append(line)
    return "\n".join(lines)


# --- example: an on-call assistant asked why a deploy failed --------------------------------

_INCIDENT = [
    ("system", True, 0.0,
     "You are the on-call assistant for the checkout service. Answer from the notes and logs "
     "below, quote the ids of the items you rely on, and say when they do not answer."),
    ("runbook-deploys", False, 0.0,
     "Runbook: how a deploy works. A deploy rolls out in three waves. Each wave waits for the "
     "health check; if the health check fails twice, the deploy is rolled back automatically. "
     "Database migrations run before the first wave, and a deploy cannot continue until the "
     "migration step finishes."),
    ("chat-morning", False, 0.0, "Morning! Anything odd in checkout overnight?"),
    ("log-cache", False, 0.0, "INFO 02:10 cache warmed in 2.1 s, hit rate 94%"),
    ("release-notes", False, 0.0,
     "Release 4.2 notes: new tax rules for EU orders; payment retries move to a queue; the "
     "orders table gets an index on customer_id (migration 0042)."),
    ("log-migration", False, 0.0,
     "ERROR 02:14 deploy 4.2 step 1/3: migration 0042_add_index timed out after 300 s; "
     "deploy aborted"),
    ("log-healthcheck", False, 0.0,
     "WARN 02:15 health check /ready returned 503 twice; rolling back deploy 4.2"),
    ("advisory-openssl", False, 0.0,
     "SECURITY advisory: upgrade the openssl base image of every service before Friday."),
    ("memory-owner", False, 0.5,
     "Memory: Dana owns the checkout service and prefers a short summary first."),
    ("chat-latest", True, 0.0,
     "The deploy of 4.2 failed again. Why did the deploy fail, and is it safe to retry?"),
]


def incident_items() -> list[dict]:
    """An on-call assistant's candidate context, oldest first; tokens counted for real."""
    return [
        {"id": key, "text": text, "tokens": count_tokens(text), "priority": priority,
         "pinned": pinned}
        for key, pinned, priority, text in _INCIDENT
    ]
