# misconception: rejects-good-ratio
# accepts only float ratios, so a whole-number ratio such as 3 is refused
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not isinstance(ratio, float) or not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite float, got {ratio!r}")
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return math.ceil(len(wrapped) / ratio)
