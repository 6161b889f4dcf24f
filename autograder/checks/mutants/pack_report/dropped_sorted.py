# misconception: dropped-order-lost
# sorts the dropped ids alphabetically instead of keeping them in input order
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
    return {"included": included, "dropped": sorted(dropped), "used": used}
