# misconception: strict-less-than
# compares with < instead of <=, so a part that lands exactly on the budget is skipped
def pack(parts, budget):
    used = 0
    chosen = []
    for part in parts:
        if used + part["tokens"] < budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
