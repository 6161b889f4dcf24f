# misconception: break-at-first-miss
# leaves the loop at the first part that does not fit, so smaller parts after it never get a chance
def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    used = 0
    chosen = []
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
        else:
            break
    return chosen
