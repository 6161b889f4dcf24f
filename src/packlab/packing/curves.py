"""Running any packer safely and measuring what it keeps: pack states, drop curves, tables.

A learner's packer may raise, loop, return None or return the wrong things. Nothing here lets that
escape: the result carries a one-line ``error`` in plain words instead.
"""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from packlab.packing.packers import (
    Packer,
    Part,
    Run,
    first_miss_runs,
    greedy,
    greedy_runs,
    ids_of,
    stop_at_first_miss,
)

TIME_LIMIT = 2.0  # seconds one call of a packer may take before we give up on it


@dataclass(frozen=True)
class PackState:
    """What a packer kept at one budget, with ids in input order."""

    budget: int
    taken: tuple[str, ...]
    skipped: tuple[str, ...]
    used: int
    remaining: int
    error: str | None = None


@dataclass(frozen=True)
class CurvePoint:
    """One budget of a drop curve: how many parts were kept, tokens used, which ids were lost."""

    budget: int
    kept: int
    used: int
    lost: tuple[str, ...]
    error: str | None = None


class PackerError(Exception):
    """A packer misbehaved; the message is meant for the learner as it stands."""


class PartIndex:
    """Positions and sizes of parts, built once so each packer call is checked quickly."""

    def __init__(self, parts: Sequence[Part]):
        self.parts = list(parts)
        self.ids = [p["id"] for p in self.parts]
        self.position = {key: i for i, key in enumerate(self.ids)}
        self.id_array = np.array(self.ids, dtype=object)
        self.tokens = np.array([p["tokens"] for p in self.parts], dtype=np.int64)
        self.total = int(self.tokens.sum())

    def run(self, packer: Packer, budget: int) -> np.ndarray:
        """Call ``packer`` on a copy of the list; return its kept-flags or raise PackerError."""
        with _time_limit(TIME_LIMIT):
            try:
                result = packer(list(self.parts), budget)
            except _TookTooLong:
                raise PackerError(
                    f"your packer ran for more than {TIME_LIMIT:g} s — does a loop never end?"
                ) from None
            except Exception as exc:  # a learner's code may raise anything
                raise PackerError(_describe_raise(exc)) from None
        return self.mask(result)

    def mask(self, result: object) -> np.ndarray:
        """Check a packer's return value and turn it into a kept-flag per part."""
        result = ids_of(result)
        if not isinstance(result, list | tuple):
            raise PackerError(_describe_type(result))
        kept = np.zeros(len(self.ids), dtype=bool)
        try:
            kept[list(map(self.position.__getitem__, result))] = True
        except (KeyError, TypeError):
            raise PackerError(self._first_problem(result)) from None
        if np.count_nonzero(kept) != len(result):  # some id came back twice
            raise PackerError(self._first_problem(result))
        return kept

    def _first_problem(self, result: list | tuple) -> str:
        """Describe the first wrong item of a packer's list: not a str, unknown, or repeated."""
        seen = set()
        for item in result:
            if not isinstance(item, str):
                return _describe_item(item)
            if item not in self.position:
                return f"your packer returned {item!r}, which is not the id of any part"
            if item in seen:
                return f"your packer returned {item!r} twice — keep each part once"
            seen.add(item)
        return "your packer returned ids that do not match the parts"

    def state(self, packer: Packer, budget: int) -> PackState:
        """Run ``packer`` at ``budget``; a failure becomes the state's ``error``."""
        try:
            kept = self.run(packer, budget)
        except PackerError as exc:
            return PackState(budget, (), (), 0, budget, str(exc))
        used = int(self.tokens[kept].sum())
        taken = tuple(self.id_array[kept].tolist())
        skipped = tuple(self.id_array[~kept].tolist())
        return PackState(budget, taken, skipped, used, budget - used)


class _TookTooLong(BaseException):
    """Raised inside a packer by the alarm; a BaseException so ``except Exception`` misses it."""


