# misconception: not-an-int
# starts the sum at 0.0, so the total comes back as a float like 175.0
def total_tokens(parts):
    total = 0.0
    for part in parts:
        total += part["tokens"]
    return total
