"""Which idea a wrong answer is counted under: the one most of its failing checks name.

A learner holds one wrong idea, but on an input or two their answer can look like another (with
a budget of 0, taking parts while ``used < budget`` is also a strict ``<``). The class summary,
the room's chart and the learner's own check therefore take the idea most failing checks name
(`leading`), and a learner whose failing checks name several ideas is told which to fix first
(`start_here`). The generic keys (`GENERIC`: it crashed, ran out of time, is missing or not written
yet) are no idea to re-teach and always count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from autograder.checks import unwritten

# A "crash" whose call did not return in time: what happened is named, not "it stopped".
TIMEOUT = "ran-out-of-time"
# Every suite's "it stopped with an error" / "it ran out of time" / "it is not there" / "it is
# still the starter".
GENERIC = frozenset({"crash", TIMEOUT, "missing", unwritten.KEY})


def leading(named: Mapping[str, int]) -> set[str]:
    """Of the keys ``named`` (key -> how many failing checks name it), those an answer is
    counted under: every generic one, and the idea to re-teach that the most checks name (each,
    on a tie)."""
    most = max((n for key, n in named.items() if key not in GENERIC), default=0)
    return {key for key, n in named.items() if key in GENERIC or n == most}


OPENING_WORDS = 6  # of the leading idea's sentence, quoted by `start_here`


def start_here(failures: Sequence) -> str | None:
    """When ``failures`` (each with a ``misconception``) name more than one idea and one leads,
    which to fix first: often the others are the same mistake seen on an odd input. Else None.
    The idea is pointed to by its sentence's first words, not printed again beside the
    paragraph or the "This suggests" that already says it."""
    named = Counter(failure.misconception.key for failure in failures)
    first = leading(named) - GENERIC
    if len(first) != 1 or len(set(named) - GENERIC) < 2:
        return None
    key = first.pop()
    words = next(f.misconception.text for f in failures if f.misconception.key == key).split()
    opening = " ".join(words[:OPENING_WORDS]) + ("…" if len(words) > OPENING_WORDS else "")
    return (f"Start here: {named[key]} of the {len(failures)} failing checks point to one idea, "
            f"the one that begins \"{opening}\". Fix that first: the other failures may be the "
            "same mistake seen on an odd input.")
