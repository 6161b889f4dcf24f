"""The hidden tests of exercise 10, ``assemble_turn``: one group per step, its edge cases and
properties. As the visible groups do, a step's checks hold the other steps' ideas still (see
`autograder.checks.suites.assemble_turn`)."""

from __future__ import annotations

import copy
import random

from hypothesis import strategies as st

from autograder.checks.compare import vary_parts
from autograder.checks.suite import Caller, Check, Group, show, variation
from autograder.checks.suites.assemble_turn import (
    AGENT,
    MISCONCEPTIONS,
    TURN,
    all_ids,
    case,
    chunk,
    expected_outcome,
    history_problem,
    matching_mistake,
    msg,
    pair_split,
    part,
)


def args_of(system: dict, tools: list, history: list, evidence: list, question: dict,
            budget: int) -> list:
    return [system, tools, history, evidence, question, budget]


def budgets_for(rng: random.Random, args: list) -> tuple[list, tuple[int, ...]]:
    """A student's own turn (`vary_parts`) and budgets for it: just what the required parts
    need, just what everything needs, and four in between."""
    args = vary_parts(rng, copy.deepcopy(args))
    required = args[0]["tokens"] + sum(t["tokens"] for t in args[1]) + args[4]["tokens"]
    whole = required + sum(p["tokens"] for block in (args[2], args[3]) for p in block)
    return args, (required, *sorted(rng.sample(range(required + 1, whole), 4)), whole)


def same_prefix_at_every_budget(name: str, written: list, budgets: tuple[int, ...]) -> Check:
    """The first parts sent are the system prompt and the tools, identical at every budget (a
    student's own turn and budgets, `budgets_for`, under a seed)."""

    def run(call: Caller) -> None:
        rng = variation([*written, list(budgets)])
        args, chosen = (written, budgets) if rng is None else budgets_for(rng, written)
        prefix = [args[0]["id"], *(t["id"] for t in args[1])]
        heads = {budget: TURN.value(call, name, [*args[:5], budget])["order"][: len(prefix)]
                 for budget in chosen}
        if any(head != prefix for head in heads.values()):
            raise TURN.fail(name, [*args[:5], chosen[0]],
                            f"the first {len(prefix)} ids sent, by budget: {show(heads)}",
                            f"{show(prefix)} at every budget", MISCONCEPTIONS["prefix-unstable"])

    return Check(name, run)


SYS = part("sys", 50)
TOOL = [part("lookup", 30)]
ASK = part("ask", 20)  # the required parts: 100 tokens
SHORT_TURN = (SYS, TOOL, [msg("user-1", "user", 30), msg("user-2", "user", 30)],
              [chunk("doc-a", 10, 0.1), chunk("doc-b", 10, 0.9)], ASK, 150)

ONE_CHUNK_TURN = (SYS, TOOL, [msg("user-1", "user", 30), msg("user-2", "user", 30)],
                  [chunk("doc-b", 20, 0.9)], ASK, 170)

TOOL_NAMES = ("lookup", "ticket", "refund")
CHUNK_NAMES = ("doc-c", "doc-a", "doc-e", "doc-b", "doc-d")


@st.composite
def turns(draw, too_small: bool = False, history: bool = True, evidence: int = 5,
          whole_history: bool = False) -> list:
    """Arguments: a system prompt, 0–3 tools, up to 6 history units (a message or a tool pair;
    none without ``history``), up to ``evidence`` chunks with tied scores, a question and a
    budget: at least what the required parts need (with ``whole_history``, and the whole
    history), or (``too_small``) 1 to 40 tokens less."""
    return _turn(draw, too_small, history, evidence, whole_history)


def _turn(draw, too_small: bool, with_history: bool, chunks: int, whole_history: bool) -> list:
    system = part("sys", draw(st.integers(1 if too_small else 0, 50)))
    tools = [part(name, draw(st.integers(0, 30)))
             for name in TOOL_NAMES[: draw(st.integers(0, 3))]]
    history: list[dict] = []
    for number in range(1, draw(st.integers(0, 6 if with_history else 0)) + 1):
        if draw(st.booleans()):
            history.append(msg(f"call-{number}", "assistant", draw(st.integers(0, 40)),
                               f"c{number}"))
            history.append(msg(f"result-{number}", "tool", draw(st.integers(0, 60)),
                               f"c{number}"))
        else:
            role = draw(st.sampled_from(["user", "assistant"]))
            history.append(msg(f"{role}-{number}", role, draw(st.integers(0, 50))))
    evidence = [chunk(name, draw(st.integers(0, 80)), draw(st.sampled_from([0.2, 0.5, 0.5, 0.9])))
                for name in CHUNK_NAMES[: draw(st.integers(0, chunks))]]
    question = part("ask", draw(st.integers(0, 30)))
    required = system["tokens"] + sum(t["tokens"] for t in tools) + question["tokens"]
    if whole_history:
        required += sum(m["tokens"] for m in history)
    if too_small:
        budget = required - draw(st.integers(1, min(40, required)))
    else:
        budget = required + draw(st.integers(0, 300))
    return args_of(system, tools, history, evidence, question, budget)


