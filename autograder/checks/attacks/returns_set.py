# attack: return a set of the right ids (order lost, but == against a set might pass)
# defence: a set is not plain data: refused before it reaches the checks
def pack(parts, budget):
    chosen, used = set(), 0
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.add(part["id"])
            used += part["tokens"]
    return chosen
