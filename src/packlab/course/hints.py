"""Progressive hints from course.toml: each request shows one more, questions first."""

from __future__ import annotations

import json
import os
from pathlib import Path

from packlab.manifest import Exercise, load


def _state_file() -> Path:
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "packlab" / "hints.json"


def _seen() -> dict[str, int]:
    try:
        return json.loads(_state_file().read_text())
    except (OSError, ValueError):
        return {}


def _remember(name: str, count: int) -> None:
    path = _state_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**_seen(), name: count}))
    except OSError:
        pass  # a read-only home still gets its hint, it just is not remembered


def next_hints(exercise: Exercise, everything: bool = False) -> list[str]:
    """The hints shown so far plus one more (or all of them), remembering how far we got."""
    total = len(exercise.hints)
    shown = total if everything else min(_seen().get(exercise.name, 0) + 1, total)
    _remember(exercise.name, shown)
    return list(exercise.hints[:shown])


def format_hints(exercise: Exercise, hints: list[str]) -> str:
    lines = [f"Hints for {exercise.name} — {exercise.signature}"]
    lines += [f"  {number}. {text}" for number, text in enumerate(hints, 1)]
    left = len(exercise.hints) - len(hints)
    if left:
        lines.append(f"  ({left} more: ask again for the next one.)")
    elif exercise.lesson:
        lines.append("  (That is every hint. The lesson to reread: "
                     f"lessons/{exercise.lesson}.ipynb)")
    else:
        lines.append("  (That is every hint.)")
    return "\n".join(lines)


def hint_command(exercise: Exercise) -> str:
    """The terminal command that shows the next hint: the one form every message uses."""
    return f"packlab hint {load().short_key(exercise)}"


def hint_call(exercise: Exercise) -> str:
    """The same in a notebook cell."""
    return f'from packlab.course.hints import hint; hint("{load().short_key(exercise)}")'


def hint(key: str, everything: bool = False) -> None:
    """Print the next hint for an exercise (by name, number or function), e.g. ``hint("02")``."""
    exercise = load().exercise(key)
    print(format_hints(exercise, next_hints(exercise, everything)))


def forget(exercise: Exercise) -> None:
    """Start the exercise's hints again from the first (`packlab reset`)."""
    _remember(exercise.name, 0)
