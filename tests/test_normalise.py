"""`autograder.cohort.normalise`: an answer read for what it does, names and layout set aside."""

from __future__ import annotations

from autograder.cohort.normalise import normalised, one_word, recognise

KEEP = frozenset({"pack"})
REFERENCE = '''def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    ### BEGIN SOLUTION
    used = 0
    kept = []
    for part in parts:
        if used + part["tokens"] <= budget:
            kept.append(part["id"])
            used += part["tokens"]
    return kept
    ### END SOLUTION
'''
LEARNER = '''def pack(items, limit):
    "keep what fits"
    total: int = 0
    out = []
    for it in items:  # each part
        if total + it["tokens"] <= limit:
            out.append(it["id"])
            total += it["tokens"]
    return out


print(pack([{"id": "a", "tokens": 3}], 5))
assert pack([], 1) == []
'''


def test_names_comments_docstrings_hints_and_tries_are_set_aside():
    assert normalised(LEARNER, KEEP) == normalised(REFERENCE, KEEP)
    assert normalised(REFERENCE, KEEP).startswith("def pack(v0, v1):\n    v2 = 0")


def test_what_the_code_does_still_counts():
    assert normalised(LEARNER.replace("<=", "<"), KEEP) != normalised(REFERENCE, KEEP)
    assert normalised(REFERENCE, KEEP) != normalised(REFERENCE)  # the function's own name kept
    helper = "def _fits(a, b):\n    return a <= b\n\n\ndef pack(p, b):\n    return _fits(p, b)\n"
    assert "def g0(v0, v1)" in normalised(helper, KEEP) and "g0(v0, v1)" in normalised(helper, KEEP)


def test_one_word_changed_is_named():
    mine, theirs = normalised(LEARNER.replace("<=", "<"), KEEP), normalised(REFERENCE, KEEP)
    assert one_word(mine, theirs) == ("<=", "<")
    assert one_word(normalised(LEARNER.replace("<=", "<").replace("0", "1"), KEEP),
                    theirs) is None
    given = [("the reference", REFERENCE)]
    assert recognise(LEARNER, given, KEEP) == "the reference"
    assert recognise(LEARNER.replace("<=", "<"), given, KEEP) == \
        "the reference with one word changed (`<=` → `<`)"
    assert recognise("def pack(p, b):\n    return p\n", given, KEEP) is None


def test_code_that_does_not_parse_is_none():
    assert normalised("def pack(parts, budget)\n    return []\n") is None
    assert normalised("x = " + "(" * 100_000 + ")" * 100_000) is None  # too deep: refused
    assert recognise("def pack(:", [("the reference", REFERENCE)], KEEP) is None
