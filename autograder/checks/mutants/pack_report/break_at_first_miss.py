# misconception: break-at-first-miss
# drops every part from the first one that does not fit onwards, even those that would fit
def pack_report(parts, budget):
    used = 0
    included = []
    dropped = []
    for index, part in enumerate(parts):
        if used + part["tokens"] <= budget:
            included.append(part["id"])
            used += part["tokens"]
        else:
            dropped = [p["id"] for p in parts[index:]]
            break
    return {"included": included, "dropped": dropped, "used": used}
