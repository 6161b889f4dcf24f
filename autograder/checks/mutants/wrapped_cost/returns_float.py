# misconception: returns-float
# rounds up with floor division on negatives, which gives a float such as 11.0 for a float ratio
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number, got {ratio!r}")
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return -(-len(wrapped) // ratio)
