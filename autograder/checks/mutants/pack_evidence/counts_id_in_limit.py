# misconception: counts-id-in-limit
# charges each chunk's id against the limit as well as its text
def pack_evidence(chunks, limit, min_span=80):
    room = limit
    packed = []
    for chunk in sorted(chunks, key=lambda c: c["score"], reverse=True):
        text = chunk["text"]
        cost = len(chunk["id"]) + len(text)
        if cost <= room:
            packed.append({"id": chunk["id"], "text": text, "truncated": False})
            room -= cost
        elif room - len(chunk["id"]) >= max(min_span, 1):
            packed.append({"id": chunk["id"], "text": text[:room - len(chunk["id"])],
                           "truncated": True})
            room = 0
    return packed
