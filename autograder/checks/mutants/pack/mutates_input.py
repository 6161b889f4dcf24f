# misconception: mutates-input
# pops each part off the front of the list as it goes, leaving the caller with an empty list
def pack(parts, budget):
    used = 0
    chosen = []
    while parts:
        part = parts.pop(0)
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
