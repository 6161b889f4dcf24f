# misconception: ignores-pinned
# step: pinned
# ranks pinned items by their score like any other item
def score_and_pack(items: list[dict], query: str, budget: int) -> dict:
    import math
    import re
    from collections import Counter

    def words(text):
        return re.findall(r"[a-z0-9]+", text.lower())

    k1, b = 1.5, 0.75
    alarms = {"error", "panic", "traceback", "fail", "security", "regression"}
    n_items = len(items)
    docs = [words(item["text"]) for item in items]
    counts = [Counter(doc) for doc in docs]
    avg_len = sum(len(doc) for doc in docs) / n_items if n_items else 0.0

    idf = {}
    for term in dict.fromkeys(words(query)):
        containing = sum(1 for count in counts if term in count)
        if containing:
            idf[term] = math.log(1 + (n_items - containing + 0.5) / (containing + 0.5))

    scores = []
    for i, item in enumerate(items):
        bm25 = 0.0
        for term, weight in idf.items():
            f = counts[i][term]
            if f:
                norm = k1 * (1 - b + b * len(docs[i]) / avg_len)
                bm25 += weight * f * (k1 + 1) / (f + norm)
        recency = 0.1 * (i + 1) / n_items
        error = 1.0 if alarms & set(docs[i]) else 0.0
        scores.append(bm25 + recency + error + item.get("priority", 0))

    pinned = []
    others = sorted(range(n_items),
                    key=lambda i: -scores[i])  # a stable sort keeps ties in chronological order
    taken, used = set(), 0
    for i in pinned + others:
        if used + items[i]["tokens"] <= budget:
            taken.add(i)
            used += items[i]["tokens"]

    return {
        "included": [item["id"] for i, item in enumerate(items) if i in taken],
        "tokens_used": used,
        "tokens_before": sum(item["tokens"] for item in items),
        "deferred_count": n_items - len(taken),
    }
