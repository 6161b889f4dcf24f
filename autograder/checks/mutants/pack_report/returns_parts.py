# misconception: returns-parts
# lists the part dicts themselves in included and dropped instead of their ids
def pack_report(parts, budget):
    used = 0
    included = []
    dropped = []
    for part in parts:
        if used + part["tokens"] <= budget:
            included.append(part)
            used += part["tokens"]
        else:
            dropped.append(part)
    return {"included": included, "dropped": dropped, "used": used}
