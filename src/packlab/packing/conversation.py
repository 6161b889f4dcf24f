"""Lesson 10: assembling one turn of a conversation for the model, and saying what was left out.

A turn has five kinds of parts, each a plain dict with an ``id`` and a ``tokens`` count:

* ``system`` — one dict, required;
* ``tools`` — a list of tool definitions, all required;
* ``history`` — the earlier messages, oldest first, each with a ``role`` ("user", "assistant" or
  "tool") and optionally a ``call_id``: an assistant message that calls a tool and the tool
  message that answers it share one ``call_id``, and travel together or not at all;
* ``evidence`` — retrieved chunks, each with a ``score`` (higher is more relevant);
* ``question`` — one dict, the newest user message, required.

`assemble_turn` decides what is sent and in what order:

1. The required parts (system, tools, question) come first. If they alone need more than the
   budget, it raises `RequiredTooBig` (a ValueError) naming the tokens needed, the budget and the
   shortfall.
2. History keeps the newest messages as one unbroken run: walk from the newest message backwards
   and keep each unit (a message, or a call with its result) while it fits in the room left; at
   the first unit that does not fit, stop. That unit is dropped as ``history-over-budget`` and
   every older message as ``history-cut`` — a hole in a conversation is worse than a shorter one.
3. Evidence is packed in the room still left, best score first (ties in input order), skip and
   continue: a chunk bigger than that whole room is ``evidence-too-large``, one that no longer
   fits at its turn is ``evidence-over-budget``.
4. The parts are sent as: system, tools (in the order given), the kept history oldest first, the
   kept evidence edges-first (best chunk last, next to the question; second best first; third
   best second to last; ...), and the question last.

The result is ``{"order": [ids as sent], "dropped": [{"id", "reason"}], "used": tokens sent}``,
with the dropped parts as exercise 10 lists them: the dropped history oldest first, then the
dropped evidence in input order.

`Rules` and `MISTAKES` describe classic wrong versions of the same assembly (history with holes,
split tool pairs, ``break`` in the evidence, ...): the lesson shows them next to the right one, and
the grader's reference (`autograder.checks.reference.conversation`, instructor-only) uses them to
name the likeliest mistake behind a wrong answer. The rest of the module is lesson 10's example
(`agent_turns`), helpers and widget (`turn_view`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from packlab.packing.examples import chat_texts
from packlab.packing.tokens import count_tokens

KEYS = ("order", "dropped", "used")

REASONS = {
    "history-over-budget": "the history message (or tool pair) where the walk back stopped: it "
                           "did not fit in the room left",
    "history-cut": "a history message older than the one that did not fit: dropped so the "
                   "history sent has no hole",
    "evidence-too-large": "a retrieved chunk bigger than the whole room left for evidence",
    "evidence-over-budget": "a retrieved chunk that no longer fitted when its turn came",
}


class RequiredTooBig(ValueError):
    """The system prompt, the tools and the question alone need more than the budget."""

    def __init__(self, needed: int, budget: int, parts: dict[str, int]):
        self.needed, self.budget, self.short = needed, budget, needed - budget
        detail = ", ".join(f"{name} {tokens}" for name, tokens in parts.items())
        super().__init__(
            f"the required parts need {needed} tokens ({detail}) but the budget is {budget}: "
            f"{self.short} tokens short. Raise the budget or shorten a required part.")

    @property
    def mentions(self) -> tuple[str, str, str]:
        """The numbers a helpful message names: needed, budget, shortfall."""
        return str(self.needed), str(self.budget), str(self.short)


@dataclass(frozen=True)
class Rules:
    """How a turn is assembled. The defaults are `assemble_turn`; `MISTAKES` the wrong ones."""

    history: str = "newest-run"  # or "holes" (skip and continue), "oldest-run"
    pairs: bool = True  # a tool call and its result as one unit
    evidence_walk: str = "continue"  # or "stop" (break at the first chunk that does not fit)
    evidence_rank: str = "score"  # or "input" (ignore the scores)
    placement: str = "edges"  # or "best-first", "best-last"
    first: str = "history"  # or "evidence": the evidence packed before the history


RULES = Rules()

MISTAKES: dict[str, Rules] = {
    "history-with-holes": Rules(history="holes"),
    "keeps-oldest-history": Rules(history="oldest-run"),
    "splits-pairs": Rules(pairs=False),
    "evidence-break": Rules(evidence_walk="stop"),
    "evidence-by-input-order": Rules(evidence_rank="input"),
    "evidence-placement": Rules(placement="best-first"),
    "evidence-before-history": Rules(first="evidence"),
}


def history_units(history: Sequence[dict], pairs: bool = True) -> list[list[int]]:
    """Positions of the history grouped into units, oldest first.

    A unit is one message, or (with ``pairs``) every message sharing a ``call_id``: the tool call
    and its result, placed where the call is.
    """
    units: list[list[int]] = []
    unit_of_call: dict[str, int] = {}
    for position, message in enumerate(history):
        call_id = message.get("call_id")
        if pairs and call_id is not None and call_id in unit_of_call:
            units[unit_of_call[call_id]].append(position)
            continue
        if call_id is not None:
            unit_of_call[call_id] = len(units)
        units.append([position])
    return units


def edges_first(ranked: Sequence) -> list:
    """Put items ranked best first at the edges: best last, second best first, third best second
    to last, fourth second, ... so the weakest end up in the middle.

    >>> edges_first(["a", "b", "c", "d", "e"])
    ['b', 'd', 'e', 'c', 'a']
    """
    front = list(ranked[1::2])
    back = list(ranked[0::2])
    return front + back[::-1]


def _place(ranked: list, placement: str) -> list:
    if placement == "edges":
        return edges_first(ranked)
    if placement == "best-last":
        return ranked[::-1]
    return ranked


def _keep_history(history: Sequence[dict], room: int, rules: Rules) -> tuple[set[int], dict]:
    """The kept positions and a reason for each dropped position."""
    units = history_units(history, rules.pairs)
    walk = units if rules.history == "oldest-run" else units[::-1]
    kept: set[int] = set()
    reasons: dict[int, str] = {}
    stopped = False
    for unit in walk:
        cost = sum(history[i]["tokens"] for i in unit)
        if stopped:
            reasons.update((i, "history-cut") for i in unit)
        elif cost <= room:
            kept.update(unit)
            room -= cost
        else:
            reasons.update((i, "history-over-budget") for i in unit)
            stopped = rules.history != "holes"
    return kept, reasons


def _keep_evidence(evidence: Sequence[dict], room: int,
                   rules: Rules) -> tuple[list[int], dict[int, str]]:
    """The kept positions, best first, and a reason for each dropped position."""
    ranking = list(range(len(evidence)))
    if rules.evidence_rank == "score":
        ranking.sort(key=lambda i: -evidence[i]["score"])
    whole_room = room
    kept: list[int] = []
    reasons: dict[int, str] = {}
    stopped = False
    for i in ranking:
        tokens = evidence[i]["tokens"]
        if not stopped and tokens <= room:
            kept.append(i)
            room -= tokens
            continue
        reasons[i] = "evidence-too-large" if tokens > whole_room else "evidence-over-budget"
        stopped = rules.evidence_walk == "stop"
    return kept, reasons


def assemble_with(system: dict, tools: Sequence[dict], history: Sequence[dict],
                  evidence: Sequence[dict], question: dict, budget: int,
                  rules: Rules = RULES) -> dict:
    """`assemble_turn` done by ``rules``: ``assemble_with(..., MISTAKES["splits-pairs"])`` shows
    a classic mistake, ``assemble_with(..., RULES)`` is `assemble_turn` itself.

    ``dropped`` lists the history oldest first, then the evidence in input order (exercise 10's
    order), whatever order the walks met them in."""
    required = {"system": system["tokens"], "tools": sum(t["tokens"] for t in tools),
                "question": question["tokens"]}
    needed = sum(required.values())
    if needed > budget:
        raise RequiredTooBig(needed, budget, required)

    room = budget - needed
    if rules.first == "evidence":
        ranked, evidence_reasons = _keep_evidence(evidence, room, rules)
        room -= sum(evidence[i]["tokens"] for i in ranked)
        kept_history, history_reasons = _keep_history(history, room, rules)
    else:
        kept_history, history_reasons = _keep_history(history, room, rules)
        room -= sum(history[i]["tokens"] for i in kept_history)
        ranked, evidence_reasons = _keep_evidence(evidence, room, rules)

    order = [system["id"], *(t["id"] for t in tools)]
    order += [m["id"] for i, m in enumerate(history) if i in kept_history]
    order += [evidence[i]["id"] for i in _place(ranked, rules.placement)]
    order.append(question["id"])

    dropped = [{"id": history[i]["id"], "reason": history_reasons[i]}
               for i in sorted(history_reasons)]
    dropped += [{"id": evidence[i]["id"], "reason": evidence_reasons[i]}
                for i in sorted(evidence_reasons)]
    used = (needed + sum(history[i]["tokens"] for i in kept_history)
            + sum(evidence[i]["tokens"] for i in ranked))
    return {"order": order, "dropped": dropped, "used": used}


def assemble_turn(system: dict, tools: list[dict], history: list[dict], evidence: list[dict],
                  question: dict, budget: int) -> dict:
    """Assemble one turn: required parts, the newest unbroken history, the best evidence that
    fits, in a cache-friendly order. See the module's docstring for the exact rules.

    The lesson's and the widget's version (`assemble_with` by `RULES`); it behaves as exercise 10
    asks, which is graded against the instructor's own reference."""
    return assemble_with(system, tools, history, evidence, question, budget)


