# misconception: off-by-one
# starts the loop at the second part, so the first part is never counted
def total_tokens(parts):
    total = 0
    for i in range(1, len(parts)):
        total += parts[i]["tokens"]
    return total
