# misconception: newest-first
# walks back from the newest turn but forgets to put the kept turns back in order
def trim_history(turns, budget):
    kept, used = [], 0
    for turn in reversed(turns):
        if used + turn["tokens"] > budget:
            break
        kept.append(turn)
        used += turn["tokens"]
    return kept