PARTITION = "every id given is sent or dropped exactly once"
ACCOUNTING = "used is the sum of the parts sent, and within the budget"
HISTORY_RUN = "the history sent is an unbroken run of the newest messages, oldest first"
NO_ORPHANS = "no tool call or tool result is sent without its partner"
PREFIX_FIRST = "the system prompt and then the tools, in the order given, come first"
QUESTION_LAST = "the question comes last"
SAME_AS_COURSE = "the order, the drops with their reasons and used are the course's"
REQUIRED = ("required parts too big for the budget raise a ValueError naming the tokens "
            "needed, the budget and the shortfall")


def partitions(args: list, got: dict) -> str | None:
    listed = got["order"] + [d["id"] for d in got["dropped"]]
    if sorted(listed) != sorted(all_ids(args)):
        return TURN.text(args)
    return None


def accounts(args: list, got: dict) -> str | None:
    cost = {}
    for block in (args[1], args[2], args[3]):
        cost.update((p["id"], p["tokens"]) for p in block)
    cost.update({args[0]["id"]: args[0]["tokens"], args[4]["id"]: args[4]["tokens"]})
    sent = sum(cost.get(i, 0) for i in got["order"])
    if got["used"] != sent or sent > args[5]:
        return f"used = {sent} (the tokens of the parts in order), at most {args[5]}"
    return None


def history_is_a_newest_run(args: list, got: dict) -> None:
    problem = history_problem(args[2], got["order"])
    if problem and problem != "splits-pairs":
        key = matching_mistake(args, got, prefer=problem) or problem
        raise TURN.fail(HISTORY_RUN, args, show(got), f"{show(expected_outcome(args))}",
                        MISCONCEPTIONS[key])


def no_orphans(args: list, got: dict) -> None:
    split = pair_split(args[2], set(got["order"]))
    if split:
        raise TURN.fail(NO_ORPHANS, args, show(got),
                        f"{show(expected_outcome(args))} — the pair {split!r} was split",
                        MISCONCEPTIONS["splits-pairs"])


def prefix_first(args: list, got: dict) -> None:
    prefix = [args[0]["id"], *(t["id"] for t in args[1])]
    if got["order"][: len(prefix)] != prefix:
        key = "required-dropped" if any(i not in got["order"] for i in prefix) else \
            "prefix-unstable"
        raise TURN.fail(PREFIX_FIRST, args, show(got), f"order starting with {show(prefix)}",
                        MISCONCEPTIONS[key])


def question_last(args: list, got: dict) -> None:
    if not got["order"] or got["order"][-1] != args[4]["id"]:
        key = "required-dropped" if args[4]["id"] not in got["order"] else "question-not-last"
        raise TURN.fail(QUESTION_LAST, args, show(got), f"order ending with {args[4]['id']!r}",
                        MISCONCEPTIONS[key])


