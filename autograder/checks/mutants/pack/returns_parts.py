# misconception: returns-parts
# returns the chosen part dicts instead of their ids
def pack(parts, budget):
    used = 0
    chosen = []
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.append(part)
            used += part["tokens"]
    return chosen
