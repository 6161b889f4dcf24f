# misconception: reason-against-remaining
# calls a part too large when it exceeds what is left of the budget, so every drop is "too large"
def pack_with_reasons(parts, budget):
    order = sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)
    used = 0
    reasons = {}
    for i in order:
        tokens = parts[i]["tokens"]
        if used + tokens <= budget:
            used += tokens
        elif tokens > budget - used:
            reasons[i] = "single-chunk-too-large"
        else:
            reasons[i] = "over-budget"
    included = [p["id"] for i, p in enumerate(parts) if i not in reasons]
    dropped = [{"id": p["id"], "reason": reasons[i]} for i, p in enumerate(parts) if i in reasons]
    return {"included": included, "dropped": dropped, "used": used}
