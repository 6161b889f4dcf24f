# attack: return None (forgot the return, or hoping None compares as "nothing wrong")
# defence: the check wants a list of id strings and names the not-a-list misconception
def pack(parts, budget):
    return None
