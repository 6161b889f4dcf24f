"""The hidden tests of exercise 08, ``pack_evidence``: edge cases and properties."""

from __future__ import annotations

from hypothesis import strategies as st

from autograder.checks.reference.evidence import pack_evidence
from autograder.checks.suite import Group, show
from autograder.checks.suites.pack_evidence import (
    PACKER,
    UNCHANGED,
    args_of,
    case,
    chunks_of,
    describe,
    diagnose,
    in_order,
    text_len,
)
from packlab.packing.evidence import by_score

DEFAULT = None  # a case with min_span=DEFAULT calls pack_evidence(chunks, limit)

NAMES = ("faq", "doc-3", "runbook", "menu", "policy", "wiki-12", "ticket", "notes")

examples = st.tuples(
    st.lists(
        st.tuples(st.text(alphabet="abcdef ", min_size=1, max_size=150),
                  st.integers(0, 4).map(lambda n: n / 4)),
        max_size=len(NAMES),
    ).map(lambda rows: [{"id": key, "text": text, "score": score}
                        for key, (text, score) in zip(NAMES, rows, strict=False)]),
    st.integers(0, 600),
    st.integers(0, 120),
)

IDS = "every id comes from the input, whole, at most once"
PREFIX = "every text sent is the start of its chunk's text"
FLAG = "truncated is True exactly when the text sent is shorter than the chunk's"
WITHIN = "the texts sent add up to at most the limit"
ORDER = "the items come in score order, equal scores in input order"
SKIPS = "a chunk is skipped only when it did not fit whole and less than min_span was left"
EXACT = "the packing is exactly the course's rule"


def ids_are_whole_and_unique(args: list, got: list[dict]) -> str | None:
    ids = [item["id"] for item in got]
    if not set(ids) <= {c["id"] for c in args[0]} or len(set(ids)) != len(ids):
        return "ids of the given chunks, each at most once"
    return None


def texts_are_prefixes(args: list, got: list[dict]) -> str | None:
    texts = {c["id"]: c["text"] for c in args[0]}
    if not all(texts.get(item["id"], "").startswith(item["text"]) for item in got):
        return "each text equal to its chunk's text or to its first characters"
    return None


def flag_tells_the_truth(args: list, got: list[dict]) -> str | None:
    texts = {c["id"]: c["text"] for c in args[0]}
    if any(item["truncated"] != (len(item["text"]) < len(texts.get(item["id"], "")))
           for item in got):
        return describe(pack_evidence(*args))
    return None


def stays_within_limit(args: list, got: list[dict]) -> None:
    limit = args[1]
    if text_len(got) > limit:
        raise PACKER.fail(WITHIN, args, f"{show(got)}, {text_len(got)} characters of text in all",
                          f"at most {limit} characters", diagnose(args, got))


def comes_in_score_order(args: list, got: list[dict]) -> str | None:
    ranked = [c["id"] for c in by_score(args[0])]
    if not in_order([item["id"] for item in got], ranked):
        return f"ids in this order (some may be missing): {show(ranked)}"
    return None


def first_wrong_skip(chunks: list[dict], limit: int, span: int, got: list[dict]) -> str | None:
    """Replay the answer's own choices by score; explain the first chunk skipped wrongly."""
    sent = {item["id"]: len(item["text"]) for item in got}
    room = limit
    for chunk in by_score(chunks):
        length = len(chunk["text"])
        if chunk["id"] in sent:
            room -= sent[chunk["id"]]
        elif length <= room:
            return (f"{chunk['id']!r} ({length} characters) fits whole in the {room} characters "
                    "left at its turn")
        elif room >= max(span, 1):
            return (f"{chunk['id']!r} does not fit, but {room} characters are left at its turn, "
                    f"at least min_span = {span}: cut it to {room}")
    return None


def skips_only_when_it_must(args: list, got: list[dict]) -> str | None:
    reason = first_wrong_skip(*args, got)
    if reason:
        return f"{describe(pack_evidence(*args))}, because {reason}"
    return None


