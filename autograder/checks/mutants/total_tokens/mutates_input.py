# misconception: mutates-input
# pops the parts off the list while counting, leaving the caller with an empty list
def total_tokens(parts):
    total = 0
    while parts:
        total += parts.pop()["tokens"]
    return total
