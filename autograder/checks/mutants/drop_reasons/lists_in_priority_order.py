# misconception: output-in-priority-order
# appends ids in the order it packs them (by priority), so the prompt comes back reordered
def pack_with_reasons(parts, budget):
    ordered = sorted(parts, key=lambda p: p["priority"], reverse=True)
    used = 0
    included = []
    dropped = []
    for p in ordered:
        if used + p["tokens"] <= budget:
            included.append(p["id"])
            used += p["tokens"]
        else:
            reason = "single-chunk-too-large" if p["tokens"] > budget else "over-budget"
            dropped.append({"id": p["id"], "reason": reason})
    return {"included": included, "dropped": dropped, "used": used}
