# misconception: input-order
# packs the chunks in the order they arrived, ignoring their scores
def pack_evidence(chunks, limit, min_span=80):
    room = limit
    packed = []
    for chunk in chunks:
        text = chunk["text"]
        if len(text) <= room:
            packed.append({"id": chunk["id"], "text": text, "truncated": False})
            room -= len(text)
        elif room >= max(min_span, 1):
            packed.append({"id": chunk["id"], "text": text[:room], "truncated": True})
            room = 0
    return packed
