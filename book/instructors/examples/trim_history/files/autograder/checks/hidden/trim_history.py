"""The hidden tests of exercise 11-trim-history, ``trim_history``: edge cases and properties.

Filled in from `packlab new-exercise`'s scaffold: the edge cases as data (the expected answer is
the reference's), a Hypothesis strategy for the arguments of one call, and the properties every
answer must have. Every answer is also compared with the reference's on the generated examples,
and the arguments must be left as they were.
"""

from __future__ import annotations

from hypothesis import strategies as st

from autograder.checks.suite import Group
from autograder.checks.suites.trim_history import JUDGE, turns_of

# (what the case tries, the arguments...)
EDGE_CASES = [
    ("an empty history trims to an empty list", [], 100),
    ("with a budget of 0, only the newest turns of 0 tokens are kept",
     turns_of({"a": 0, "b": 5, "c": 0}), 0),
    ("when the newest turn alone is too big, nothing is kept",
     turns_of({"a": 60, "b": 50, "c": 200}), 100),
    ("a turn of 0 tokens behind a turn that does not fit is not kept",
     turns_of({"zero": 0, "big": 100, "new": 10}), 50),
    ("turns of the same size: the newest ones are kept",
     turns_of({"t1": 30, "t2": 30, "t3": 30, "t4": 30}), 90),
]

NAMES = ("hi", "ask", "reply", "tool", "note", "retry", "ok", "more", "why", "done", "end", "bye")

# The arguments of one call: turns of 0 to 60 tokens, and a budget every one of them fits in
# alone (a turn too big for the budget is the edge cases' to try: there a walk that skips it and
# one that keeps the oldest can give the same answer, and the diagnosis could not tell which).
examples = st.tuples(
    st.lists(st.integers(0, 60), max_size=len(NAMES)).map(
        lambda tokens: turns_of(dict(zip(NAMES, tokens, strict=False)))),
    st.integers(60, 200),
)


def newest_in_order(args: list, got: list[dict]) -> str | None:
    turns, _ = args
    if got != turns[len(turns) - len(got):]:
        return "the newest turns of the history, oldest first, with no turn left out between"
    return None


def within_budget(args: list, got: list[dict]) -> str | None:
    _, budget = args
    if sum(turn["tokens"] for turn in got) > budget:
        return f"turns of at most {budget} tokens in all"
    return None


# (what holds for every answer, test(args, got) -> None or what was expected).
PROPERTIES = [
    ("the kept turns are the newest ones, in their order", newest_in_order),
    ("the kept turns fit in the budget", within_budget),
]

GROUPS = (
    Group(
        "edge-cases",
        "An empty history, a zero budget, a newest turn too big, a zero-token turn behind a "
        "miss, turns of one size.",
        tuple(JUDGE.case(tries, *args) for tries, *args in EDGE_CASES),
    ),
    Group(
        "properties",
        "For generated histories and budgets: the newest turns in order, within the budget, "
        "the course's answer, the turns unchanged.",
        tuple(JUDGE.holds(holds, examples, test) for holds, test in PROPERTIES) + ((
            JUDGE.matches("the answer is the course's answer on generated input", examples),
            JUDGE.leaves_alone("the arguments are left as they were", examples),
        ) if examples is not None else ()),
    ),
)
