"""Exercise 08: ``pack_evidence``, and the walk that decides each chunk."""

from __future__ import annotations

from collections.abc import Sequence

from packlab.packing.evidence import SKIPPED, TRUNCATED, WHOLE, Decision


def decisions(chunks: Sequence[dict], limit: int, min_span: int = 80) -> list[Decision]:
    """Walk the chunks by score (ties in input order) and decide each one: whole when its text
    fits in the room left, cut to the room left when that room is at least ``min_span``
    characters (and at least one), else skipped, and the walk goes on."""
    room = limit
    made = []
    for chunk in sorted(chunks, key=lambda chunk: chunk["score"], reverse=True):
        length = len(chunk["text"])
        if length <= room:
            status, kept = WHOLE, length
        elif room >= max(min_span, 1):
            status, kept = TRUNCATED, room
        else:
            status, kept = SKIPPED, 0
        made.append(Decision(chunk["id"], chunk["score"], length, room, kept, status))
        room -= kept
    return made


def pack_evidence(chunks: Sequence[dict], limit: int, min_span: int = 80) -> list[dict]:
    """``{"id", "text", "truncated"}`` for each chunk sent, in packing (score) order; the text
    is the chunk's text or a prefix of it, the id always whole."""
    ranked = sorted(chunks, key=lambda chunk: chunk["score"], reverse=True)
    return [{"id": chunk["id"], "text": chunk["text"][: decision.kept],
             "truncated": decision.status == TRUNCATED}
            for chunk, decision in zip(ranked, decisions(chunks, limit, min_span), strict=True)
            if decision.status != SKIPPED]
