"""An answer still as its starter left it (``raise NotImplementedError``), said plainly.

Every check a starter fails would otherwise blame a crash; `explain` makes such a failure say
that the function is not written yet, so the notebook, `packlab check` and the grader's
feedback all tell the learner what to do.
"""

from __future__ import annotations

from dataclasses import replace

from autograder.checks.suite import Caller, Check, CheckFailed, Failure, Misconception

KEY = "not-written"
RAISED = "it raised NotImplementedError"


def sentence(function: str) -> str:
    """What to do, in one sentence."""
    return f"`{function}` is not written yet: replace `raise NotImplementedError` with your code."


def is_unwritten(failure: Failure) -> bool:
    return failure.misconception.key == KEY


def explain(check: Check, function: str) -> Check:
    """The same check, its failures on a ``NotImplementedError`` saying "not written yet"."""

    def run(call: Caller) -> None:
        try:
            check.run(call)
        except CheckFailed as exc:
            failure = exc.failure
            if not failure.got.startswith(RAISED):
                raise
            said = Misconception(KEY, sentence(function), failure.misconception.lesson)
            raise CheckFailed(replace(failure, misconception=said)) from None

    return replace(check, run=run)
