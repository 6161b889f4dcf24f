# misconception: mutates-input
# pops turns off the end of the caller's list, which is left shorter
def trim_history(turns, budget):
    kept, used = [], 0
    while turns and used + turns[-1]["tokens"] <= budget:
        turn = turns.pop()
        kept.append(turn)
        used += turn["tokens"]
    return kept[::-1]
