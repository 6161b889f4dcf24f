"""Exercises 01 and 05: ``total_tokens`` and ``wrapped_cost``."""

from __future__ import annotations

import math

from packlab.packing.tokens import wrap_chunk


def sum_of_tokens(parts: list[dict]) -> int:
    """The tokens of every part, added up."""
    return sum(p["tokens"] for p in parts)


def wrapped_cost(chunk_id: str, text: str, ratio: float = 4.0) -> int:
    """Conservative estimated cost of a chunk as sent: ceil(len(wrap_chunk(...)) / ratio)."""
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not (
            math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number of characters per token, "
                         f"got {ratio!r}")
    return math.ceil(len(wrap_chunk(chunk_id, text)) / ratio)
