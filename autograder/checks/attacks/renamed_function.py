# attack: a correct answer under another name
# defence: the checks call `pack` and say there is no function called `pack`
def packer(parts, budget):
    chosen, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
