# attack: return a generator of the right ids instead of a list
# defence: a generator is not plain data: refused before it reaches the checks
def pack(parts, budget):
    used = 0
    for part in parts:
        if used + part["tokens"] <= budget:
            used += part["tokens"]
            yield part["id"]
