"""Exercises 02, 03 and 04: ``pack`` and ``pack_report``."""

from __future__ import annotations

from collections.abc import Sequence


def greedy(parts: Sequence[dict], budget: int) -> list[str]:
    """Take each part whole if it still fits; otherwise skip it and keep going."""
    used = 0
    kept = []
    for part in parts:
        cost = part["tokens"]
        if used + cost <= budget:
            kept.append(part["id"])
            used += cost
    return kept


def report(parts: Sequence[dict], budget: int) -> dict:
    """Pack greedily and account for the choice: included and dropped ids, tokens used."""
    kept = set(greedy(parts, budget))
    included = [p["id"] for p in parts if p["id"] in kept]
    dropped = [p["id"] for p in parts if p["id"] not in kept]
    used = sum(p["tokens"] for p in parts if p["id"] in kept)
    return {"included": included, "dropped": dropped, "used": used}