GROUPS = (
    Group(
        "required-hidden",
        "Step 1: tools too big, an exact fit, the required parts alone; generated turns of "
        "required parts: the prefix first, the question last, honest accounting, the course's "
        "answer, and too small a budget refused with numbers.",
        (
            case("tools too big for the budget raise a ValueError naming the shortfall",
                 SYS, [part("lookup", 300)], [], [], ASK, 200),
            case("required parts that land exactly on the budget are sent",
                 SYS, [part("lookup", 30), part("ticket", 10)], [], [], ASK, 110),
            case("with no history and no evidence, the required parts are the whole request",
                 SYS, [], [], [], ASK, 100),
            TURN.holds(PREFIX_FIRST, turns(history=False, evidence=0), prefix_first),
            TURN.holds(QUESTION_LAST, turns(history=False, evidence=0), question_last),
            TURN.holds(ACCOUNTING, turns(history=False, evidence=0), accounts),
            TURN.matches(SAME_AS_COURSE, turns(history=False, evidence=0)),
            TURN.matches(REQUIRED, turns(too_small=True, history=False, evidence=0)),
        ),
    ),
    Group(
        "history-hidden",
        "Step 2: history that stops without holes, tool pairs, oldest first, every optional "
        "message dropped at an exact fit; generated turns with history: a partition, an "
        "unbroken newest history, no orphaned tool message, the course's answer.",
        (
            case("required parts that land exactly on the budget are sent; every message is "
                 "dropped with its reason",
                 SYS, TOOL, [msg("user-1", "user", 10), msg("assistant-1", "assistant", 10)],
                 [], ASK, 100),
            case("history stops at the first message that does not fit, even though an "
                 "older one would fit: no holes",
                 SYS, TOOL, [msg("user-1", "user", 10), msg("assistant-1", "assistant", 80),
                             msg("user-2", "user", 30)], [], ASK, 150),
            case("a tool call and its result that fit together are both sent",
                 SYS, TOOL, [msg("user-1", "user", 40), msg("call-1", "assistant", 20, "c1"),
                             msg("result-1", "tool", 30, "c1")], [], ASK, 160),
            case("a tool result that fits alone is dropped with its call when the pair does "
                 "not fit, and the walk stops there",
                 SYS, TOOL, [msg("user-1", "user", 10), msg("call-1", "assistant", 40, "c1"),
                             msg("result-1", "tool", 30, "c1"), msg("user-2", "user", 20)],
                 [], ASK, 170),
            case("history is sent oldest first, right after the tools",
                 SYS, TOOL, [msg("user-1", "user", 10), msg("assistant-1", "assistant", 10),
                             msg("user-2", "user", 10)], [], ASK, 200),
            TURN.holds(PARTITION, turns(evidence=0), partitions),
            TURN.holds(HISTORY_RUN, turns(evidence=0), history_is_a_newest_run),
            TURN.holds(NO_ORPHANS, turns(evidence=0), no_orphans),
            TURN.matches(SAME_AS_COURSE, turns(evidence=0)),
        ),
    ),
    Group(
        "evidence-hidden",
        "Step 3: evidence packed skip-and-continue, by score, ties in order, placed "
        "edges-first, the two reasons; generated turns with evidence: a partition, the prefix "
        "first, the question last, the course's answer.",
        (
            case("evidence is skip-and-continue: a big best chunk is dropped and smaller "
                 "ones still go in",
                 SYS, TOOL, [], [chunk("doc-a", 20, 0.5), chunk("doc-b", 90, 0.9),
                                 chunk("doc-c", 30, 0.7)], ASK, 160),
            case("evidence is weighed by score, not in the order it was retrieved",
                 SYS, TOOL, [], [chunk("doc-a", 40, 0.2), chunk("doc-b", 40, 0.9)],
                 ASK, 150),
            case("kept evidence sits edges-first: best last, second best first, the weakest "
                 "in the middle",
                 SYS, TOOL, [], [chunk("doc-a", 10, 0.3), chunk("doc-b", 10, 0.9),
                                 chunk("doc-c", 10, 0.5), chunk("doc-d", 10, 0.7),
                                 chunk("doc-e", 10, 0.1)], ASK, 200),
            case("chunks with equal scores are weighed in the order they were given",
                 SYS, TOOL, [], [chunk("doc-a", 30, 0.5), chunk("doc-b", 30, 0.5),
                                 chunk("doc-c", 30, 0.5)], ASK, 160),
            case("a chunk bigger than the whole room is evidence-too-large, one that lost to "
                 "a better chunk evidence-over-budget",
                 SYS, TOOL, [], [chunk("doc-a", 40, 0.9), chunk("doc-b", 30, 0.8),
                                 chunk("doc-c", 60, 0.7), chunk("doc-d", 80, 0.6)], ASK, 170),
            TURN.holds(PARTITION, turns(history=False), partitions),
            TURN.holds(PREFIX_FIRST, turns(history=False), prefix_first),
            TURN.holds(QUESTION_LAST, turns(history=False), question_last),
            TURN.matches(SAME_AS_COURSE, turns(history=False)),
        ),
    ),
    Group(
        "together-hidden",
        "Step 4: history before evidence, the evidence in the room history left, the stable "
        "prefix at every budget, the arguments unchanged; generated turns with history and a "
        "chunk: a partition, honest accounting, an unbroken newest history, no orphans, the "
        "course's answer.",
        (
            case("evidence gets only the room the history left: a chunk bigger than that "
                 "room is evidence-too-large, one that lost to a better chunk "
                 "evidence-over-budget",
                 SYS, TOOL, [msg("user-1", "user", 30)],
                 [chunk("doc-a", 40, 0.9), chunk("doc-b", 30, 0.8), chunk("doc-c", 60, 0.7)],
                 ASK, 170),
            case("the whole history is sent before any evidence, even when a chunk scores "
                 "high", SYS, TOOL, [msg("user-1", "user", 30), msg("assistant-1",
                                                                    "assistant", 30)],
                 [chunk("doc-a", 40, 1.0)], ASK, 170),
            same_prefix_at_every_budget(
                "the system prompt and the tools are the first parts sent at every budget",
                [*AGENT, 0], (279, 300, 450, 600, 800, 1000)),
            TURN.left_alone("the arguments are left exactly as they were", *SHORT_TURN),
            case("the whole history fits and the chunk does not: it is evidence-too-large for "
                 "the room the history left", *ONE_CHUNK_TURN),
            TURN.holds(PARTITION, turns(evidence=1, whole_history=True), partitions),
            TURN.holds(ACCOUNTING, turns(evidence=1, whole_history=True), accounts),
            TURN.holds(HISTORY_RUN, turns(evidence=1, whole_history=True), history_is_a_newest_run),
            TURN.holds(NO_ORPHANS, turns(evidence=1, whole_history=True), no_orphans),
            TURN.matches(SAME_AS_COURSE, turns(evidence=1, whole_history=True)),
        ),
    ),
)
