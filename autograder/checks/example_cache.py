"""The property checks' examples, drawn once per version of the grader and stored.

Hypothesis draws the same examples for a check every time (they are derandomised, and depend on
the check's code, Hypothesis and Python alone), but drawing them costs seconds per grading
process. So they are drawn once and kept in ``.cache/packlab/examples/<key>.json``, where the
key is a digest of everything they could depend on (`key`): a changed suite, hidden test,
grader module or course algorithm, another Hypothesis or another Python gives another file.

A stored file is believed only when it is whole: its own key, a digest of its examples that
matches them, and nothing but plain data that decodes to exactly what was drawn (tuples stay
tuples). Anything else (a corrupted, truncated or foreign file) is ignored, and the examples are
drawn again. A check whose examples cannot be stored exactly draws its own, as before.
Nothing here changes an example: a grade is the same with or without the store.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import re
import tempfile
import time
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.metadata import version
from pathlib import Path

import autograder
from autograder.checks.suite import Examples, Suite
from autograder.checks.suites import load as load_suite
from autograder.checks.tagged_json import NotPlain, decode, encode
from packlab.manifest import ROOT, load

FOLDER = ROOT / ".cache" / "packlab" / "examples"
FORMAT = 1
STALE_DAYS = 30  # another version's store (1.1 MB for this course) unwritten this long goes


def sources() -> Iterator[tuple[Path, Path]]:
    """The code that grades: the grader (suites included) and the algorithms it checks against,
    as (name, path)."""
    import packlab.packing

    for package in (autograder, packlab.packing):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            yield path.relative_to(root.parent), path


def digest(head: str, files: Iterable[tuple[object, Path]]) -> str:
    """A SHA-256 of ``head`` and of each (name, path) in ``files``: the name, then the bytes."""
    hashed = hashlib.sha256(head.encode())
    for name, path in files:
        hashed.update(f"\0{name}\0".encode())
        hashed.update(path.read_bytes())
    return hashed.hexdigest()


@cache
def key() -> str:
    """A digest of what the examples depend on: the grader's code, Hypothesis and Python."""
    return digest(f"{FORMAT}\0{version('hypothesis')}\0"
                  f"{platform.python_implementation()} {platform.python_version()}",
                  sources())[:32]


def property_checks(name: str, suite: Suite) -> Iterator[tuple[str, Examples]]:
    """Every property check of ``suite`` (the suite called ``name``), with its place."""
    for group in suite.groups:
        for position, check in enumerate(group.checks):
            if check.examples is not None:
                yield f"{name}/{group.name}/{position}/{check.name}", check.examples


def path() -> Path:
    return FOLDER / f"{key()}.json"


def read(file: Path) -> dict[str, list]:
    """The examples stored in ``file``, by check; nothing when it is missing or not whole.

    The file is a header line (its key, and a digest of the rest) and the examples' JSON."""
    try:
        header, _, body = file.read_bytes().partition(b"\n")
        said = json.loads(header)
        if type(said) is not dict or said.get("key") != key() \
                or said.get("digest") != hashlib.sha256(body).hexdigest():
            return {}
        checks = decode(body.decode("utf-8"))
        return {place: examples for place, examples in checks
                if type(place) is str and type(examples) is list}
    except (OSError, ValueError, TypeError, RecursionError):
        return {}


def write(file: Path, examples: dict[str, list]) -> None:
    """Store ``examples`` (by check) in ``file``, atomically; quietly not, when it cannot be."""
    checks = []
    for place, drawn in examples.items():
        with contextlib.suppress(NotPlain):
            checks.append([place, encode(drawn)])
    body = json.dumps(checks).encode()
    header = json.dumps({"key": key(), "digest": hashlib.sha256(body).hexdigest()}).encode()
    part = None
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=file.parent, delete=False,
                                         suffix=".part") as handle:
            part = handle.name
            handle.write(header + b"\n" + body)
        os.replace(part, file)
    except OSError:
        if part is not None:
            with contextlib.suppress(OSError):
                os.unlink(part)
        return
    forget_stale(file)


def forget_stale(kept: Path) -> None:
    """Remove the stores beside ``kept`` (other versions of the grader, other Pythons) that
    nothing has written for STALE_DAYS: each version of the grader leaves one behind, never read
    again. One still read by another interpreter is drawn again the next time it is needed."""
    old = time.time() - STALE_DAYS * 86400
    for other in kept.parent.glob("*.json"):
        with contextlib.suppress(OSError):
            if other != kept and re.fullmatch(r"[0-9a-f]{32}\.json", other.name) \
                    and other.stat().st_mtime < old:
                other.unlink()


def suite_names() -> list[str]:
    """The suites of the course's exercises."""
    return list(dict.fromkeys(exercise.suite for exercise in load().exercises))


_prepared: set[str] = set()  # the suites whose checks have their examples, in this process


def prepare(names: Iterable[str] | None = None) -> int:
    """Give the property checks of these suites (default: the course's) their stored
    examples, drawing and storing those not stored yet; how many were drawn. A suite prepared
    once in a process stays so."""
    names = [name for name in (suite_names() if names is None else names)
             if name not in _prepared]
    if not names:
        return 0
    checks = {place: examples for name in names
              for place, examples in property_checks(name, load_suite(name))}
    file = path()
    stored = read(file)
    missing = [place for place in checks if place not in stored]
    for place in missing:
        stored[place] = checks[place].drawn()
    for place, examples in checks.items():
        examples.give(stored[place])
        examples.ahead(0, len(stored[place]))  # worked out here too, once
    if missing:
        write(file, stored)
    _prepared.update(names)
    return len(missing)
