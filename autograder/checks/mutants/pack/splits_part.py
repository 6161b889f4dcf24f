# misconception: splits-part
# takes any part while some budget is left, as if it could be cut to fit the space remaining
def pack(parts, budget):
    used = 0
    chosen = []
    for part in parts:
        if used < budget:
            chosen.append(part["id"])
            used += min(part["tokens"], budget - used)
    return chosen
