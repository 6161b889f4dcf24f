"""Tests for exercise 10: ``assemble_turn(system, tools, history, evidence, question, budget)``.

The expected answers come from `autograder.checks.reference.conversation` (the course's
`assemble_turn`, instructor-only; the student install reads the answers recorded for the visible
checks, `autograder.checks.recorded`); its classic wrong versions
(`packlab.packing.conversation.MISTAKES`) and the rules a conversation must keep (prefix first,
question last, history an unbroken newest run, no orphaned tool message) name the likeliest mistake
behind a wrong answer.

A check that expects an error catches the `StudentError` itself: the function must raise a
``ValueError`` whose message names the tokens the required parts need, the budget and the
shortfall.
"""

from __future__ import annotations

import re

from autograder.checks.compare import CompareOrRaise, Unchanged, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import (
    Answer,
    Group,
    Misconception,
    Suite,
    common_misconceptions,
    error_parts,
    wrong_kind,
)
from packlab.packing.conversation import (
    KEYS,
    MISTAKES,
    REASONS,
    RequiredTooBig,
    history_units,
)

LESSON = "10-conversation-shapes"
FUNCTION = "assemble_turn"

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-dict": Misconception(
        "not-a-dict",
        "assemble_turn returns one dict, {\"order\": [...], \"dropped\": [...], \"used\": ...} — "
        "not a tuple, a list or None (did you forget `return`?).",
        LESSON,
    ),
    "missing-key": Misconception(
        "missing-key",
        "the result has exactly three keys, spelled `order`, `dropped` and `used`.",
        LESSON,
    ),
    "field-types": Misconception(
        "field-types",
        "`order` is a list of id strings, `dropped` a list of {\"id\": ..., \"reason\": ...} "
        "dicts and `used` a whole number of tokens.",
        LESSON,
    ),
    "required-dropped": Misconception(
        "required-dropped",
        "the system prompt, the tools and the question are never dropped: when they alone need "
        "more than the budget, raise a ValueError instead of sending a request without them.",
        LESSON,
    ),
    "vague-required-error": Misconception(
        "vague-required-error",
        "the error for required parts that do not fit should let the caller fix it at once: "
        "name the tokens they need, the budget and how many tokens are missing.",
        LESSON,
    ),
    "not-a-value-error": Misconception(
        "not-a-value-error",
        "raise ValueError (or a subclass of it) on purpose, with a message. This error is of "
        "another kind, often one Python raised by accident (a KeyError or a TypeError).",
        LESSON,
    ),
    "prefix-unstable": Misconception(
        "prefix-unstable",
        "the request starts with the system prompt and then the tools, in the order given, "
        "every turn: that stable prefix is what a prompt cache reuses. Anything that changes "
        "from turn to turn (evidence, the question) must come after it.",
        LESSON,
    ),
    "question-not-last": Misconception(
        "question-not-last",
        "the question is the very last part sent, after the evidence: the model reads it last "
        "and answers it, and it changes every turn, so it belongs at the volatile end.",
        LESSON,
    ),
    "blocks-out-of-order": Misconception(
        "blocks-out-of-order",
        "the blocks are sent in one fixed order: system, tools, history, evidence, question. "
        "History before evidence keeps the conversation next to the stable prefix.",
        LESSON,
    ),
    "splits-pairs": Misconception(
        "splits-pairs",
        "an assistant message that calls a tool and the tool message with the same `call_id` "
        "are one unit: kept together or dropped together, at the cost of both. A tool result "
        "without its call (or a call without its result) breaks the request.",
        LESSON,
    ),
    "history-out-of-order": Misconception(
        "history-out-of-order",
        "you walk the history from the newest message back, but you send it oldest first, in "
        "the order it was given — a conversation read backwards makes no sense.",
        LESSON,
    ),
    "history-with-holes": Misconception(
        "history-with-holes",
        "history is not packed like evidence: when a message (or pair) does not fit, stop. "
        "Skipping it and keeping older messages leaves a hole in the conversation.",
        LESSON,
    ),
    "keeps-oldest-history": Misconception(
        "keeps-oldest-history",
        "history keeps the NEWEST messages: walk from the end of the list backwards, not from "
        "its start. The latest turns are what the question refers to.",
        LESSON,
    ),
    "history-run-wrong": Misconception(
        "history-run-wrong",
        "walk the history from the newest unit back and keep each one while it fits in the "
        "room left after the required parts (budget − system − tools − question); stop at the "
        "first that does not fit.",
        LESSON,
    ),
    "evidence-break": Misconception(
        "evidence-break",
        "evidence is packed skip-and-continue: a chunk that does not fit is dropped and the "
        "smaller chunks after it still get their chance. Only history stops at the first miss.",
        "03-the-early-stop-trap",
    ),
    "evidence-by-input-order": Misconception(
        "evidence-by-input-order",
        "evidence is weighed best score first (equal scores in input order), not in the order "
        "it was retrieved.",
        LESSON,
    ),
    "evidence-not-greedy": Misconception(
        "evidence-not-greedy",
        "after the history, walk the chunks best score first and keep each one whose tokens fit "
        "in the room still left; skip the others and go on.",
        LESSON,
    ),
    "evidence-placement": Misconception(
        "evidence-placement",
        "kept evidence is placed edges-first: the best chunk last (next to the question), the "
        "second best first, the third best second to last, the fourth second, ... so the "
        "weakest chunks sit in the middle, where models attend least.",
        LESSON,
    ),
    "evidence-before-history": Misconception(
        "evidence-before-history",
        "the history is packed first, into the room the required parts leave; the evidence "
        "gets only the room the history left. Packing the evidence first crowds the "
        "conversation out of its own turn.",
        LESSON,
    ),
    "not-a-partition": Misconception(
        "not-a-partition",
        "every part given ends up exactly once: in `order` if it is sent, in `dropped` if not.",
        LESSON,
    ),
    "wrong-reason": Misconception(
        "wrong-reason",
        "each dropped part gets the reason for its own case: " + "; ".join(
            f"`{key}` for {text}" for key, text in REASONS.items()) + ".",
        LESSON,
    ),
    "dropped-order": Misconception(
        "dropped-order",
        "`dropped` lists the history first (oldest first), then the evidence in the order it "
        "was given.",
        LESSON,
    ),
    "used-wrong": Misconception(
        "used-wrong",
        "`used` is the sum of the tokens of every part sent, required parts included.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "assembling must not change the lists it was given (no sorting the evidence in place, "
        "no popping history): the caller keeps the conversation for the next turn.",
        LESSON,
    ),
}