def outcome(system, tools, history, evidence, question, budget,
            rules: Rules = RULES) -> dict | RequiredTooBig:
    """The result, or the `RequiredTooBig` error it raises (returned, not raised)."""
    try:
        return assemble_with(system, tools, history, evidence, question, budget, rules)
    except RequiredTooBig as error:
        return error


# --- lesson 10's example: a support agent, two consecutive turns ---------------------------------

_TOOLS = {
    "tools/order_lookup": {
        "name": "order_lookup",
        "description": "Find an order by its number: item, price, delivery date and status.",
        "parameters": {"type": "object", "properties": {
            "order": {"type": "string", "description": "an order number such as LO-48213"}},
            "required": ["order"]},
    },
    "tools/open_ticket": {
        "name": "open_ticket",
        "description": "Open a support ticket for a person to follow up by email.",
        "parameters": {"type": "object", "properties": {
            "order": {"type": "string"}, "summary": {"type": "string"}},
            "required": ["order", "summary"]},
    },
    "tools/send_spare_part": {
        "name": "send_spare_part",
        "description": "Ship a free spare part (pole, peg, guy line) under the warranty.",
        "parameters": {"type": "object", "properties": {
            "order": {"type": "string"}, "part": {"type": "string"}},
            "required": ["order", "part"]},
    },
}

