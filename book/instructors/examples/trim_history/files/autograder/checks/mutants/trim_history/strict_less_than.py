# misconception: strict-less-than
# compares with < so a turn that lands exactly on the budget is dropped
def trim_history(turns, budget):
    kept, used = [], 0
    for turn in reversed(turns):
        if not used + turn["tokens"] < budget:
            break
        kept.append(turn)
        used += turn["tokens"]
    return kept[::-1]
