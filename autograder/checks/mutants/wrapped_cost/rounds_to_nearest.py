# misconception: rounds-to-nearest
# rounds to the nearest whole token, so a leftover under half a token is not charged
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number, got {ratio!r}")
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return round(len(wrapped) / ratio)
