"""Packing retrieved evidence (lesson 08): chunks by score under a character limit, the DATA block,
the evidence budget, and ``get_doc`` for reading a truncated chunk in full.

A *chunk* is a plain dict ``{"id": "policy/warranty", "text": "...", "score": 0.91}``. Packing
returns ``{"id", "text", "truncated"}`` items in the order they were packed (best score first).
The limit counts the characters of the texts only: ids, flags and fences are not in it (the DATA
block's own cost is measured separately, in tokens, with ``data_block`` and ``count_tokens``).

``pack_evidence`` here is the lesson's teaching version: each item it sends also carries the
chunk's ``score``, for the lesson's tables, where exercise 08 returns exactly ``id``, ``text`` and
``truncated``. It is not the answer the exercise is graded against (that one is
instructor-only, in `autograder.checks.reference.evidence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict


class Chunk(TypedDict):
    id: str
    text: str
    score: float


class Evidence(TypedDict):
    id: str
    text: str
    truncated: bool


WHOLE, TRUNCATED, SKIPPED = "whole", "truncated", "skipped"


@dataclass(frozen=True)
class Decision:
    """What happened to one chunk at its turn in the walk."""

    id: str
    score: float
    length: int  # characters of the chunk's full text
    room: int  # characters left in the limit when its turn came
    kept: int  # characters sent (0 when skipped)
    status: str  # WHOLE, TRUNCATED or SKIPPED


def by_score(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks, best score first; equal scores keep their input order (sorting is stable)."""
    return sorted(chunks, key=lambda chunk: chunk["score"], reverse=True)


def decisions(chunks: Sequence[Chunk], limit: int, min_span: int = 80) -> list[Decision]:
    """Walk the chunks by score and decide each one: whole, truncated or skipped.

    A chunk whose text fits in the room left is taken whole. One that does not fit is cut to the
    room left when that room is at least ``min_span`` characters (and at least one: an empty
    fragment is never sent); otherwise it is skipped and the walk goes on. After a cut the room
    is 0, so no later chunk fits.
    """
    room = limit
    made = []
    for chunk in by_score(chunks):
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


def pack_evidence(chunks: Sequence[Chunk], limit: int, min_span: int = 80) -> list[Evidence]:
    """Pack chunks by score into ``limit`` characters of text; cut one only if ``min_span`` fits.

    Returns ``{"id", "text", "truncated", "score"}`` for each chunk sent, in packing (score)
    order. The text is the chunk's text or a prefix of it; the id is always whole. (Exercise 08's
    answer leaves out the score.)
    """
    packed = []
    for chunk, decision in zip(by_score(chunks), decisions(chunks, limit, min_span), strict=True):
        if decision.status != SKIPPED:
            packed.append({
                "id": chunk["id"],
                "text": chunk["text"][: decision.kept],
                "truncated": decision.status == TRUNCATED,
                "score": chunk["score"],
            })
    return packed


def data_block(items: Sequence[Evidence]) -> str:
    """The labelled DATA block: each item under a heading that keeps its id for citation.

    >>> print(data_block([{"id": "doc-3", "text": "Poles are sent free.", "truncated": True}]))
    === DATA [doc-3] (truncated) ===
    Poles are sent free.
    === END DATA ===
    """
    if not items:
        return "=== DATA (no documents) ===\n=== END DATA ==="
    lines = []
    for item in items:
        note = " (truncated)" if item["truncated"] else ""
        lines += [f"=== DATA [{item['id']}]{note} ===", item["text"]]
    lines.append("=== END DATA ===")
    return "\n".join(lines)


def evidence_budget(window: int, instructions: int, history: int, reserve: int) -> int:
    """Tokens left for retrieved evidence after instructions, history and the reply's reserve.

    Never negative: when the rest already fills the window, there is no room for evidence at all.
    """
    for name, value in (("window", window), ("instructions", instructions),
                        ("history", history), ("reserve", reserve)):
        if type(value) is not int or value < 0:
            raise ValueError(f"{name} must be a whole number of tokens, 0 or more, not {value!r}")
    return max(0, window - instructions - history - reserve)


# --- the support bot's retrieval results (a fake corpus) -----------------------------------

