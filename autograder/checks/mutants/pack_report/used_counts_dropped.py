# misconception: used-counts-dropped
# reports the tokens of every part as used, the dropped ones included
def pack_report(parts, budget):
    room = budget
    included = []
    dropped = []
    for part in parts:
        if part["tokens"] <= room:
            included.append(part["id"])
            room -= part["tokens"]
        else:
            dropped.append(part["id"])
    used = sum(part["tokens"] for part in parts)
    return {"included": included, "dropped": dropped, "used": used}
