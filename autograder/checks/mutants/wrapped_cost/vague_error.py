# misconception: unclear-error
# refuses a bad ratio, but with a ValueError that does not say what was wrong
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError("bad input")
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return math.ceil(len(wrapped) / ratio)
