# misconception: no-min-span
# cuts any chunk that does not fit to whatever room is left, however small the fragment
def pack_evidence(chunks, limit, min_span=80):
    room = limit
    packed = []
    for chunk in sorted(chunks, key=lambda c: c["score"], reverse=True):
        text = chunk["text"]
        if len(text) <= room:
            packed.append({"id": chunk["id"], "text": text, "truncated": False})
            room -= len(text)
        elif room > 0:
            packed.append({"id": chunk["id"], "text": text[:room], "truncated": True})
            room = 0
    return packed
