# misconception: not-an-int
# adds everything up but never returns the total, so the call gives None
def total_tokens(parts):
    total = 0
    for part in parts:
        total += part["tokens"]
