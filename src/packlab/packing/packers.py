"""The course's own packers, used by the lessons' widgets and plots.

Parts are plain dicts, ``{"id": "sys", "tokens": 100}``, already in priority order.
A *packer* is any callable ``packer(parts, budget) -> list[str]`` returning the ids it keeps;
the widgets accept the learner's own function just as well as these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict


class Part(TypedDict):
    id: str
    tokens: int


Packer = Callable[[Sequence[Part], int], list[str]]


def greedy(parts: Sequence[Part], budget: int) -> list[str]:
    """Take each part whole if it still fits; otherwise skip it and keep going."""
    used = 0
    kept = []
    for part in parts:
        cost = part["tokens"]
        if used + cost <= budget:
            kept.append(part["id"])
            used += cost
    return kept


def stop_at_first_miss(parts: Sequence[Part], budget: int) -> list[str]:
    """The early-stop bug: leave the loop at the first part that does not fit."""
    used = 0
    kept = []
    for part in parts:
        if used + part["tokens"] > budget:
            break
        kept.append(part["id"])
        used += part["tokens"]
    return kept


def report(parts: Sequence[Part], budget: int, packer: Packer = greedy) -> dict:
    """Run ``packer`` and account for its choice: included and dropped ids, tokens used."""
    kept = set(packer(parts, budget))
    included = [p["id"] for p in parts if p["id"] in kept]
    dropped = [p["id"] for p in parts if p["id"] not in kept]
    used = sum(p["tokens"] for p in parts if p["id"] in kept)
    return {"included": included, "dropped": dropped, "used": used}