_CALL = '{"name": "order_lookup", "arguments": {"order": "LO-48213"}}'

# (id, role, text, call_id) oldest first; the question of turn 1 and the reply to it follow.
_HISTORY = [
    ("user-1", "user", chat_texts()["turn-previous"], None),
    ("assistant-1", "assistant", "I'm sorry to hear that. Could you give me your order number "
     "and tell me what happened?", None),
    ("user-2", "user", "It's LO-48213. The main pole snapped on the second night.", None),
    ("call-1", "assistant", _CALL, "lookup-1"),
    ("result-1", "tool", chat_texts()["tool-order-lookup"], "lookup-1"),
    ("assistant-2", "assistant", "Thank you. I can see your Ridgeline 2 tent, delivered on "
     "2 April. Did the pole break in a fall or a storm, or while you were pitching the tent "
     "normally?", None),
    ("user-3", "user", "Just pitching it normally, no wind at all. It cracked right next to the "
     "hub.", None),
]
_QUESTION_1 = ("user-4", "So can I get my money back, or only a new pole?")
_REPLY_1 = ("assistant-3", "A pole that cracks during normal pitching counts as a defect under "
            "our Warranty policy, so you are covered. We first offer a repair or a free spare "
            "pole; a refund is only given when neither is possible. Shall I send a new pole?")
_QUESTION_2 = ("user-5", "Yes please, send the pole. Do I have to pay for shipping?")

_TEXTS = chat_texts()
_EVIDENCE_1 = [("chunk-refunds", 0.84), ("chunk-warranty", 0.91), ("chunk-shipping", 0.38),
               ("chunk-tent-care", 0.52)]
_EVIDENCE_2 = [("chunk-shipping", 0.89), ("chunk-warranty", 0.71), ("chunk-refunds", 0.44)]


def _part(part_id: str, text: str, **extra) -> dict:
    return {"id": part_id, "tokens": count_tokens(text), **extra, "text": text}


def _turn(history: list[tuple], question: tuple, evidence: list[tuple]) -> dict:
    messages = []
    for part_id, role, text, call_id in history:
        message = _part(part_id, text, role=role)
        if call_id:
            message["call_id"] = call_id
        messages.append(message)
    return {
        "system": _part("system", _TEXTS["system"]),
        "tools": [_part(key, json.dumps(spec)) for key, spec in _TOOLS.items()],
        "history": messages,
        "evidence": [_part(key, _TEXTS[key], score=score) for key, score in evidence],
        "question": _part(question[0], question[1], role="user"),
    }


