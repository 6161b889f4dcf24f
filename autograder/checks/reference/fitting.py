"""Exercise 06: ``fit``, and its answer (or error) for a suite's plain arguments."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from autograder.checks.suite import plain_copy
from autograder.worker import with_callables
from packlab.packing.fitting import RULES, FitError, Rules, Tokenizer, walk


def fit(items: Sequence[dict], budget, reserve=0, tokenizer: Tokenizer | None = None) -> dict:
    """Choose items for ``budget - reserve`` tokens: by priority, required or raise, pairs whole;
    one warning when a cost had to be estimated."""
    result, estimated = walk(items, budget, reserve, tokenizer, RULES)
    if estimated:
        names = ", ".join(repr(item_id) for item_id in estimated)
        warnings.warn(
            f"fit: no tokenizer was given, so {len(estimated)} item(s) ({names}) were estimated "
            "at ceil(len(content) / 4) tokens. That can be off by a third or more: pass "
            "tokenizer= (or each item's tokens) when it matters.", UserWarning, stacklevel=2)
    return result


def outcome(args: list, rules: Rules | None = None) -> dict | FitError:
    """The answer for these plain arguments (a tokenizer by name), or the `FitError` raised
    (returned, not raised), without the warning; ``rules``: a classic wrong walk instead."""
    real = with_callables(plain_copy(args))
    try:
        return walk(*real, rules=rules or RULES)[0]
    except FitError as exc:
        return exc
