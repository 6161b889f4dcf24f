# misconception: keeps-oldest
# walks from the oldest turn forward, so the newest turns are the ones dropped
def trim_history(turns, budget):
    kept, used = [], 0
    for turn in turns:
        if used + turn["tokens"] > budget:
            break
        kept.append(turn)
        used += turn["tokens"]
    return kept
