# misconception: ignores-priority
# walks the parts in list order as in lesson 04, never looking at their priorities
def pack_with_reasons(parts, budget):
    used = 0
    included = []
    dropped = []
    for p in parts:
        if used + p["tokens"] <= budget:
            included.append(p["id"])
            used += p["tokens"]
        elif p["tokens"] > budget:
            dropped.append({"id": p["id"], "reason": "single-chunk-too-large"})
        else:
            dropped.append({"id": p["id"], "reason": "over-budget"})
    return {"included": included, "dropped": dropped, "used": used}
