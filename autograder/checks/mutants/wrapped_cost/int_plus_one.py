# misconception: plus-one
# rounds up with int(x) + 1, which charges an extra token when the length divides exactly
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number, got {ratio!r}")
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return int(len(wrapped) / ratio) + 1
