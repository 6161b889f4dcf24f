# misconception: warns-once
# step: input
# estimates counts without a tokenizer and never says so
def fit(items: list[dict], budget: float, reserve: float = 0, tokenizer=None) -> dict:
    """Choose items for budget - reserve tokens: by priority, required or raise, pairs whole.

    Returns {"included": [...], "excluded": [...], "tokens_used": ..., "tokens_remaining": ...},
    both id lists in input order. Raises ValueError for input it cannot trust and for a required
    item (or pair group) that does not fit at its turn.
    """
    # The imports live inside the function: this one cell is all that fit needs.
    import math  # noqa: F401
    import warnings  # noqa: F401
    def is_count(value):
        """A finite int or float, 0 or more (True and False are not counts)."""
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value) and value >= 0)

    if not (isinstance(budget, (int, float)) and not isinstance(budget, bool)
            and math.isfinite(budget) and budget > 0):
        raise ValueError(f"budget must be a positive, finite number of tokens; got {budget!r}")
    if not is_count(reserve) or reserve >= budget:
        raise ValueError(f"reserve must be 0 or more and smaller than the budget ({budget}); "
                         f"got {reserve!r}")

    # 1. Validate every item and work out what it costs.
    costs = {}
    estimated = []
    for item in items:
        item_id = item["id"]
        if item_id in costs:
            raise ValueError(f"two items share the id {item_id!r}: ids must be unique")
        priority = item.get("priority", 0)
        if not (isinstance(priority, (int, float)) and not isinstance(priority, bool)
                and math.isfinite(priority)):
            raise ValueError(f"item {item_id!r} has priority {priority!r}: it must be a finite "
                             "number")
        if item.get("tokens") is not None:
            cost = item["tokens"]
            if not is_count(cost):
                raise ValueError(f"item {item_id!r} has tokens={cost!r}: a token count must be "
                                 "a finite number, 0 or more")
        elif not isinstance(item.get("content"), str):
            raise ValueError(f"item {item_id!r} has no tokens and no text content to count")
        elif tokenizer is None:
            cost = math.ceil(len(item["content"]) / 4)
            estimated.append(item_id)
        else:
            cost = tokenizer(item["content"])
            if not is_count(cost):
                raise ValueError(f"the tokenizer returned {cost!r} for item {item_id!r}")
        costs[item_id] = cost
    # (no warning: the estimate goes unmentioned)

    # 2. Units: a lone item, or every item of one pair group. A dict keeps the order in which
    #    each unit first appears, so a group sits at its first member's position.
    units = {}
    for item in items:
        pair_id = item.get("pair_id")
        key = ("item", item["id"]) if pair_id is None else ("pair group", pair_id)
        units.setdefault(key, []).append(item)
    for (_, name), members in units.items():
        if len({member.get("priority", 0) for member in members}) > 1:
            raise ValueError(f"pair group {name!r} mixes different priorities")
        if len({bool(member.get("required")) for member in members}) > 1:
            raise ValueError(f"pair group {name!r} mixes required and optional items")

    # 3. Greedy by priority. sorted() is stable: equal priorities keep their input order.
    walk = sorted(units.items(), key=lambda unit: -unit[1][0].get("priority", 0))
    usable = budget - reserve
    used = 0
    chosen = set()
    for (kind, name), members in walk:
        cost = sum(costs[member["id"]] for member in members)
        if used + cost <= usable:
            used += cost
            chosen.update(member["id"] for member in members)
        elif members[0].get("required"):
            left = usable - used
            raise ValueError(
                f"required {kind} {name!r} does not fit: it needs {cost} tokens but only {left} "
                f"are left after higher-priority items, {cost - left} short "
                f"(budget {budget}, reserve {reserve})")

    # 4. Report in input order.
    return {
        "included": [item["id"] for item in items if item["id"] in chosen],
        "excluded": [item["id"] for item in items if item["id"] not in chosen],
        "tokens_used": used,
        "tokens_remaining": usable - used,
    }
