# misconception: not-a-dict
# returns the three results as a tuple instead of one dict with named keys
def pack_report(parts, budget):
    used = 0
    included = []
    dropped = []
    for part in parts:
        if used + part["tokens"] <= budget:
            included.append(part["id"])
            used += part["tokens"]
        else:
            dropped.append(part["id"])
    return included, dropped, used
