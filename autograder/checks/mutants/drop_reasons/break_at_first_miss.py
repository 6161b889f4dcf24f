# misconception: break-at-first-miss
# stops packing at the first part (by priority) that does not fit, dropping all that come after
def pack_with_reasons(parts, budget):
    order = sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)
    used = 0
    kept = set()
    for i in order:
        if used + parts[i]["tokens"] > budget:
            break
        kept.add(i)
        used += parts[i]["tokens"]
    included = [p["id"] for i, p in enumerate(parts) if i in kept]
    dropped = [
        {"id": p["id"],
         "reason": "single-chunk-too-large" if p["tokens"] > budget else "over-budget"}
        for i, p in enumerate(parts) if i not in kept
    ]
    return {"included": included, "dropped": dropped, "used": used}
