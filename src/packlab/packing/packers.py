"""The course's own packers, used by the lessons' widgets and plots: teaching versions.

Parts are plain dicts, ``{"id": "sys", "tokens": 100}``, already in priority order.
A *packer* is any callable ``packer(parts, budget)`` answering with the ids it keeps: a list of
ids (your own ``pack``) or, for the packers here, a ``Packed``: the ids and the tokens they use.
The widgets accept either.

These are not the answers exercises 02 to 04 are graded against (those are instructor-only, in
`autograder.checks.reference`): ``greedy`` finds the parts from running totals, not with the loop
the exercise asks for, and answers with a ``Packed``, where exercise 02's ``pack`` returns the
list of ids alone. ``report`` accounts for whatever packer it is handed.

``greedy_runs`` and ``first_miss_runs`` give, for many budgets at once, exactly what ``greedy`` and
``stop_at_first_miss`` keep, without walking every part at every budget: drop curves use them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from typing import NamedTuple, TypedDict


class Part(TypedDict):
    id: str
    tokens: int


class Packed(NamedTuple):
    """What the course's packers answer: the ids kept, in input order, and the tokens they use."""

    taken: tuple[str, ...]
    used: int


Packer = Callable[[Sequence[Part], int], Packed | Sequence[str]]


def ids_of(answer: Packed | Sequence[str]) -> Sequence[str]:
    """The ids a packer's answer keeps: a ``Packed``'s ``taken``, or your list as it is."""
    return answer.taken if isinstance(answer, Packed) else answer


def greedy(parts: Sequence[Part], budget: int) -> Packed:
    """Take each part whole if it still fits; otherwise skip it and keep going.

    The lessons' packer, for whole, non-negative token counts: it finds the runs of parts kept
    with ``greedy_runs`` (running totals and binary search), not with the loop exercise 02 asks
    you to write, and answers with the ids and the tokens they use, not the list ``pack`` returns.
    """
    [runs] = greedy_runs([part["tokens"] for part in parts], [budget])
    kept = [parts[i] for start, stop in runs for i in range(start, stop)]
    return Packed(tuple(part["id"] for part in kept), sum(part["tokens"] for part in kept))


def stop_at_first_miss(parts: Sequence[Part], budget: int) -> Packed:
    """The early-stop bug: leave the loop at the first part that does not fit."""
    used = 0
    kept = []
    for part in parts:
        if used + part["tokens"] > budget:
            break
        kept.append(part["id"])
        used += part["tokens"]
    return Packed(tuple(kept), used)


Run = tuple[int, int]  # positions start..stop-1 of parts kept one after another


def first_miss_runs(tokens: Sequence[int], budgets: Iterable[int]) -> list[list[Run]]:
    """What ``stop_at_first_miss`` keeps at each budget, as runs of positions, all in one pass.

    ``tokens`` are whole, non-negative counts in input order. The kept parts are the longest prefix
    whose running total stays within the budget: one binary search in the running totals.
    """
    totals = [0, *accumulate(tokens)]
    runs = []
    for budget in budgets:
        stop = bisect_right(totals, budget, 1) - 1
        runs.append([(0, stop)] if stop else [])
    return runs


def greedy_runs(tokens: Sequence[int], budgets: Iterable[int]) -> list[list[Run]]:
    """What ``greedy`` keeps at each budget, as runs of positions, without visiting every part.

    ``tokens`` are whole, non-negative counts in input order. From where a run starts, a binary
    search in the running totals finds the first part that no longer fits; from there, the minima
    of blocks of parts find the next part small enough for the room left, which starts the next run.
    Same choices as calling ``greedy`` at each budget.
    """
    finder = _NextFit(tokens)
    totals = finder.totals
    n = len(finder.tokens)
    every = []
    for budget in budgets:
        runs = []
        start = used = 0
        while start < n:
            # parts start, start + 1, ... fit while their running total stays within what is left
            stop = bisect_right(totals, budget - used + totals[start], start + 1) - 1
            if stop > start:
                runs.append((start, stop))
                used += totals[stop] - totals[start]
            if stop == n:
                break
            start = finder.first(stop + 1, budget - used)  # part `stop` did not fit: skip it
        every.append(runs)
    return every


class _NextFit:
    """Finds the first part at or after a position whose tokens fit in a given room."""

    BLOCK = 32

    def __init__(self, tokens: Sequence[int]):
        self.tokens = list(tokens)
        self.totals = [0, *accumulate(self.tokens)]
        step = self.BLOCK
        self.minima = [min(self.tokens[i : i + step]) for i in range(0, len(self.tokens), step)]
        # smallest part from each block to the end: nothing fits beyond when it is too big
        self.smallest_after = list(accumulate(reversed(self.minima), min))[::-1]

    def first(self, start: int, room: int) -> int:
        """The first position >= ``start`` whose part fits in ``room``, or len(tokens)."""
        tokens, minima, step, n = self.tokens, self.minima, self.BLOCK, len(self.tokens)
        block = start // step
        if block >= len(minima) or self.smallest_after[block] > room:
            return n
        for i in range(start, min((block + 1) * step, n)):
            if tokens[i] <= room:
                return i
        block += 1
        if block == len(minima) or self.smallest_after[block] > room:
            return n
        while minima[block] > room:  # stops: some block from here on holds a part that fits
            block += 1
        start = block * step
        return next(i for i in range(start, min(start + step, n)) if tokens[i] <= room)


def report(parts: Sequence[Part], budget: int, packer: Packer) -> dict:
    """Run ``packer`` and account for its choice: included and dropped ids, tokens used.

    ``packer`` has no default: the lessons hand it ``greedy``, or your own ``pack``."""
    kept = set(ids_of(packer(parts, budget)))
    included = [p["id"] for p in parts if p["id"] in kept]
    dropped = [p["id"] for p in parts if p["id"] not in kept]
    used = sum(p["tokens"] for p in parts if p["id"] in kept)
    return {"included": included, "dropped": dropped, "used": used}
