"""Exercise 10: ``assemble_turn``, and its answer (or error) for a suite's arguments."""

from __future__ import annotations

from autograder.checks.suite import plain_copy
from packlab.packing.conversation import RULES, RequiredTooBig, Rules, assemble_with


def assemble_turn(system: dict, tools: list[dict], history: list[dict], evidence: list[dict],
                  question: dict, budget: int) -> dict:
    """Required parts or raise, the newest unbroken history, the best evidence that fits (skip
    and continue) placed edges-first, the question last, a reason for every drop."""
    answer = outcome([system, tools, history, evidence, question, budget])
    if isinstance(answer, RequiredTooBig):
        raise answer
    return answer


def outcome(args: list, rules: Rules | None = None) -> dict | RequiredTooBig:
    """The answer for these arguments, or the `RequiredTooBig` raised (returned, not raised);
    ``rules``: a classic wrong assembly instead."""
    try:
        answer = assemble_with(*plain_copy(args), rules=rules or RULES)
    except RequiredTooBig as error:
        return error
    return {**answer, "dropped": in_given_order(answer["dropped"], args[2], args[3])}


def in_given_order(dropped: list[dict], history: list[dict], evidence: list[dict]) -> list[dict]:
    """The drops as the exercise lists them: the history oldest first, then the evidence in input
    order (`assemble_with`, the lesson's version, lists them in the order its walks met them)."""
    place = {"history": {m["id"]: i for i, m in reversed(list(enumerate(history)))},
             "evidence": {c["id"]: i for i, c in reversed(list(enumerate(evidence)))}}

    def key(drop: dict) -> tuple[int, int]:
        block = "history" if drop["reason"].startswith("history-") else "evidence"
        return (block == "evidence", place[block][drop["id"]])

    return sorted(dropped, key=key)
