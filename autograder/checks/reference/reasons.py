"""Exercise 07: ``pack_with_reasons``."""

from __future__ import annotations

from collections.abc import Sequence

OVER_BUDGET = "over-budget"
TOO_LARGE = "single-chunk-too-large"


def pack_with_reasons(parts: Sequence[dict], budget: int) -> dict:
    """Pack greedily by priority (ties in input order); report included ids, dropped ids with
    their reasons (judged against the whole budget), and tokens used, both lists in input order."""
    order = sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)
    used = 0
    kept = set()
    for i in order:
        tokens = parts[i]["tokens"]
        if used + tokens <= budget:
            kept.add(i)
            used += tokens
    included = [part["id"] for i, part in enumerate(parts) if i in kept]
    dropped = [
        {"id": part["id"], "reason": TOO_LARGE if part["tokens"] > budget else OVER_BUDGET}
        for i, part in enumerate(parts)
        if i not in kept
    ]
    return {"included": included, "dropped": dropped, "used": used}
