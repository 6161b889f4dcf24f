# attack: return a dict keyed by the right ids (iterates like the list of ids)
# defence: plain data, but not a list: every check fails and names the not-a-list misconception
def pack(parts, budget):
    chosen, used = {}, 0
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen[part["id"]] = part["tokens"]
            used += part["tokens"]
    return chosen
