# misconception: break-at-first-miss
# stops at the first chunk it has to skip, so smaller chunks after it never get a chance
def pack_evidence(chunks, limit, min_span=80):
    room = limit
    packed = []
    for chunk in sorted(chunks, key=lambda c: c["score"], reverse=True):
        text = chunk["text"]
        if len(text) <= room:
            packed.append({"id": chunk["id"], "text": text, "truncated": False})
            room -= len(text)
        elif room >= max(min_span, 1):
            packed.append({"id": chunk["id"], "text": text[:room], "truncated": True})
            room = 0
        else:
            break
    return packed
