# misconception: truncated-flag
# cuts the text but leaves truncated False, so nothing downstream knows the chunk is incomplete
def pack_evidence(chunks, limit, min_span=80):
    room = limit
    packed = []
    for chunk in sorted(chunks, key=lambda c: c["score"], reverse=True):
        text = chunk["text"]
        if len(text) > room:
            if room < max(min_span, 1):
                continue
            text = text[:room]
        packed.append({"id": chunk["id"], "text": text, "truncated": False})
        room -= len(text)
    return packed
