# misconception: strict-less-than
# compares with < instead of <=, so a part that lands exactly on the budget is dropped
def pack_report(parts, budget):
    used = 0
    included = []
    dropped = []
    for part in parts:
        if used + part["tokens"] < budget:
            included.append(part["id"])
            used += part["tokens"]
        else:
            dropped.append(part["id"])
    return {"included": included, "dropped": dropped, "used": used}
