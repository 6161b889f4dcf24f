# misconception: forgets-id
# wraps the text in its fences but leaves the id out of the heading
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    if not (math.isfinite(ratio) and ratio > 0):
        raise ValueError(f"ratio must be a positive finite number, got {ratio!r}")
    wrapped = "### []\n```\n" + text + "\n```\n"
    return math.ceil(len(wrapped) / ratio)
