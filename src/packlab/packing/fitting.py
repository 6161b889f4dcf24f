"""``fit``: choose prioritised items for a token budget, the way a production packer does.

Lesson 06 and its widget use this module. Its ``fit`` is a teaching version: it estimates a cost
it cannot count *without* the warning exercise 06 asks for, so it is not the answer the exercise
is graded against (that one is instructor-only, in `autograder.checks.reference.fitting`).

An item is a plain dict::

    {"id": "system", "tokens": 120, "priority": 100, "required": True}
    {"id": "call-1", "content": "...", "priority": 80, "pair_id": "lookup"}

* ``priority`` (default 0): higher goes first. Equal priorities keep their input order.
* ``required`` (default False): if the item does not fit *at its own turn*, ``fit`` raises
  `RequiredDoesNotFit`. The flag never moves an item ahead of higher-priority ones.
* ``pair_id``: items sharing one go in together or not at all (a tool call and its result). The
  group is weighed once, at the turn of its first member, and costs the sum of its members. Its
  members must agree on ``priority`` and on ``required``.
* ``tokens``: the item's cost. Without it, ``tokenizer(content)`` counts it; without a tokenizer,
  ``ceil(len(content) / 4)`` estimates it. Exercise 06's ``fit`` then warns (one `UserWarning`
  per call, however many items were estimated); this one does not.

``fit`` returns ``{"included", "excluded", "tokens_used", "tokens_remaining"}``: both id lists in
*input* order, and the tokens left of ``budget - reserve``. Input it cannot trust raises
`InvalidInput`. Both errors are ``ValueError``\\ s.

`Rules` and `MISTAKES` describe the classic wrong versions of the same walk (input order instead of
priority, a split pair, a forgotten reserve, ...). The lesson shows them side by side with ``fit``;
the grader's reference (`autograder.checks.reference.fitting`) walks them to name the likeliest
mistake behind a wrong answer.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Tokenizer = Callable[[str], object]

KEYS = ("included", "excluded", "tokens_used", "tokens_remaining")


class FitError(ValueError):
    """Something ``fit`` refuses to hide. ``mentions``: what a helpful message must name."""

    def __init__(self, message: str, mentions: Sequence[str] = ()):
        super().__init__(message)
        self.mentions = tuple(mentions)


class InvalidInput(FitError):
    """The items, the budget or the reserve cannot be trusted: a bug in the calling code."""


class RequiredDoesNotFit(FitError):
    """A required item (or pair group) does not fit in what is left at its turn."""


def number_text(value) -> str:
    """A token count as a person writes it: 700, not 700.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def is_number(value) -> bool:
    """An int or a float (or another real number), but not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _valid_count(value) -> bool:
    return is_number(value) and math.isfinite(value) and value >= 0


# --- validation ---------------------------------------------------------------------------------

def check_budget(budget, reserve) -> None:
    """Raise `InvalidInput` unless 0 <= reserve < budget, both finite numbers."""
    if not (is_number(budget) and math.isfinite(budget) and budget > 0):
        raise InvalidInput(f"budget must be a positive, finite number of tokens; got {budget!r}",
                           ["budget"])
    if not (is_number(reserve) and math.isfinite(reserve) and reserve >= 0):
        raise InvalidInput(f"reserve must be a finite number of tokens, 0 or more; got {reserve!r}",
                           ["reserve"])
    if reserve >= budget:
        raise InvalidInput(
            f"reserve ({number_text(reserve)}) must be smaller than the budget "
            f"({number_text(budget)}): otherwise nothing is left for the items", ["reserve"])


def _priority(item: dict):
    priority = item.get("priority", 0)
    if not (is_number(priority) and math.isfinite(priority)):
        raise InvalidInput(f"item {item['id']!r} has priority {priority!r}: a priority must be a "
                           "finite number", [item["id"]])
    return priority


def _cost(item: dict, tokenizer: Tokenizer | None) -> tuple[float, bool]:
    """The item's tokens and whether they were estimated (no tokens, no tokenizer)."""
    item_id = item["id"]
    tokens = item.get("tokens")
    if tokens is not None:
        if not _valid_count(tokens):
            raise InvalidInput(f"item {item_id!r} has tokens={tokens!r}: a token count must be a "
                               "finite number, 0 or more", [item_id])
        return tokens, False
    content = item.get("content")
    if not isinstance(content, str):
        raise InvalidInput(f"item {item_id!r} has no tokens and its content is not text "
                           f"({type(content).__name__}), so there is nothing to count", [item_id])
    if tokenizer is None:
        return math.ceil(len(content) / 4), True
    counted = tokenizer(content)
    if not _valid_count(counted):
        raise InvalidInput(f"the tokenizer returned {counted!r} for item {item_id!r}: a token "
                           "count must be a finite number, 0 or more", [item_id])
    return counted, False