def agent_turns() -> list[dict]:
    """Two consecutive turns of Larkspur Outdoor's support agent, as keyword arguments of
    `assemble_turn` (without the budget). Every part carries its ``text``; its ``tokens`` are
    counted with the real tokenizer.

    In turn 1 the customer asks whether a snapped tent pole means a refund; in turn 2, after the
    agent's reply, they ask for the pole and about shipping. Turn 2's history is turn 1's history
    plus turn 1's question and reply; its evidence was retrieved again, for the new question.
    """
    first = _turn(_HISTORY, _QUESTION_1, _EVIDENCE_1)
    second_history = [*_HISTORY, (*_QUESTION_1[:1], "user", _QUESTION_1[1], None),
                      (_REPLY_1[0], "assistant", _REPLY_1[1], None)]
    second = _turn(second_history, _QUESTION_2, _EVIDENCE_2)
    return [first, second]


def agent_turn() -> dict:
    """Turn 1 of `agent_turns`."""
    return agent_turns()[0]


def turn_args(turn: dict, budget: int) -> list:
    """The positional arguments of ``assemble_turn`` for a turn dict and a budget."""
    return [turn["system"], turn["tools"], turn["history"], turn["evidence"], turn["question"],
            budget]


def parts_by_id(turn: dict) -> dict[str, dict]:
    """Every part of a turn by its id."""
    parts = [turn["system"], *turn["tools"], *turn["history"], *turn["evidence"],
             turn["question"]]
    return {part["id"]: part for part in parts}


def kinds(turn: dict) -> dict[str, str]:
    """Each id's block: "prefix" (system and tools), "history", "evidence" or "question"."""
    kind = {turn["system"]["id"]: "prefix"}
    kind.update((tool["id"], "prefix") for tool in turn["tools"])
    kind.update((message["id"], "history") for message in turn["history"])
    kind.update((chunk["id"], "evidence") for chunk in turn["evidence"])
    kind[turn["question"]["id"]] = "question"
    return kind


def required_tokens(turn: dict) -> int:
    """What the system prompt, the tools and the question cost together."""
    return (turn["system"]["tokens"] + sum(t["tokens"] for t in turn["tools"])
            + turn["question"]["tokens"])


def total_tokens(turn: dict) -> int:
    """What every part of the turn costs together."""
    return sum(part["tokens"] for part in parts_by_id(turn).values())


def transcript(turn: dict, ids: Sequence[str], width: int = 72) -> str:
    """The history messages among ``ids``, one line each, as the model would read them."""
    parts = parts_by_id(turn)
    lines = []
    for part_id in ids:
        part = parts[part_id]
        if "role" not in part:
            continue
        text = part["text"] if len(part["text"]) <= width else part["text"][: width - 1] + "…"
        lines.append(f"{part['role']:>9} | {text}")
    return "\n".join(lines)


def orphans(turn: dict, ids: Sequence[str]) -> list[str]:
    """History ids among ``ids`` whose tool call or tool result was left out."""
    sent = set(ids)
    members: dict[str, list[str]] = {}
    for message in turn["history"]:
        if message.get("call_id") is not None:
            members.setdefault(message["call_id"], []).append(message["id"])
    return [i for group in members.values() if not set(group) <= sent for i in group
            if i in sent]


def holes(turn: dict, ids: Sequence[str]) -> list[str]:
    """History ids left out although a message older than them was sent (the holes)."""
    sent = [i for i, m in enumerate(turn["history"]) if m["id"] in set(ids)]
    if not sent:
        return []
    return [m["id"] for m in turn["history"][sent[0]:] if m["id"] not in set(ids)]


def shared_prefix(first_turn: dict, first_order: Sequence[str], second_turn: dict,
                  second_order: Sequence[str]) -> tuple[list[str], int]:
    """The leading parts two requests send identically (same id, same text): their ids and
    tokens. A prompt cache can reuse exactly this much of the first request for the second."""
    first, second = parts_by_id(first_turn), parts_by_id(second_turn)
    same: list[str] = []
    for a, b in zip(first_order, second_order, strict=False):
        if a != b or first[a]["text"] != second[b]["text"]:
            break
        same.append(a)
    return same, sum(first[i]["tokens"] for i in same)


def volatile_first(system, tools, history, evidence, question, budget) -> dict:
    """The course's choice of parts, but laid out with the evidence first: same parts, different
    order — the layout that gives a prompt cache nothing to reuse."""
    result = assemble_turn(system, tools, history, evidence, question, budget)
    chunk_ids = {c["id"] for c in evidence}
    chunks = [i for i in result["order"] if i in chunk_ids]
    rest = [i for i in result["order"] if i not in chunk_ids]
    return {**result, "order": chunks + rest}
