# misconception: splits-pairs
# step: history
# weighs every message on its own, so a tool result can be sent without the call that asked for it
def assemble_turn(system: dict, tools: list[dict], history: list[dict], evidence: list[dict],
                  question: dict, budget: int) -> dict:
    """Assemble one turn: required parts first, the newest unbroken history, the best evidence
    that fits placed edges-first, the question last; report every drop with its reason."""
    # 1. The required parts: they all go in, or nothing does.
    needed = system["tokens"] + sum(tool["tokens"] for tool in tools) + question["tokens"]
    if needed > budget:
        raise ValueError(f"the system prompt, tools and question need {needed} tokens but the "
                         f"budget is {budget}: {needed - budget} tokens short")
    room = budget - needed
    reason = {}

    # 2. History in units (a message, or a tool call with its result), newest first.
    units = []
    unit_of_call = {}
    for message in history:
        call_id = message.get("call_id")
        if False:  # every message is its own unit
            unit_of_call[call_id].append(message)
            continue
        unit = [message]
        units.append(unit)
        if call_id is not None:
            unit_of_call[call_id] = unit
    kept = set()
    stopped = False
    for unit in reversed(units):
        cost = sum(message["tokens"] for message in unit)
        if stopped:
            reason.update((message["id"], "history-cut") for message in unit)
        elif cost <= room:
            kept.update(message["id"] for message in unit)
            room -= cost
        else:
            reason.update((message["id"], "history-over-budget") for message in unit)
            stopped = True  # no holes: everything older is cut

    # 3. Evidence: best score first (sorted keeps ties in input order), skip and continue.
    evidence_room = room
    chosen = []
    for chunk in sorted(evidence, key=lambda c: -c["score"]):
        if chunk["tokens"] <= room:
            chosen.append(chunk)
            room -= chunk["tokens"]
        elif chunk["tokens"] > evidence_room:
            reason[chunk["id"]] = "evidence-too-large"
        else:
            reason[chunk["id"]] = "evidence-over-budget"

    # 4. Edges-first: best last, second best first, third best second to last, ...
    placed = chosen[1::2] + chosen[0::2][::-1]

    order = [system["id"], *(tool["id"] for tool in tools)]
    order += [message["id"] for message in history if message["id"] in kept]
    order += [chunk["id"] for chunk in placed]
    order.append(question["id"])
    dropped = [{"id": p["id"], "reason": reason[p["id"]]}
               for p in [*history, *evidence] if p["id"] in reason]
    return {"order": order, "dropped": dropped, "used": budget - room}
