"""The course's answers as the shipped suites ask for them: from `autograder.checks.reference` where
it is installed (the instructor's install), else from the answers it gave to the visible checks'
calls, recorded in ``autograder/checks/suites/recorded/<suite>.json`` (the student install).

A suite names each reference function it needs as ``Reference("packers.greedy")`` and calls it like
the function itself. The reference bodies never reach students: the student install holds only the
recorded answers, literal data for the exact calls its visible checks make (the expected answers,
and the answers the diagnosis compares a wrong answer with). `record` writes them
(`autograder.checks.reference.record`, instructor-only) by running every visible check on the
reference and on every gallery mutant; `python -m autograder.checks.reference.record` writes them
and `tests/test_reference.py` keeps them current.
"""

from __future__ import annotations

import builtins
import dataclasses
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

from autograder.checks import tagged_json

FOLDER = Path(__file__).parent / "suites" / "recorded"
PACKAGE = "autograder.checks.reference"


class NotRecorded(RuntimeError):
    """A call the student install has no recorded answer for."""


# --- plain data, with the few kinds of objects the references return, as JSON ---------------------

def _name(kind: type | Callable) -> str:
    return f"{kind.__module__}:{kind.__qualname__}"


def _named(name: str) -> Any:
    module, _, qualname = name.partition(":")
    if module == "builtins":  # an error a reference raises, such as ValueError
        found = getattr(builtins, qualname, None)
        if isinstance(found, type) and issubclass(found, Exception):
            return found
        raise ValueError(f"{name} is not an error class")
    if not module.startswith(("packlab.", "autograder.")):
        raise ValueError(f"{name} is not a course object")
    found: Any = import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _course_object(value: Any) -> dict:
    """The tag of a course object a reference answers with (`tagged_json` holds plain data)."""
    if isinstance(value, BaseException):
        return {"error": [_name(type(value)), encode(value.args), encode(vars(value))]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"dataclass": [_name(type(value)), encode(
            {f.name: getattr(value, f.name) for f in dataclasses.fields(value)})]}
    if callable(value):
        return {"callable": _name(value)}
    raise TypeError(f"cannot record a {type(value).__name__}")


def _read_course_object(tag: str, body: Any) -> Any:
    """The object `_course_object` tagged, built afresh (its parts are read already)."""
    if tag == "error":
        kind = _named(body[0])
        error = kind.__new__(kind)
        error.args = body[1]
        vars(error).update(body[2])
        return error
    if tag == "dataclass":
        return _named(body[0])(**body[1])
    if tag == "callable":
        return _named(body)
    raise ValueError(f"unknown recorded tag {tag!r}")


def encode(value: Any) -> Any:
    """JSON data for ``value`` (`tagged_json`, with tags for errors, dataclasses and functions)."""
    return tagged_json.encode(value, _course_object)


def decode(data: Any) -> Any:
    """The value `encode` wrote, built afresh."""
    return tagged_json.decode(json.dumps(data), _read_course_object)


def key(name: str, args: tuple, kwargs: dict) -> str:
    """The text a call is recorded under."""
    return json.dumps(encode([name, list(args), dict(sorted(kwargs.items()))]))


# --- the proxy ------------------------------------------------------------------------------------

_recording: dict[str, Any] | None = None  # key -> outcome, while recording


@cache
def installed() -> bool:
    """Is `autograder.checks.reference` here (the instructor's install), or not (the student's)?"""
    try:
        import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != PACKAGE:
            raise
        return False
    return True


@cache
def recorded() -> dict[str, Any]:
    """The recorded answers of every suite (a call is the same call whichever suite makes it)."""
    found: dict[str, Any] = {}
    for path in sorted(FOLDER.glob("*.json")):
        found.update(json.loads(path.read_text(encoding="utf-8")))
    return found


@dataclasses.dataclass(frozen=True)
class Reference:
    """A reference function of `autograder.checks.reference`, called by name
    (``"fitting.outcome"``)."""

    name: str

    @property
    def __name__(self) -> str:  # noqa: PLW3201 - reads like the function it stands for
        return self.name.rpartition(".")[2]

    def real(self) -> Callable:
        module, _, function = self.name.rpartition(".")
        return getattr(import_module(f"{PACKAGE}.{module}"), function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not installed():
            return self._answer(key(self.name, args, kwargs))
        if _recording is None:
            return self.real()(*args, **kwargs)
        called = key(self.name, args, kwargs)
        try:
            value = self.real()(*args, **kwargs)
        except Exception as exc:
            _recording[called] = {"raised": encode(exc)}
            raise
        _recording[called] = {"returned": encode(value)}
        return value

    def _answer(self, called: str) -> Any:
        found = recorded().get(called)
        if found is None:
            raise NotRecorded(
                f"the visible checks have no recorded answer for this call of {self.__name__}: "
                "only the instructor's install, with the course's reference answers, can judge "
                "it. Hand the notebook in, or tell your instructor which check stopped.")
        if "raised" in found:
            raise decode(found["raised"])
        return decode(found["returned"])


# --- writing the recorded answers ---------------------------------------------------------------

@contextmanager
def recording() -> Iterator[dict[str, Any]]:
    """Record every reference call made inside."""
    global _recording  # noqa: PLW0603 - one recorder at a time, for `record`
    _recording = {}
    try:
        yield _recording
    finally:
        _recording = None