# --- building arguments ---------------------------------------------------------------------------

def part(part_id: str, tokens: int) -> dict:
    return {"id": part_id, "tokens": tokens}


def msg(part_id: str, role: str, tokens: int, call: str | None = None) -> dict:
    made = {"id": part_id, "role": role, "tokens": tokens}
    if call is not None:
        made["call_id"] = call
    return made


def chunk(part_id: str, tokens: int, score: float) -> dict:
    return {"id": part_id, "tokens": tokens, "score": score}


# The course's answer for these arguments (or the error it raises).
expected_outcome = Reference("conversation.outcome")


# --- what the learner's error must say ------------------------------------------------------------

def names_number(message: str, number: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", message) is not None


def unmentioned(error: RequiredTooBig, detail: str) -> list[str]:
    message = error_parts(detail)[1]
    return [number for number in error.mentions if not names_number(message, number)]


def describe_error(error: RequiredTooBig) -> str:
    needed, budget, short = error.mentions
    return (f"a ValueError naming the {needed} tokens needed, the budget {budget} and the "
            f"{short} tokens short — like: {error}")


# --- diagnosis ------------------------------------------------------------------------------------

def shape_problem(got) -> str | None:
    if type(got) is not dict:
        return "not-a-dict"
    if sorted(got) != sorted(KEYS):
        return "missing-key"
    order, dropped = got["order"], got["dropped"]
    if type(order) is not list or any(type(i) is not str for i in order):
        return "field-types"
    if type(dropped) is not list or any(
            type(d) is not dict or sorted(d) != ["id", "reason"] or type(d["id"]) is not str
            or type(d["reason"]) is not str for d in dropped):
        return "field-types"
    if type(got["used"]) is not int:
        return "field-types"
    return None


def all_ids(args: list) -> list[str]:
    system, tools, history, evidence, question, _ = args
    return [system["id"], *(t["id"] for t in tools), *(m["id"] for m in history),
            *(c["id"] for c in evidence), question["id"]]


def pair_split(history: list[dict], sent: set[str]) -> str | None:
    """The call_id of a tool pair that is half sent, if any."""
    for unit in history_units(history):
        states = {history[i]["id"] in sent for i in unit}
        if len(states) > 1:
            return history[unit[0]].get("call_id")
    return None


def history_problem(history: list[dict], order: list[str]) -> str | None:
    """What is wrong with the history sent, judged on its own (None: an unbroken newest run)."""
    position = {m["id"]: i for i, m in enumerate(history)}
    sent = [position[i] for i in order if i in position]
    if pair_split(history, set(order)):
        return "splits-pairs"
    if sent != sorted(sent):
        return "history-out-of-order"
    if sent and sent != list(range(sent[0], sent[0] + len(sent))):
        return "history-with-holes"
    if sent and sent[-1] != len(history) - 1:
        return "keeps-oldest-history"
    return None


def layout_problem(args: list, order: list[str]) -> str | None:
    """What is wrong with where the blocks are placed (None: prefix, history, evidence,
    question)."""
    system, tools, history, evidence, question, _ = args
    prefix = [system["id"], *(t["id"] for t in tools)]
    if any(i not in order for i in [*prefix, question["id"]]):
        return "required-dropped"
    if order[: len(prefix)] != prefix:
        return "prefix-unstable"
    if order[-1] != question["id"]:
        return "question-not-last"
    block = {m["id"]: 0 for m in history} | {c["id"]: 1 for c in evidence}
    blocks = [block[i] for i in order[len(prefix):-1] if i in block]
    if blocks != sorted(blocks):
        return "blocks-out-of-order"
    return None


def evidence_ids(args: list, order: list[str]) -> list[str]:
    ids = {c["id"] for c in args[3]}
    return [i for i in order if i in ids]


def ranked_ids(evidence: list[dict]) -> list[str]:
    """The chunks' ids best score first, ties in input order."""
    return [c["id"] for c in sorted(evidence, key=lambda c: -c["score"])]


def placed_by_rank(args: list, got: dict, expected: dict) -> bool:
    """Whether only the evidence's placement differs, and it is best first or best last."""
    kept = set(evidence_ids(args, expected["order"]))
    ranked = [i for i in ranked_ids(args[3]) if i in kept]
    theirs = evidence_ids(args, got["order"])
    others = [i for i in got["order"] if i not in kept]
    return (theirs in (ranked, ranked[::-1]) and theirs != evidence_ids(args, expected["order"])
            and others == [i for i in expected["order"] if i not in kept]
            and got["dropped"] == expected["dropped"] and got["used"] == expected["used"])


def matching_mistake(args: list, got: dict, prefer: str | None = None) -> str | None:
    """A classic mistake whose assembly gives exactly what the learner's gave: ``prefer`` when
    it is one of them (two mistakes can agree on a small input), else the first."""
    keys = [key for key, rules in MISTAKES.items() if expected_outcome(args, rules) == got]
    return prefer if prefer in keys else next(iter(keys), None)


def break_leaves_unlisted(args: list, got: dict) -> bool:
    """Whether the ids missing from both lists are chunks ranked after one that was dropped:
    the evidence walk ended early (a `break`)."""
    listed = set(got["order"]) | {d["id"] for d in got["dropped"]}
    missing = set(all_ids(args)) - listed
    ranked = ranked_ids(args[3])
    first_drop = next((n for n, i in enumerate(ranked) if i not in got["order"]), None)
    return bool(missing) and first_drop is not None and missing <= set(ranked[first_drop + 1:])


def value_problem(args: list, got: dict, expected: dict) -> str:
    """The key of the likeliest wrong idea behind a well-formed but wrong result."""
    if placed_by_rank(args, got, expected):
        return "evidence-placement"
    order = got["order"]
    problem = layout_problem(args, order) or history_problem(args[2], order)
    mistake = matching_mistake(args, got, prefer=problem)
    if mistake or problem:
        return mistake or problem
    history_ids = {m["id"] for m in args[2]}
    if {i for i in order if i in history_ids} != {
            i for i in expected["order"] if i in history_ids}:
        return "history-run-wrong"
    chosen = set(evidence_ids(args, order))
    if chosen != set(evidence_ids(args, expected["order"])):
        for key in ("evidence-break", "evidence-by-input-order"):
            theirs = expected_outcome(args, MISTAKES[key])
            if chosen == set(evidence_ids(args, theirs["order"])):
                return key
        return "evidence-not-greedy"
    if order != expected["order"]:
        return "evidence-placement"
    dropped_ids = [d["id"] for d in got["dropped"]]
    if sorted(dropped_ids + order) != sorted(all_ids(args)):
        return "evidence-break" if break_leaves_unlisted(args, got) else "not-a-partition"
    if dropped_ids != [d["id"] for d in expected["dropped"]]:
        return "dropped-order"
    if got["dropped"] != expected["dropped"]:
        return "wrong-reason"
    return "used-wrong"


def diagnose(args: list, got: Answer, expected) -> Misconception:
    if isinstance(expected, RequiredTooBig):
        if got.returned:
            return MISCONCEPTIONS["required-dropped"]
        return MISCONCEPTIONS["not-a-value-error" if wrong_kind(got.error)
                              else "vague-required-error"]
    if not got.returned:
        return MISCONCEPTIONS["not-a-value-error" if wrong_kind(got.error) else "crash"]
    if got.not_plain is not None:
        return MISCONCEPTIONS["field-types"]
    return MISCONCEPTIONS[shape_problem(got.value) or value_problem(args, got.value, expected)]


# --- checks ---------------------------------------------------------------------------------------

TURN = CompareOrRaise(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=expected_outcome,
                      error=RequiredTooBig, describe_error=describe_error,
                      unmentioned=unmentioned, diagnose=diagnose, malformed=shape_problem,
                      unchanged=Unchanged("arguments", compared=lambda args: args[:5],
                                          shown=lambda args: args[:5]),
                      vary=vary_parts)
case = TURN.case


# The lesson's agent turn, without its texts (tokens counted with the real tokenizer).
SYSTEM = part("system", 59)
TOOLS = [part("tools/order_lookup", 70), part("tools/open_ticket", 65),
         part("tools/send_spare_part", 71)]
HISTORY = [msg("user-1", "user", 17), msg("assistant-1", "assistant", 20),
           msg("user-2", "user", 16), msg("call-1", "assistant", 19, "lookup-1"),
           msg("result-1", "tool", 57, "lookup-1"), msg("assistant-2", "assistant", 40),
           msg("user-3", "user", 18)]
EVIDENCE = [chunk("chunk-refunds", 48, 0.84), chunk("chunk-warranty", 292, 0.91),
            chunk("chunk-shipping", 36, 0.38), chunk("chunk-tent-care", 31, 0.52)]
QUESTION = part("user-4", 14)
AGENT = (SYSTEM, TOOLS, HISTORY, EVIDENCE, QUESTION)


# --- the suite ------------------------------------------------------------------------------------
# One visible group per step of the exercise (course.toml's [[exercises.steps]]). A step's checks
# hold the other steps' ideas still: required parts too big only in step 1; history in step 2
# and evidence in step 3, each alone (or all of it fitting); both together in step 4, where the
# whole history fits when it is packed first and at most one chunk is kept, so the history
# walk, and the evidence walk's order and placement, do not show.

NO_HISTORY = (SYSTEM, TOOLS, [], EVIDENCE, QUESTION)
NO_EVIDENCE = (SYSTEM, TOOLS, HISTORY, [], QUESTION)

REQUIRED = Group(
    "required-visible",
    "Step 1: the required parts alone, in their order, and required parts too big for the "
    "budget.",
    (
        case("the required parts are sent in order: the system prompt, the tools as given, the "
             "question last", SYSTEM, TOOLS, [], [], QUESTION, 300),
        case("required parts needing 279 tokens in a budget of 250 raise a ValueError naming "
             "279, 250 and 29 short", *AGENT, 250),
    ),
    visible=True,
)

HISTORY_STEP = Group(
    "history-visible",
    "Step 2: the lesson's history at budget 400 (no evidence), and a budget it all fits in.",
    (
        TURN.about("the history sent is an unbroken run of the newest messages, oldest first, "
                   "with no holes",
                   {"history-with-holes", "keeps-oldest-history", "history-out-of-order",
                    "history-run-wrong"}, *NO_EVIDENCE, 400),
        TURN.about("a tool call and its result are sent or dropped together",
                   {"splits-pairs"}, *NO_EVIDENCE, 400),
        TURN.about("every dropped message has the reason that fits it, oldest first",
                   {"wrong-reason", "dropped-order"}, *NO_EVIDENCE, 400),
        case("the history at budget 400: the two newest messages, the tool pair dropped whole "
             "and the older ones cut", *NO_EVIDENCE, 400),
        case("when the whole history fits, it is all sent, oldest first", *NO_EVIDENCE, 500),
    ),
    visible=True,
)

EVIDENCE_STEP = Group(
    "evidence-visible",
    "Step 3: the lesson's evidence at budgets 400 and 610 (no history), and the lesson's turn "
    "at a budget everything fits in.",
    (
        TURN.about("kept evidence is placed by its score, not in the order it was retrieved",
                   {"evidence-by-input-order"}, *NO_HISTORY, 900),
        TURN.about("evidence is weighed best score first, and a chunk that does not fit is "
                   "skipped while the next still gets its chance",
                   {"evidence-break", "evidence-by-input-order", "evidence-not-greedy"},
                   *NO_HISTORY, 610),
        TURN.about("the system prompt and then the tools come first, in the order given",
                   {"prefix-unstable", "blocks-out-of-order"}, *NO_HISTORY, 400),
        TURN.about("the question comes last", {"question-not-last"}, *NO_HISTORY, 400),
        TURN.about("every dropped chunk has the reason that fits it",
                   {"wrong-reason", "dropped-order"}, *NO_HISTORY, 400),
        case("the evidence at budget 400: the warranty chunk is too large, the other three "
             "placed edges-first", *NO_HISTORY, 400),
        case("the evidence at budget 610: the warranty chunk fits, the refunds chunk is "
             "skipped and the smaller tent-care chunk still goes in", *NO_HISTORY, 610),
        case("when everything fits, nothing is dropped and the evidence sits edges-first: "
             "best last, second best first", *AGENT, 900),
    ),
    visible=True,
)

TOGETHER = Group(
    "together-visible",
    "Step 4: the lesson's whole agent turn at budget 500, where the history leaves the "
    "evidence little room.",
    (
        TURN.about("the history is packed first, and the evidence gets only the room it left",
                   {"evidence-before-history"}, *AGENT, 500),
        case("the agent turn at budget 500: the whole history, then only the tent-care chunk "
             "fits in the 34 tokens left", *AGENT, 500),
    ),
    visible=True,
)

# The visible groups only: the hidden ones are in autograder/checks/hidden/assemble_turn.py.
SUITE = Suite(function=FUNCTION, reference=Reference("conversation.assemble_turn"),
              groups=(REQUIRED, HISTORY_STEP, EVIDENCE_STEP, TOGETHER))