def matches_the_rule(args: list, got: list[dict]) -> str | None:
    expected = pack_evidence(*args)
    if got != expected:
        return describe(expected)
    return None


GROUPS = (
    Group(
        "edge-cases",
        "Exact fits, exactly min_span left, one less, ties, empty input, limit 0, min_span 0, "
        "the default min_span, ids, prefixes, what happens after a cut, the input unchanged.",
        (
            case("a chunk that lands exactly on the limit is sent whole, not truncated",
                 [("faq", 120, 0.9), ("policy", 80, 0.5)], 200),
            case("with exactly min_span characters left, the chunk is cut to min_span",
                 [("faq", 120, 0.9), ("runbook", 200, 0.8)], 200),
            case("with one character less than min_span left, the chunk is skipped and a "
                 "later, smaller chunk still goes in whole",
                 [("faq", 120, 0.9), ("runbook", 200, 0.8), ("notes", 50, 0.3)], 199),
            case("chunks with equal scores are packed in input order",
                 [("faq", 60, 0.5), ("policy", 60, 0.5), ("notes", 60, 0.5),
                  ("runbook", 60, 0.9)], 150),
            case("scores decide the order, not the order the chunks arrived in",
                 [("menu", 90, 0.05), ("wiki-12", 90, 0.6), ("faq", 90, 0.95)], 180),
            case("an empty list of chunks packs to an empty list", [], 300,
                 draw=lambda rng: args_of([], rng.randint(0, 2000), rng.randint(0, 200))),
            case("with a limit of 0, nothing is sent",
                 [("faq", 100, 0.9), ("policy", 40, 0.5)], 0),
            case("min_span 0 lets a chunk be cut to whatever is left, even 3 characters",
                 [("faq", 100, 0.9), ("policy", 50, 0.5)], 103, 0),
            case("min_span 0 with no room left sends nothing more, not even an empty text",
                 [("faq", 100, 0.9), ("policy", 50, 0.5)], 100, 0),
            case("min_span is 80 when it is not given",
                 [("faq", 100, 0.9), ("runbook", 200, 0.5)], 179, DEFAULT),
            case("the id is never cut, even when the text is",
                 [("runbooks/database-failover", 300, 0.9)], 120),
            case("a truncated text keeps the beginning of the chunk",
                 [("wiki-12", 160, 0.8), ("faq", 40, 0.2)], 130),
            case("after a cut the room is used up, so nothing after it is sent",
                 [("faq", 100, 0.9), ("runbook", 300, 0.8), ("notes", 10, 0.1)], 200),
            case("ids are not counted in the limit: texts adding up to the limit all fit",
                 [("troubleshooting/printer", 90, 0.9), ("policy/returns-and-refunds", 110,
                                                         0.7)], 200),
            PACKER.left_alone("the chunks list is left exactly as it was",
                              *args_of(chunks_of([("menu", 40, 0.1), ("faq", 90, 0.9),
                                                  ("notes", 60, 0.4)]), 120, 80)),
            case("with 30 characters left, less than min_span, the chunks that do not fit "
                 "are skipped", [("menu", 40, 0.1), ("faq", 90, 0.9), ("notes", 60, 0.4)], 120),
        ),
    ),
    Group(
        "properties",
        "For generated chunks, limits and min_spans: whole unique ids, prefixes, an honest "
        "truncated flag, within the limit, score order, no needless skip, the exact rule, "
        "the input unchanged.",
        (
            PACKER.holds(IDS, examples, ids_are_whole_and_unique, 40),
            PACKER.holds(PREFIX, examples, texts_are_prefixes, 40),
            PACKER.holds(FLAG, examples, flag_tells_the_truth, 40),
            PACKER.holds(WITHIN, examples, stays_within_limit, 40),
            PACKER.holds(ORDER, examples, comes_in_score_order, 40),
            PACKER.holds(SKIPS, examples, skips_only_when_it_must, 60),
            PACKER.holds(EXACT, examples, matches_the_rule, 60),
            PACKER.leaves_alone(UNCHANGED, examples, 40),
        ),
    ),
)
