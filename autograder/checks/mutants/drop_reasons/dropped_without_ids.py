# misconception: dropped-without-reasons
# lists dropped parts as bare id strings (as in lesson 04), so no reason is attached to any id
def pack_with_reasons(parts, budget):
    order = sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)
    used = 0
    kept = set()
    for i in order:
        if used + parts[i]["tokens"] <= budget:
            kept.add(i)
            used += parts[i]["tokens"]
    included = [p["id"] for i, p in enumerate(parts) if i in kept]
    dropped = [p["id"] for i, p in enumerate(parts) if i not in kept]
    return {"included": included, "dropped": dropped, "used": used}
