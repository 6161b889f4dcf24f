# misconception: no-validation
# divides by whatever ratio it is given: 0 crashes with ZeroDivisionError, -4 gives a negative cost
def wrapped_cost(chunk_id, text, ratio=4.0):
    import math
    wrapped = f"### [{chunk_id}]\n```\n{text}\n```\n"
    return math.ceil(len(wrapped) / ratio)
