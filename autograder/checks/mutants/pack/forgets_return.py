# misconception: not-a-list
# builds the list of chosen ids but never returns it, so the call gives None
def pack(parts, budget):
    used = 0
    chosen = []
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
