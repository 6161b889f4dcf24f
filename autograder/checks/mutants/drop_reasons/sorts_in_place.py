# misconception: mutates-input
# sorts the caller's list in place with parts.sort(), reordering the prompt it was handed
def pack_with_reasons(parts, budget):
    original = list(parts)
    parts.sort(key=lambda p: p["priority"], reverse=True)
    used = 0
    kept = set()
    for p in parts:
        if used + p["tokens"] <= budget:
            kept.add(p["id"])
            used += p["tokens"]
    included = [p["id"] for p in original if p["id"] in kept]
    dropped = [
        {"id": p["id"],
         "reason": "single-chunk-too-large" if p["tokens"] > budget else "over-budget"}
        for p in original if p["id"] not in kept
    ]
    return {"included": included, "dropped": dropped, "used": used}
