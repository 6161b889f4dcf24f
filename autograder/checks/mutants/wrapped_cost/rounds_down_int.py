# misconception: rounds-down
# truncates with int(), so the leftover characters of the last token cost nothing
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number, got {ratio!r}")
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return int(len(wrapped) / ratio)
