"""Tests for exercise 08: ``pack_evidence(chunks, limit, min_span=80) -> list[dict]``.

Expected answers come from `autograder.checks.reference.evidence` (the course's own packer,
instructor-only; the student install reads the answers recorded for the visible checks,
`autograder.checks.recorded`). The diagnosis compares a wrong answer with that packer run on changed
inputs (scores flattened, negated, ties reversed, another min_span) and with its own decisions cut
short, so no second packer is written here. """

from __future__ import annotations

from autograder.checks.compare import Compare, Draw, Unchanged, vary_parts
from autograder.checks.recorded import Reference
from autograder.checks.suite import Check, Group, Misconception, Suite, common_misconceptions, show
from packlab.packing.evidence import SKIPPED, by_score

LESSON = "08-packing-retrieved-evidence"
FUNCTION = "pack_evidence"
pack_evidence = Reference("evidence.pack_evidence")
decisions = Reference("evidence.decisions")
KEYS = {"id", "text", "truncated"}

MISCONCEPTIONS = {
    **common_misconceptions(LESSON),
    "not-a-list": Misconception(
        "not-a-list",
        "pack_evidence returns a list of dicts, one per chunk sent — not None, a string or a "
        "single dict (did you forget `return`?).",
        LESSON,
    ),
    "item-shape": Misconception(
        "item-shape",
        "each packed item is a dict with exactly three keys: \"id\" (a str), \"text\" (a str) "
        "and \"truncated\" (True or False) — not the chunk itself with its score.",
        LESSON,
    ),
    "cuts-id": Misconception(
        "cuts-id",
        "the id is copied whole, always: it is how the answer cites its source. Only the text "
        "may be cut.",
        LESSON,
    ),
    "duplicates": Misconception(
        "duplicates",
        "each chunk is sent at most once, and only chunks that were given can come back.",
        LESSON,
    ),
    "empty-fragment": Misconception(
        "empty-fragment",
        "a cut keeps at least one character: with no room left (even when min_span is 0) the "
        "chunk is skipped, never sent as an empty text.",
        LESSON,
    ),
    "keeps-the-end": Misconception(
        "keeps-the-end",
        "a truncated chunk keeps its beginning, `text[:room]`, not its end: the start of a "
        "passage is what the retriever matched and what makes sense on its own.",
        LESSON,
    ),
    "not-a-prefix": Misconception(
        "not-a-prefix",
        "a sent text is the chunk's text, or exactly its first characters — nothing added "
        "(no '...': the truncated flag says it was cut), nothing stripped or rewritten.",
        LESSON,
    ),
    "input-order": Misconception(
        "input-order",
        "the chunks arrive in retrieval order, not by relevance: sort them by score, best "
        "first, before packing, or the low-score chunk listed first takes the room.",
        LESSON,
    ),
    "ascending-score": Misconception(
        "ascending-score",
        "the best chunks go first: sort by score in descending order (`reverse=True`), so "
        "the low scores are the ones that fall off.",
        LESSON,
    ),
    "ties-reversed": Misconception(
        "ties-reversed",
        "chunks with equal scores keep their input order. `sorted(..., reverse=True)` does "
        "that; sorting ascending and then reversing the list flips the ties.",
        LESSON,
    ),
    "no-min-span": Misconception(
        "no-min-span",
        "a chunk that does not fit is cut only when at least min_span characters are left; "
        "with less room, skip it — a tiny fragment is worse than nothing.",
        LESSON,
    ),
    "min-span-strict": Misconception(
        "min-span-strict",
        "exactly min_span characters of room is enough to cut: compare with `>=`, not `>`.",
        LESSON,
    ),
    "break-at-first-miss": Misconception(
        "break-at-first-miss",
        "the walk stops at the first chunk that is skipped, so smaller chunks after it never "
        "get their chance. Skip that chunk and keep going.",
        LESSON,
    ),
    "truncated-flag": Misconception(
        "truncated-flag",
        "`truncated` is True exactly when the text was cut (it is shorter than the chunk's "
        "text) and False when the chunk was taken whole.",
        LESSON,
    ),
    "counts-id-in-limit": Misconception(
        "counts-id-in-limit",
        "the limit counts the characters of the texts only; ids are not counted in it.",
        LESSON,
    ),
    "over-limit": Misconception(
        "over-limit",
        "the texts sent must add up to at most `limit` characters: a chunk goes in whole only "
        "if it fits in the room left, and a cut keeps exactly the room left.",
        LESSON,
    ),
    "score-order": Misconception(
        "score-order",
        "the items come back in packing order: best score first, equal scores in input order.",
        LESSON,
    ),
    "not-the-rule": Misconception(
        "not-the-rule",
        "walk the chunks by score: take a chunk whole if its text fits in the room left; else "
        "cut it to the room left if that is at least min_span (and at least 1); else skip it "
        "and go on.",
        LESSON,
    ),
    "mutates-input": Misconception(
        "mutates-input",
        "packing must not change the chunks it was given (`chunks.sort()` sorts the caller's "
        "list in place): sort a copy with `sorted()`.",
        LESSON,
    ),
}

