# misconception: not-a-list
# builds the kept turns but never returns them, so the call gives None
def trim_history(turns, budget):
    kept, used = [], 0
    for turn in reversed(turns):
        if used + turn["tokens"] > budget:
            break
        kept.append(turn)
        used += turn["tokens"]
