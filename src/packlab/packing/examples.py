"""Example parts for lessons, plots and benchmarks: realistic, uniform, random and adversarial."""

from __future__ import annotations

import random

from packlab.packing.packers import Part
from packlab.packing.tokens import count_tokens

_SYSTEM = (
    "You are the support assistant of Larkspur Outdoor, a small shop selling camping gear. "
    "Answer in plain English, in at most five sentences. Quote the policy you rely on by its "
    "title. If the documents below do not answer the question, say so and offer to open a ticket."
)
_TURN_LATEST = (
    "My tent pole snapped on the second night. I bought it six weeks ago. "
    "Can I get my money back, or only a new pole?"
)
_CHUNK_REFUNDS = (
    "Refunds policy. Unused items can be returned within 30 days for a full refund to the "
    "original payment method. Used items are refunded only when they arrive faulty. Refunds are "
    "issued within five working days of the item reaching our warehouse."
)
_CHUNK_WARRANTY = " ".join(
    [
        "Warranty policy, full text.",
        "Every tent, backpack and sleeping bag sold by Larkspur Outdoor carries a two-year "
        "warranty against defects in materials and workmanship, starting on the delivery date.",
        "A defect is a fault present when the item left the factory: seams that come apart under "
        "normal tension, zips whose teeth separate, coatings that peel, and poles or hubs that "
        "crack without a fall, a crush or a bend beyond their design.",
        "Wear from ordinary use is not a defect. Abrasion, faded fabric, a stuck zip that frees "
        "itself with cleaning and damage from fire, storms or animals are not covered.",
        "To claim, send the order number, a photo of the fault and a short description of how it "
        "happened. We answer every claim within three working days.",
        "For an accepted claim we first offer to repair the item free of charge, including return "
        "postage. When a repair is impossible or would take more than fifteen days, we replace the "
        "item with the same model or, if it is no longer sold, the nearest current model.",
        "A refund instead of a repair or replacement is given only when neither is possible, and "
        "it is reduced by one twenty-fourth of the price for each full month since delivery.",
        "Spare parts such as poles, pegs and guy lines are sent free within the warranty period, "
        "even without a claim, when the customer prefers to fix the item at home.",
        "The warranty does not limit your statutory rights as a consumer.",
    ]
)
_CHUNK_SHIPPING = (
    "Shipping policy. Orders over 60 euros ship free. Returns inside the 30-day window are free "
    "with the prepaid label in the parcel; later returns are paid by the customer."
)
_TOOL_ORDER = (
    '{"tool": "order_lookup", "order": "LO-48213", "item": "Ridgeline 2 tent", '
    '"delivered": "2024-04-02", "price_eur": 189.00, "status": "delivered"}'
)
_TURN_PREVIOUS = "Hi, I have a problem with a tent I ordered from you in the spring."
_MEMORY = (
    "Older memory: the customer prefers email to phone calls, wrote in English before, and had "
    "one earlier order (a headlamp) that arrived on time."
)
_CHUNK_CARE = (
    "Tent care guide. Dry the tent fully before storing it. Keep poles assembled loosely, never "
    "under tension, and carry a repair sleeve on every trip."
)

_CHAT_TEXTS = {
    "system": _SYSTEM,
    "turn-latest": _TURN_LATEST,
    "chunk-refunds": _CHUNK_REFUNDS,
    "chunk-warranty": _CHUNK_WARRANTY,
    "tool-order-lookup": _TOOL_ORDER,
    "chunk-shipping": _CHUNK_SHIPPING,
    "chunk-tent-care": _CHUNK_CARE,
    "turn-previous": _TURN_PREVIOUS,
    "memory-customer": _MEMORY,
}

_TOPICS = [
    "context-window",
    "tokens",
    "priorities",
    "greedy-packing",
    "early-stop",
    "drop-curve",
    "caching",
    "retrieval",
    "chunking",
    "ranking",
    "memory",
    "tool-results",
    "system-prompt",
    "reserve",
    "truncation",
    "evidence",
    "citations",
    "sub-agents",
    "summaries",
    "recency",
    "pinning",
    "budgets",
    "estimators",
    "overhead",
    "fences",
    "history",
    "refusal",
    "reasons",
    "ordering",
    "verdicts",
]
_FOLDERS = ["notes", "units", "guides", "reference"]


def chat_texts() -> dict[str, str]:
    """The texts behind ``chat_parts()``, keyed by id, in priority order."""
    return dict(_CHAT_TEXTS)


def chat_parts() -> list[Part]:
    """A support-chat request in priority order, each part's tokens counted with cl100k."""
    return [{"id": key, "tokens": count_tokens(text)} for key, text in _CHAT_TEXTS.items()]


def docs_corpus(n: int = 30, seed: int = 4) -> list[Part]:
    """``n`` documents of roughly equal size (20–45 tokens), ids like ``notes/07-caching``."""
    rng = random.Random(seed)
    width = max(2, len(str(n)))
    return [
        {
            "id": f"{rng.choice(_FOLDERS)}/{i:0{width}d}-{_TOPICS[(i - 1) % len(_TOPICS)]}",
            "tokens": rng.randint(20, 45),
        }
        for i in range(1, n + 1)
    ]


def random_parts(n: int, seed: int = 0, low: int = 1, high: int = 200) -> list[Part]:
    """``n`` parts with sizes drawn uniformly from ``low..high``; ids ``part-0000`` onwards."""
    rng = random.Random(seed)
    width = max(4, len(str(n - 1)))
    return [{"id": f"part-{i:0{width}d}", "tokens": rng.randint(low, high)} for i in range(n)]


def big_first_parts() -> list[Part]:
    """A huge high-priority chunk early, then many small parts: where ``break`` wastes budget."""
    small = [18, 25, 12, 30, 22, 16, 27, 20]
    return [
        {"id": "system", "tokens": 60},
        {"id": "turn-latest", "tokens": 30},
        {"id": "chunk-huge", "tokens": 420},
        *({"id": f"chunk-small-{i}", "tokens": size} for i, size in enumerate(small, 1)),
        {"id": "memory-older", "tokens": 45},
    ]
