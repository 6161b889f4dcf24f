# misconception: dropped-order-lost
# puts each dropped id at the front of the list, so dropped comes out in reverse order
def pack_report(parts, budget):
    used = 0
    included = []
    dropped = []
    for part in parts:
        if used + part["tokens"] <= budget:
            included.append(part["id"])
            used += part["tokens"]
        else:
            dropped.insert(0, part["id"])
    return {"included": included, "dropped": dropped, "used": used}
