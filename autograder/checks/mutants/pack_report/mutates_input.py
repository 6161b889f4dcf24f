# misconception: mutates-input
# pops each part off the front of the list as it goes, leaving the caller with an empty list
def pack_report(parts, budget):
    used = 0
    included = []
    dropped = []
    while parts:
        part = parts.pop(0)
        if used + part["tokens"] <= budget:
            included.append(part["id"])
            used += part["tokens"]
        else:
            dropped.append(part["id"])
    return {"included": included, "dropped": dropped, "used": used}
