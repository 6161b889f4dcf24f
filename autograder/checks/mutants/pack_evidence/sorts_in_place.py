# misconception: mutates-input
# sorts the caller's list in place with chunks.sort(), changing the order the caller gave
def pack_evidence(chunks, limit, min_span=80):
    chunks.sort(key=lambda c: c["score"], reverse=True)
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
