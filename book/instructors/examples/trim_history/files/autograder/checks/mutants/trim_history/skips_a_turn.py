# misconception: skips-a-turn
# skips a turn that does not fit and keeps older ones, leaving a hole in the conversation
def trim_history(turns, budget):
    kept, used = [], 0
    for turn in reversed(turns):
        if used + turn["tokens"] <= budget:
            kept.append(turn)
            used += turn["tokens"]
    return kept[::-1]
