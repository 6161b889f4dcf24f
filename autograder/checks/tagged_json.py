"""Python values as JSON that reads back as exactly the same values.

JSON has lists, string-keyed objects and finite numbers; the grader's data also holds tuples,
dicts with other keys, nan and the infinities. So every JSON object written here is a tag with
one key naming what it holds: ``{"tuple": [...]}``, ``{"dict": [[key, value], ...]}``,
``{"float": "nan"}``. Reading is then unambiguous, and strict: anything this module (or the
caller's ``more``) could not have written is refused.

Two stores use it: the property checks' examples (`autograder.checks.example_cache`) and the
course's recorded answers (`autograder.checks.recorded`), which add tags for course objects.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any


class NotPlain(ValueError):
    """A value this format has no tag for, or JSON it could not have written."""


def encode(value: Any, more: Callable[[Any], dict] | None = None) -> Any:
    """JSON data for ``value``; ``more`` tags what plain data does not cover (else `NotPlain`)."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return {"float": repr(value)} if math.isnan(value) or math.isinf(value) else value
    if kind is list:
        return [encode(item, more) for item in value]
    if kind is tuple:
        return {"tuple": [encode(item, more) for item in value]}
    if kind is dict:
        return {"dict": [[encode(key, more), encode(item, more)] for key, item in value.items()]}
    if more is None:
        raise NotPlain(f"no tag for a {kind.__name__}")
    return more(value)


def decode(text: str, more: Callable[[str, Any], Any] | None = None) -> Any:
    """The value `encode` wrote, from its JSON text. ``more(tag, body)`` reads the caller's own
    tags (their bodies already read); `NotPlain` for anything else."""

    def tagged(data: dict) -> Any:
        if len(data) != 1:
            raise NotPlain("an object that is not a tag")
        (tag, body), = data.items()
        if tag == "float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "tuple" and type(body) is list:
            return tuple(body)
        if tag == "dict" and type(body) is list and all(
                type(pair) is list and len(pair) == 2 for pair in body):
            return dict(body)
        if more is None:
            raise NotPlain(f"an unknown tag {tag!r}")
        return more(tag, body)

    return json.loads(text, object_hook=tagged)