@dataclass(frozen=True)
class Unit:
    """What the walk weighs at once: one item, or every item of a pair group."""

    key: str  # the item's id, or the pair group's id
    ids: tuple[str, ...]  # in input order
    cost: float
    priority: float
    required: bool
    first: int  # input position of the first member
    is_group: bool

    def name(self) -> str:
        if not self.is_group:
            return f"item {self.key!r}"
        return f"pair group {self.key!r} ({', '.join(repr(i) for i in self.ids)})"


def _units(items: Sequence[dict], tokenizer: Tokenizer | None,
           atomic_pairs: bool) -> tuple[list[Unit], list[str]]:
    """Validate every item, group pairs into units; also return the ids whose cost was estimated."""
    seen: set[str] = set()
    singles: list[Unit] = []
    estimated: list[str] = []
    for position, item in enumerate(items):
        if not isinstance(item, dict) or "id" not in item:
            raise InvalidInput(f"item number {position} is not a dict with an 'id': {item!r}",
                               [str(position)])
        item_id = item["id"]
        if item_id in seen:
            raise InvalidInput(f"two items share the id {item_id!r}: ids must be unique, or the "
                               "result could not say which one it means", [str(item_id)])
        seen.add(item_id)
        priority = _priority(item)
        cost, guessed = _cost(item, tokenizer)
        if guessed:
            estimated.append(item_id)
        singles.append(Unit(item_id, (item_id,), cost, priority, bool(item.get("required")),
                            position, False))

    groups: dict[str, list[Unit]] = {}
    for unit, item in zip(singles, items, strict=True):
        if item.get("pair_id") is not None:
            groups.setdefault(item["pair_id"], []).append(unit)
    for group_id, members in groups.items():
        _check_group(group_id, members)
    if not atomic_pairs:
        return singles, estimated

    units: list[Unit] = []
    placed: set[str] = set()
    for unit, item in zip(singles, items, strict=True):
        group_id = item.get("pair_id")
        if group_id is None:
            units.append(unit)
        elif group_id not in placed:
            placed.add(group_id)
            members = groups[group_id]
            units.append(Unit(group_id, tuple(m.key for m in members),
                              sum(m.cost for m in members), unit.priority, unit.required,
                              unit.first, True))
    return units, estimated


def _check_group(group_id: str, members: list[Unit]) -> None:
    first = members[0]
    for other in members[1:]:
        if other.priority != first.priority:
            raise InvalidInput(
                f"pair group {group_id!r} mixes priorities: {first.key!r} has "
                f"{first.priority!r} and {other.key!r} has {other.priority!r}. The items of a "
                "group go in together, so they must share one priority", [str(group_id)])
        if other.required != first.required:
            flagged, plain = (first, other) if first.required else (other, first)
            raise InvalidInput(
                f"pair group {group_id!r} mixes required and optional items: {flagged.key!r} is "
                f"required and {plain.key!r} is not. A group is all required or all optional",
                [str(group_id)])


# --- the walk -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules:
    """How the walk is done. The defaults are ``fit``; `MISTAKES` lists the classic wrong ones."""

    order: str = "priority"  # or "input", "required-first", "reverse-ties"
    atomic_pairs: bool = True
    honour_reserve: bool = True
    stop_at_first_miss: bool = False
    output_order: str = "input"  # or "selection": ids listed in the order they were chosen


