# misconception: sorts-parts
# walks the parts from the end of the list, so the lowest priority is packed first
def pack(parts, budget):
    used = 0
    chosen = []
    for part in reversed(parts):
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
