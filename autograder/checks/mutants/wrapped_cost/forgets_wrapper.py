# misconception: forgets-wrapper
# estimates the bare text only, as if the heading and the fences were free
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number, got {ratio!r}")
    return math.ceil(len(text) / ratio)