RULES = Rules()

MISTAKES: dict[str, Rules] = {
    "ignores-priority": Rules(order="input"),
    "output-in-priority-order": Rules(output_order="selection"),
    "required-promoted": Rules(order="required-first"),
    "pair-split": Rules(atomic_pairs=False),
    "no-reserve": Rules(honour_reserve=False),
    "break-at-first-miss": Rules(stop_at_first_miss=True),
    "unstable-ties": Rules(order="reverse-ties"),
}

_ORDERS: dict[str, Callable[[Unit], tuple]] = {
    "priority": lambda u: (-u.priority, u.first),
    "input": lambda u: (u.first,),
    "required-first": lambda u: (not u.required, -u.priority, u.first),
    "reverse-ties": lambda u: (-u.priority, -u.first),
}


def fit_with(items: Sequence[dict], budget, reserve=0, tokenizer: Tokenizer | None = None,
             rules: Rules = RULES) -> dict:
    """``fit`` done by ``rules`` (no warning). ``fit_with(..., MISTAKES["pair-split"])`` shows a
    classic mistake; ``fit_with(..., RULES)`` is ``fit`` itself."""
    return walk(items, budget, reserve, tokenizer, rules)[0]


def walk(items, budget, reserve=0, tokenizer: Tokenizer | None = None,
         rules: Rules = RULES) -> tuple[dict, list[str]]:
    """The walk done by ``rules``: its result, and the ids whose cost was estimated."""
    check_budget(budget, reserve)
    units, estimated = _units(items, tokenizer, rules.atomic_pairs)
    usable = budget - reserve if rules.honour_reserve else budget
    used = 0
    chosen: list[Unit] = []
    for unit in sorted(units, key=_ORDERS[rules.order]):
        if used + unit.cost <= usable:
            chosen.append(unit)
            used += unit.cost
        elif unit.required:
            left = usable - used
            needed, short = (number_text(n) for n in (unit.cost, unit.cost - left))
            left_text, budget_text, reserve_text = (number_text(n) for n in (left, budget, reserve))
            raise RequiredDoesNotFit(
                f"required {unit.name()} does not fit: it needs {needed} tokens but only "
                f"{left_text} are left after the items placed before it, {short} short "
                f"(budget {budget_text}, reserve {reserve_text})",
                [str(unit.key), needed, left_text, short, budget_text, reserve_text])
        elif rules.stop_at_first_miss:
            break
    taken = {item_id for unit in chosen for item_id in unit.ids}
    if rules.output_order == "selection":
        included = [item_id for unit in chosen for item_id in unit.ids]
    else:
        included = [item["id"] for item in items if item["id"] in taken]
    result = {
        "included": included,
        "excluded": [item["id"] for item in items if item["id"] not in taken],
        "tokens_used": used,
        "tokens_remaining": usable - used,
    }
    return result, estimated


def fit(items: Sequence[dict], budget, reserve=0, tokenizer: Tokenizer | None = None) -> dict:
    """Choose items for ``budget - reserve`` tokens: by priority, required or raise, pairs whole.

    The lesson's teaching version: a cost it has to estimate is estimated silently, where
    exercise 06's ``fit`` warns once per call.

    >>> fit([{"id": "sys", "tokens": 50, "priority": 9},
    ...      {"id": "old", "tokens": 40},
    ...      {"id": "new", "tokens": 30, "priority": 5}], budget=100, reserve=10)
    {'included': ['sys', 'new'], 'excluded': ['old'], 'tokens_used': 80, 'tokens_remaining': 10}
    """
    return fit_with(items, budget, reserve, tokenizer, RULES)


def outcome(items, budget, reserve=0, tokenizer=None, rules: Rules = RULES) -> dict | FitError:
    """What ``fit_with`` gives: the result, or the `FitError` it raised (returned, not raised)."""
    try:
        return fit_with(items, budget, reserve, tokenizer, rules)
    except FitError as exc:
        return exc
