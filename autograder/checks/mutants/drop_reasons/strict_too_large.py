# misconception: strict-too-large
# calls a part too large when it is exactly the budget (>= instead of >)
def pack_with_reasons(parts, budget):
    order = sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)
    used = 0
    kept = set()
    for i in order:
        if used + parts[i]["tokens"] <= budget:
            kept.add(i)
            used += parts[i]["tokens"]
    included = [p["id"] for i, p in enumerate(parts) if i in kept]
    dropped = [
        {"id": p["id"],
         "reason": "single-chunk-too-large" if p["tokens"] >= budget else "over-budget"}
        for i, p in enumerate(parts) if i not in kept
    ]
    return {"included": included, "dropped": dropped, "used": used}
