"""The visible tests of exercise 11-trim-history: ``trim_history(turns: list[dict], budget: int)
-> list[dict]``.

Filled in from `packlab new-exercise`'s scaffold: the wrong ideas as data, `diagnose` naming the
likeliest one behind a wrong answer, `malformed` for an answer of the wrong shape, and the visible
examples with their answers written out. The hidden edge cases and properties are in
autograder/checks/hidden/trim_history.py.

THIS FILE SHIPS TO STUDENTS (their install runs the visible checks from it): everything here,
diagnose included, is readable by every learner: it tells the wrong ideas by the answer's shape,
never by a walk one word from the answer, which lives in autograder/checks/reference/, unshipped.
"""

from __future__ import annotations

from autograder.checks.compare import Compare, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Group, Misconception, Suite, common_misconceptions

LESSON = "10-conversation-shapes"  # the lesson a failure sends the learner back to ("" for none)
FUNCTION = "trim_history"
reference = Reference("trim_history.trim_history")  # autograder/checks/reference/trim_history.py

# key -> what a learner with this wrong idea should be told (one sentence or two).
WRONG_IDEAS = {
    "mutates-input": "trim_history must not change the turns it was given: the caller still "
                     "needs the whole conversation.",
    "not-a-list": "trim_history returns a list of the kept turns (the dicts themselves), not "
                  "None, ids or a count (did you forget `return`?).",
    "keeps-oldest": "the newest turns matter most: walk from the end of the list back to the "
                    "start, not from the start forward.",
    "newest-first": "walk from the newest turn back, but return the kept turns in their "
                    "original order, oldest first.",
    "skips-a-turn": "a conversation with a hole in it makes no sense: stop at the first turn "
                    "(from the newest back) that does not fit, and keep nothing older.",
    "strict-less-than": "a turn that lands exactly on the budget still fits: compare with `<=`.",
    "wrong-answer": "keep the newest turns whose tokens add up to at most the budget, stopping "
                    "at the first that does not fit, and return them oldest first.",
}

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    **{key: Misconception(key, text, LESSON) for key, text in WRONG_IDEAS.items()},
}


def turns_of(tokens: dict[str, int]) -> list[dict]:
    """Turns, oldest first: ``{"hi": 30}`` becomes ``[{"id": "hi", "tokens": 30}]``."""
    return [{"id": turn_id, "tokens": cost} for turn_id, cost in tokens.items()]


def diagnose(args: list, got) -> Misconception:
    """The likeliest wrong idea behind the wrong answer ``got`` to ``args``, told by the answer's
    shape (no walk of the turns here: this file ships to students)."""
    turns, budget = args
    if malformed(got):
        return MISCONCEPTIONS["not-a-list"]
    if got == reference(turns, budget)[::-1]:
        return MISCONCEPTIONS["newest-first"]
    if got and got == turns[:len(got)] and any(  # the start of the history, not its end,
            turn["tokens"] <= budget for turn in turns[len(got):]):  # and not for want of room
        return MISCONCEPTIONS["keeps-oldest"]
    if got and got != turns[len(turns) - len(got):] and all(turn in turns for turn in got):
        return MISCONCEPTIONS["skips-a-turn"]  # turns of the history, with a hole
    if got == reference(turns, budget - 1):
        return MISCONCEPTIONS["strict-less-than"]
    return MISCONCEPTIONS["wrong-answer"]


def malformed(got) -> bool:
    """True for an answer that is not a list of turns (dicts)."""
    return type(got) is not list or any(type(turn) is not dict for turn in got)


# Each student's hidden edge cases are their own: parts' ids (dicts with an "id") get a prefix,
# and token counts (a "tokens" key) and whole-number arguments are multiplied by one factor, so
# what fits and in which order stays. COUNTS lists the positions (0 for the first) of arguments
# that count things, such as cap=1 or top_k=2: they are never multiplied.
COUNTS = ()

JUDGE = Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=reference,
                diagnose=diagnose, malformed=malformed,
                vary=lambda rng, args: vary_parts(rng, args, counts=COUNTS))

CHAT = turns_of({"hi": 30, "ask": 50, "reply": 40, "follow-up": 20})

# (what the example shows, the answer written out, the arguments...)
VISIBLE = [
    ("a budget of 70 keeps the two newest turns, 'reply' and 'follow-up', oldest first",
     CHAT[2:], CHAT, 70),
    ("when everything fits, every turn comes back in order", CHAT, CHAT, 500),
    ("a turn that lands exactly on the budget still fits: 30 + 40 = 70 keeps both",
     turns_of({"a": 30, "b": 40}), turns_of({"a": 30, "b": 40}), 70),
    ("the walk stops at the first turn that does not fit: 'old' is not kept behind 'big'",
     turns_of({"new": 30}), turns_of({"old": 10, "big": 100, "new": 30}), 50),
]

SUITE = Suite(
    function=FUNCTION,
    reference=reference,
    groups=(
        Group(
            "visible",
            "A chat trimmed to a short budget, a budget everything fits in, an exact fit and a "
            "turn too big in the middle.",
            (JUDGE.left_alone("the turns list is left as it was", CHAT, 70),
             *(JUDGE.answers(shows, answer, *args) for shows, answer, *args in VISIBLE)),
            visible=True,
        ),
    ),
)