@contextmanager
def _time_limit(seconds: float):
    """Interrupt the block after ``seconds`` (main thread on Unix only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return

    def alarm(signum, frame):
        raise _TookTooLong

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _describe_raise(exc: Exception) -> str:
    name = type(exc).__name__
    if isinstance(exc, NotImplementedError):
        return f"your packer raised {name} — write its body first"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f"your packer raised {name}: {detail}" if detail else f"your packer raised {name}"


def _describe_type(result: object) -> str:
    if result is None:
        return "your packer returned None — did it forget to `return` the list of ids?"
    if isinstance(result, dict):
        return "your packer returned a dict — return a list of ids, like ['system', 'turn']"
    return f"your packer returned a {type(result).__name__} — return a list of ids"


def _describe_item(item: object) -> str:
    if isinstance(item, dict):
        return "your packer returned parts (dicts), not ids — keep part['id'] for each part"
    return f"your packer returned {item!r} ({type(item).__name__}) in its list — ids are strings"


def pack_state(parts: Sequence[Part], packer: Packer, budget: int) -> PackState:
    """Run ``packer`` once at ``budget`` and account for its choice (never raises)."""
    return PartIndex(parts).state(packer, budget)


def drop_curve(parts: Sequence[Part], packer: Packer, budgets: Iterable[int]) -> list[CurvePoint]:
    """Run ``packer`` at every budget: parts kept, tokens used and ids lost (in input order).

    The course's own ``greedy`` and ``stop_at_first_miss`` on plain parts (dicts with unique str
    ids and whole, non-negative tokens) are worked out for all whole-number budgets in one pass,
    with the same result as calling them; any other packer is called, and checked, at every budget.
    """
    index = PartIndex(parts)
    budgets = list(budgets)
    one_pass, tokens = _one_pass(index, packer)
    if one_pass is None:
        return [_point(index, packer, budget) for budget in budgets]
    runs = iter(one_pass(tokens, [b for b in budgets if type(b) is int]))
    totals = [0, *accumulate(tokens)]
    ids = tuple(index.ids)
    return [
        _run_point(ids, totals, budget, next(runs))
        if type(budget) is int  # not a float, bool or numpy budget: those go to the packer
        else _point(index, packer, budget)
        for budget in budgets
    ]


def _one_pass(index: PartIndex, packer: Packer) -> tuple[Callable | None, list[int]]:
    """The one-pass version of ``packer`` and the parts' tokens, if it is ours and they suit it."""
    if packer is greedy:
        runs = greedy_runs
    elif packer is stop_at_first_miss:
        runs = first_miss_runs
    else:
        return None, []
    tokens = [p["tokens"] for p in index.parts]
    plain = (
        len(index.position) == len(index.ids)  # a repeated id is the packer's error to show
        and set(map(type, index.ids)) <= {str}  # numpy would split an id that is a tuple
        and set(map(type, index.parts)) <= {dict}
        and set(map(type, tokens)) <= {int}
        and min(tokens, default=0) >= 0
        and sum(tokens) < 2**63  # the accounts never overflow numpy's int64
    )
    return (runs, tokens) if plain else (None, [])


def _run_point(ids: tuple, totals: list[int], budget: int, runs: list[Run]) -> CurvePoint:
    """A curve point from the runs of kept positions: the ids between runs are the lost ones."""
    head: list = []
    at = used = 0
    for start, stop in runs:
        head += ids[at:start]
        used += totals[stop] - totals[start]
        at = stop
    lost = tuple(head) + ids[at:] if head else ids[at:]  # the last gap is the longest, as a rule
    return CurvePoint(budget, len(ids) - len(lost), used, lost)


def _point(index: PartIndex, packer: Packer, budget: int) -> CurvePoint:
    try:
        kept = index.run(packer, budget)
    except PackerError as exc:
        return CurvePoint(budget, 0, 0, (), str(exc))
    lost = tuple(index.id_array[~kept].tolist())
    return CurvePoint(budget, len(index.ids) - len(lost), int(index.tokens[kept].sum()), lost)


def even_budgets(parts: Sequence[Part], count: int = 100) -> list[int]:
    """``count`` budgets spread evenly from 0 to the total tokens (duplicates removed)."""
    total = sum(p["tokens"] for p in parts)
    steps = max(count - 1, 1)
    return sorted({round(total * i / steps) for i in range(count)})


def fraction_budgets(
    parts: Sequence[Part], fractions: Sequence[float] = (0.75, 0.5, 0.25, 0.10)
) -> list[int]:
    """Budgets as fractions of the total tokens, rounded down."""
    total = sum(p["tokens"] for p in parts)
    return [math.floor(round(total * f, 9)) for f in fractions]


def drop_table(
    parts: Sequence[Part],
    packer: Packer = greedy,
    fractions: Sequence[float] = (0.75, 0.5, 0.25, 0.10),
    width: int = 120,
) -> str:
    """A text table of the drop curve: per budget, what was kept and the names of what was lost."""
    total = sum(p["tokens"] for p in parts)
    n = len(parts)
    lines = [f"{n} parts, {total} tokens to send them all", ""]
    curve = drop_curve(parts, packer, fraction_budgets(parts, fractions))
    for fraction, point in zip(fractions, curve, strict=True):
        head = f"budget {point.budget:>6} ({fraction:>4.0%})  "
        if point.error:
            lines.append(head + point.error)
            continue
        head += f"kept {point.kept:>{len(str(n))}}/{n}  dropped {len(point.lost):>3}  lost: "
        lines.append(head + _names(point.lost, width - len(head)))
    return "\n".join(lines)


def _names(ids: Sequence[str], room: int) -> str:
    """Join ``ids`` with commas, cutting off with '… (+N more)' to stay within ``room``."""
    if not ids:
        return "nothing"
    shown: list[str] = []
    for i, key in enumerate(ids):
        rest = len(ids) - i - 1
        tail = f", … (+{rest} more)" if rest else ""
        if shown and len(", ".join([*shown, key]) + tail) > room:
            return ", ".join(shown) + f", … (+{len(ids) - len(shown)} more)"
        shown.append(key)
    return ", ".join(shown)


def wasted(
    parts: Sequence[Part], budget: int, packers: Sequence[Packer] = (stop_at_first_miss, greedy)
) -> dict[str, int]:
    """Tokens of ``budget`` each packer leaves unused, keyed by the packer's name."""
    index = PartIndex(parts)
    return {packer_name(p): index.state(p, budget).remaining for p in packers}


def packer_name(packer: Packer) -> str:
    return getattr(packer, "__name__", type(packer).__name__)