QUESTION = (
    "My tent pole snapped on the second night. I bought it six weeks ago. "
    "Can I get my money back, or only a new pole?"
)

_SECTIONS: dict[str, list[str]] = {
    "policy/warranty": [
        "Tents, backpacks and sleeping bags carry a two-year warranty against defects, counted "
        "from delivery. A pole that cracks without a fall, a crush or a bend beyond its design is "
        "a defect. For an accepted claim we repair the item first; if a repair is impossible or "
        "slow we replace it, and a refund is given only when neither can be done, reduced by one "
        "twenty-fourth of the price for each full month since delivery.",
        "To claim, send the order number, a photo of the fault and a few lines on how it "
        "happened. Every claim is answered within three working days.",
        "The warranty does not limit your statutory rights as a consumer.",
    ],
    "policy/refunds": [
        "Unused items can be returned within 30 days for a full refund to the original payment "
        "method. Used items are refunded only when they arrive faulty. The refund is issued "
        "within five working days of the parcel reaching our warehouse.",
        "Gift cards and custom-cut rope cannot be refunded.",
    ],
    "guide/spare-poles": [
        "Spare pole sections for every tent we sell are sent free during the warranty period, "
        "even without a claim. Quote the tent model and the section letter printed near the "
        "ferrule.",
        "A repair sleeve slid over the break will hold a snapped section for the rest of a trip.",
    ],
    "policy/return-labels": [
        "Returns inside the 30-day window travel free with the prepaid label in the parcel; a "
        "later return is paid by the customer.",
    ],
    "guide/tent-care": [
        "Dry the tent fully before storing it. Keep poles assembled loosely, never under "
        "tension, and carry a repair sleeve on every trip.",
        "Wash the fly with plain water; detergent strips its coating.",
    ],
    "policy/shipping": [
        "Orders over 60 euros ship free within the country. Parcels leave the warehouse on the "
        "next working day.",
    ],
    "store/opening-hours": [
        "The Larkspur shop is open Tuesday to Saturday, 9:00 to 18:00.",
    ],
    "store/cafe-menu": [
        "Our in-store cafe serves pizza slices, soup of the day and hot chocolate after 11:00.",
    ],
}

# (document id, score): the retriever's best passage of each document is its first section.
_SCORES = {
    "policy/warranty": 0.91,
    "policy/refunds": 0.84,
    "guide/spare-poles": 0.77,
    "policy/return-labels": 0.62,
    "guide/tent-care": 0.55,
    "policy/shipping": 0.41,
    "store/opening-hours": 0.18,
    "store/cafe-menu": 0.07,
}

DOCUMENTS: dict[str, str] = {key: "\n\n".join(parts) for key, parts in _SECTIONS.items()}


def example_chunks() -> list[Chunk]:
    """Eight scored chunks retrieved for the support bot's ``QUESTION``, in retrieval order.

    The retriever listed them by document, not by score: the cafe menu (the lowest score) comes
    second, so a packer that ignores scores sends it.
    """
    order = ["policy/refunds", "store/cafe-menu", "policy/warranty", "guide/spare-poles",
             "policy/shipping", "guide/tent-care", "store/opening-hours", "policy/return-labels"]
    return [{"id": key, "text": _SECTIONS[key][0], "score": _SCORES[key]} for key in order]


GET_DOC_TOOL = {
    "type": "function",
    "function": {
        "name": "get_doc",
        "description": (
            "Read the whole document behind a retrieved chunk. Call it when a chunk in the DATA "
            "block is marked (truncated) and the answer depends on the part that was cut."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "id": {
                    "type": "string",
                    "description": "The id in the chunk's heading, e.g. policy/warranty.",
                },
            },
            "required": ["id"],
        },
    },
}


def get_doc(doc_id: str, documents: dict[str, str] | None = None) -> str:
    """The full text of a document by id (the fake corpus by default); KeyError names the ids."""
    corpus = DOCUMENTS if documents is None else documents
    if doc_id not in corpus:
        known = ", ".join(sorted(corpus))
        raise KeyError(f"no document {doc_id!r}; the documents are: {known}")
    return corpus[doc_id]
