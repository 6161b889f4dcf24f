"""The reference answer of exercise 11-trim-history: ``trim_history(turns: list[dict], budget:
int) -> list[dict]``.

The body of `trim_history` below is the course's correct answer. The grader compares every
learner's answer with it, the hidden tests ask it for their expected answers, and it never
reaches students (the student install holds only the answers recorded for the visible checks).
"""

from __future__ import annotations


def trim_history(turns: list[dict], budget: int) -> list[dict]:
    """The newest turns whose tokens fit in ``budget``, oldest first; the walk back from the
    newest stops at the first turn that does not fit, so the history kept has no hole."""
    kept: list[dict] = []
    used = 0
    for turn in reversed(turns):
        if used + turn["tokens"] > budget:
            break
        kept.append(turn)
        used += turn["tokens"]
    return kept[::-1]
