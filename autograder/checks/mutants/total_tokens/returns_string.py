# misconception: not-an-int
# returns the total as text, like "175", instead of a number
def total_tokens(parts):
    total = 0
    for part in parts:
        total += part["tokens"]
    return str(total)
