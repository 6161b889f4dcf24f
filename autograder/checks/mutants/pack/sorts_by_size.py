# misconception: sorts-parts
# packs the smallest parts first to fit more in, ignoring the priority order
def pack(parts, budget):
    used = 0
    chosen = []
    for part in sorted(parts, key=lambda p: p["tokens"]):
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