_WORDS = ("pole", "claim", "refund", "photo", "delivery", "repair", "sleeve", "order", "months",
          "label", "warranty", "faulty", "parcel", "section", "replace", "days")


def text_of(chunk_id: str, length: int) -> str:
    """A readable text of exactly ``length`` characters whose start and end differ."""
    start = sum(map(ord, chunk_id)) % len(_WORDS)
    words = [f"[{chunk_id}]"] + [_WORDS[(start + i * 5) % len(_WORDS)] for i in range(length)]
    return " ".join(words)[:length]


def chunks_of(spec: list[tuple[str, int, float]]) -> list[dict]:
    """``[("faq", 120, 0.9)]`` becomes ``[{"id": "faq", "text": <120 chars>, "score": 0.9}]``."""
    return [{"id": key, "text": text_of(key, length), "score": score}
            for key, length, score in spec]


def args_of(chunks: list[dict], limit: int, min_span: int | None) -> list:
    return [chunks, limit] if min_span is None else [chunks, limit, min_span]


def stopped_at_first_skip(chunks: list[dict], limit: int, span: int) -> list[dict]:
    """The course's packing cut short at its first skipped chunk (the `break` bug)."""
    walk = decisions(chunks, limit, span)
    stop = next((i for i, d in enumerate(walk) if d.status == SKIPPED), len(walk))
    sent = sum(d.status != SKIPPED for d in walk[:stop])
    return pack_evidence(chunks, limit, span)[:sent]


def text_len(items: list[dict]) -> int:
    return sum(len(item["text"]) for item in items)


def in_order(ids: list[str], reference: list[str]) -> bool:
    """Whether ``ids`` appear in ``reference``, each at most once, in its order."""
    remaining = iter(reference)
    return all(key in remaining for key in ids)


def shape_problem(got) -> str | None:
    if type(got) is not list:
        return "not-a-list"
    for item in got:
        if (type(item) is not dict or set(item) != KEYS or type(item["id"]) is not str
                or type(item["text"]) is not str or type(item["truncated"]) is not bool):
            return "item-shape"
    return None


def identity_problem(chunks: list[dict], got: list[dict]) -> str | None:
    """Ids and texts that could not have come from these chunks."""
    texts = {chunk["id"]: chunk["text"] for chunk in chunks}
    ids = [item["id"] for item in got]
    if any(key not in texts for key in ids):
        if any(key not in texts and any(known.startswith(key) for known in texts) for key in ids):
            return "cuts-id"
        return "duplicates"
    if len(set(ids)) != len(ids):
        return "duplicates"
    for item in got:
        original, text = texts[item["id"]], item["text"]
        if text == "" and original:
            return "empty-fragment"
        if not original.startswith(text):
            return "keeps-the-end" if original.endswith(text) else "not-a-prefix"
    return None


def variant_problem(chunks: list[dict], limit: int, span: int, got: list[dict]) -> str | None:
    """The course's packer on changed inputs: which wrong idea reproduces this answer?"""
    variants = [
        ("input-order", lambda: pack_evidence([{**c, "score": 0} for c in chunks], limit, span)),
        ("ascending-score",
         lambda: pack_evidence([{**c, "score": -c["score"]} for c in chunks], limit, span)),
        ("ties-reversed", lambda: pack_evidence(chunks[::-1], limit, span)),
        ("no-min-span", lambda: pack_evidence(chunks, limit, 0)),
        ("min-span-strict", lambda: pack_evidence(chunks, limit, span + 1)),
        ("break-at-first-miss", lambda: stopped_at_first_skip(chunks, limit, span)),
    ]
    for key, variant in variants:
        if got == variant():
            return key
    return None


def content_problem(chunks: list[dict], limit: int, span: int, got: list[dict]) -> str:
    expected = pack_evidence(chunks, limit, span)
    problem = identity_problem(chunks, got) or variant_problem(chunks, limit, span, got)
    if problem:
        return problem
    texts = {chunk["id"]: chunk["text"] for chunk in chunks}

    def strip(items: list[dict]) -> list[tuple[str, str]]:
        return [(item["id"], item["text"]) for item in items]

    if strip(got) == strip(expected) or any(
            item["truncated"] != (len(item["text"]) < len(texts[item["id"]])) for item in got):
        return "truncated-flag"
    with_ids = sum(len(item["id"]) for item in got) + text_len(got)
    if with_ids <= limit < sum(len(item["id"]) for item in expected) + text_len(expected):
        return "counts-id-in-limit"
    if text_len(got) > limit:
        return "over-limit"
    if not in_order([item["id"] for item in got], [c["id"] for c in by_score(chunks)]):
        return "score-order"
    return "not-the-rule"


def diagnose(args: list, got) -> Misconception:
    """Name the likeliest wrong idea behind a wrong answer."""
    chunks, limit, *min_span = args
    span = min_span[0] if min_span else 80
    return MISCONCEPTIONS[shape_problem(got) or content_problem(chunks, limit, span, got)]


