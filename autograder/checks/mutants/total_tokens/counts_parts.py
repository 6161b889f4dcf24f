# misconception: counts-parts
# returns how many parts there are instead of adding up their tokens
def total_tokens(parts):
    return len(parts)
