# misconception: missing-key
# names the third key "tokens" instead of "used"
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
    return {"included": included, "dropped": dropped, "tokens": used}