def lengths(items: list[dict]) -> str:
    """What was sent, by length: the texts themselves are shortened in messages."""
    if not items:
        return "nothing sent"
    return ", ".join(f"{item['id']} {len(item['text'])} characters"
                     + (" (truncated)" if item["truncated"] else "") for item in items)


def describe(items) -> str:
    """An answer for a message: the items, then (when well formed) their lengths."""
    return show(items) if shape_problem(items) else f"{show(items)}\n{' ' * 19}= {lengths(items)}"


PACKER = Compare(function=FUNCTION, misconceptions=MISCONCEPTIONS, expected=pack_evidence,
                 diagnose=diagnose, malformed=shape_problem, render=describe,
                 unchanged=Unchanged("chunks"),
                 vary=lambda rng, args: vary_parts(rng, args, scale=False))


def case(name: str, spec: list[tuple[str, int, float]], limit: int,
         min_span: int | None = 80, draw: Draw | None = None) -> Check:
    return PACKER.case(name, *args_of(chunks_of(spec), limit, min_span), draw=draw)


def example(name: str, sent: list[tuple[str, int, bool]], spec: list[tuple[str, int, float]],
            limit: int, min_span: int | None = 80) -> Check:
    """A visible example, its answer written out: each chunk sent as (id, characters kept,
    truncated), its text the start of the chunk's."""
    lengths = {key: length for key, length, _ in spec}
    answer = [{"id": key, "text": text_of(key, lengths[key])[:kept], "truncated": cut}
              for key, kept, cut in sent]
    return PACKER.answers(name, answer, *args_of(chunks_of(spec), limit, min_span))


TIGHT = args_of(chunks_of([("menu", 60, 0.1), ("faq", 100, 0.9), ("policy", 80, 0.7)]), 200, 80)
CUT = args_of(chunks_of([("faq", 150, 0.9), ("runbook", 200, 0.8)]), 250, 80)


UNCHANGED = "the chunks list is left as it was"


# The visible group only: the hidden ones are in autograder/checks/hidden/pack_evidence.py.
SUITE = Suite(
    function=FUNCTION,
    reference=pack_evidence,
    groups=(
        Group(
            "visible",
            "The lesson's kind of example: low scores fall off, everything fits, one chunk cut.",
            (
                PACKER.well_formed("pack_evidence returns a list of dicts, each with 'id', "
                                   "'text' and 'truncated'", *TIGHT),
                PACKER.left_alone(UNCHANGED, *TIGHT),
                PACKER.about("chunks are weighed best score first, not in input order or lowest "
                             "first", {"ascending-score", "input-order", "ties-reversed",
                                       "score-order"}, *TIGHT),
                PACKER.about("with less than min_span characters left, a chunk that does not fit "
                             "is skipped, not cut to a fragment", {"no-min-span"}, *TIGHT),
                example("the low-score chunk falls off when the limit is tight",
                        [("faq", 100, False), ("policy", 80, False)],
                        [("menu", 60, 0.1), ("faq", 100, 0.9), ("policy", 80, 0.7)], 200),
                example("when everything fits, every chunk is sent whole, best score first",
                        [("policy", 70, False), ("runbook", 30, False), ("faq", 50, False)],
                        [("faq", 50, 0.4), ("policy", 70, 0.8), ("runbook", 30, 0.6)], 500),
                PACKER.about("the limit counts the characters of the texts only, not the ids",
                             {"counts-id-in-limit"}, *CUT),
                PACKER.about("a cut keeps the start of the text, and says so with truncated "
                             "True", {"keeps-the-end", "not-a-prefix", "truncated-flag"}, *CUT),
                example("a chunk that does not fit is cut to the room left when min_span fits",
                        [("faq", 150, False), ("runbook", 100, True)],
                        [("faq", 150, 0.9), ("runbook", 200, 0.8)], 250),
                example("with less than min_span characters left, 'manual' is skipped and a "
                        "later, smaller chunk still goes in whole",
                        [("guide", 130, False), ("tip", 40, False)],
                        [("guide", 130, 0.95), ("manual", 300, 0.7), ("tip", 40, 0.2)], 200),
                example("with exactly min_span characters left (80 of 200), the chunk is cut to "
                        "min_span", [("guide", 120, False), ("manual", 80, True)],
                        [("guide", 120, 0.95), ("manual", 300, 0.7)], 200),
                example("the id is never cut, even when the text is cut to the limit",
                        [("handbook/onboarding-guide", 100, True)],
                        [("handbook/onboarding-guide", 250, 0.8)], 100),
                example("chunks with equal scores are weighed in input order: 'tip-2' and "
                        "'tip-3' go in", [("tip-2", 70, False), ("tip-3", 70, False)],
                        [("tip-2", 70, 0.6), ("tip-3", 70, 0.6), ("tip-1", 70, 0.6)], 150),
            ),
            visible=True,
        ),
    ),
)
