# misconception: one-reason-only
# labels every dropped part "over-budget", even one bigger than the whole budget
def pack_with_reasons(parts, budget):
    order = sorted(range(len(parts)), key=lambda i: parts[i]["priority"], reverse=True)
    used = 0
    kept = set()
    for i in order:
        if used + parts[i]["tokens"] <= budget:
            kept.add(i)
            used += parts[i]["tokens"]
    included = [p["id"] for i, p in enumerate(parts) if i in kept]
    dropped = [{"id": p["id"], "reason": "over-budget"}
               for i, p in enumerate(parts) if i not in kept]
    return {"included": included, "dropped": dropped, "used": used}
