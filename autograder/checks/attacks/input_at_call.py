# attack: a careless input() inside pack: in a kernel it waits for a keyboard forever
# defence: the worker's stdin is empty, so input() raises EOFError at once instead of hanging
def pack(parts, budget):
    budget = min(budget, int(input("budget? ")))
    return [part["id"] for part in parts if part["tokens"] <= budget]
