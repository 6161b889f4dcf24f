"""Packing by priority that says *why* each part was left out, refuses when told to, and records
its drop curve.

Parts carry a priority: ``{"id": "sys", "tokens": 59, "priority": 100}``. Higher priorities are
packed first; equal priorities keep their input order. Every dropped part gets one of two reasons:

- ``"over-budget"``: it lost the competition for room; a bigger budget would have kept it;
- ``"single-chunk-too-large"``: it alone costs more than the *whole* budget, so no choice about the
  other parts could ever make room for it.

These are the lesson's and the widget's versions; exercise 07 is graded against the instructor's own
reference (`autograder.checks.reference.reasons`, never in the student install), not this module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TypedDict

from packlab.packing.curves import fraction_budgets

OVER_BUDGET = "over-budget"
TOO_LARGE = "single-chunk-too-large"
REASONS = (OVER_BUDGET, TOO_LARGE)
FRACTIONS = (0.75, 0.5, 0.25, 0.10)
POLICY = "higher priority first; equal priorities in input order"


class RankedPart(TypedDict):
    id: str
    tokens: int
    priority: float


def reason_for(tokens: int, budget: int) -> str:
    """Why a part of ``tokens`` was dropped: judged against the whole budget, never what is left."""
    return TOO_LARGE if tokens > budget else OVER_BUDGET


def priority_order(parts: Sequence[RankedPart]) -> list[int]:
    """Positions of ``parts``, highest priority first; ties stay in input order.

    ``sorted`` is stable, and ``reverse=True`` keeps it stable (equal keys are not flipped), so
    this order depends on the input alone.
    """
    return sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)


def pack_with_reasons(parts: Sequence[RankedPart], budget: int) -> dict:
    """Pack greedily by priority; report included ids, dropped ids with reasons, tokens used.

    Both lists keep the input order: priority decides *what* goes in, never where it sits. An
    empty list of parts gives the empty report, as exercise 07 asks.
    """
    used = 0
    kept = set()
    for i in priority_order(parts):
        tokens = parts[i]["tokens"]
        if used + tokens <= budget:
            kept.add(i)
            used += tokens
    included = [part["id"] for i, part in enumerate(parts) if i in kept]
    dropped = [
        {"id": part["id"], "reason": reason_for(part["tokens"], budget)}
        for i, part in enumerate(parts)
        if i not in kept
    ]
    return {"included": included, "dropped": dropped, "used": used}


class PackingRefused(ValueError):
    """Raised by `pack_or_raise` when any part would be left out; ``report`` has the details."""

    def __init__(self, message: str, report: dict):
        super().__init__(message)
        self.report = report


def refusal_message(parts: Sequence[RankedPart], budget: int, report: dict) -> str:
    """One sentence naming every part that would be dropped, with its size and reason."""
    tokens = {part["id"]: part["tokens"] for part in parts}
    named = "; ".join(
        f"{drop['id']} ({tokens[drop['id']]} tokens, {drop['reason']})"
        for drop in report["dropped"]
    )
    count = len(report["dropped"])
    return (
        f"refusing to pack: {count} of {len(parts)} part{'s' if len(parts) != 1 else ''} would be "
        f"left out at a budget of {budget} tokens: {named}"
    )


def pack_or_raise(parts: Sequence[RankedPart], budget: int) -> dict:
    """Pack like `pack_with_reasons`, but refuse (raise `PackingRefused`) if anything is dropped.

    For extraction work, where an answer will be quoted as fact: better no answer than one read
    from a silently trimmed document.
    """
    report = pack_with_reasons(parts, budget)
    if report["dropped"]:
        raise PackingRefused(refusal_message(parts, budget, report), report)
    return report


def included_ids(parts: Sequence[RankedPart], budget: int) -> list[str]:
    """`pack_with_reasons` as a plain packer (ids kept), for the lesson-04 widgets."""
    return pack_with_reasons(parts, budget)["included"]


def drop_curve_artifact(
    parts: Sequence[RankedPart],
    fractions: Sequence[float] = FRACTIONS,
    *,
    policy: str = POLICY,
) -> dict:
    """The drop curve as plain JSON-ready data: per budget fraction, what was kept and lost, why.

    Budgets are fractions of the total tokens, rounded down (as in `packlab.packing.curves`).
    ``policy``
    records how priorities were chosen, so anyone reading the artifact can find it and argue.
    """
    total = sum(part["tokens"] for part in parts)
    points = []
    for fraction, budget in zip(fractions, fraction_budgets(parts, fractions), strict=True):
        report = pack_with_reasons(parts, budget)
        points.append(
            {
                "fraction": fraction,
                "budget": budget,
                "kept": len(report["included"]),
                "used": report["used"],
                "lost": report["dropped"],
            }
        )
    return {"policy": policy, "parts": len(parts), "total_tokens": total, "curve": points}


def artifact_json(artifact: dict) -> str:
    """The artifact as indented JSON, each ``{"id", "reason"}`` entry kept on one line."""
    text = json.dumps(artifact, indent=2, ensure_ascii=False)
    entry = re.compile(r'\{\n\s+("id": .+),\n\s+("reason": "[^"]+")\n\s+\}')
    return entry.sub(r"{\1, \2}", text)
