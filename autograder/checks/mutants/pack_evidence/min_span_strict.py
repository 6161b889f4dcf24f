# misconception: min-span-strict
# cuts only when more than min_span characters are left, so exactly min_span is skipped
def pack_evidence(chunks, limit, min_span=80):
    room = limit
    packed = []
    for chunk in sorted(chunks, key=lambda c: c["score"], reverse=True):
        text = chunk["text"]
        if len(text) <= room:
            packed.append({"id": chunk["id"], "text": text, "truncated": False})
            room -= len(text)
        elif room > min_span:
            packed.append({"id": chunk["id"], "text": text[:room], "truncated": True})
            room = 0
    return packed
