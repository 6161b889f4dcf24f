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


HELPERS = '''def _fits(used, part, budget):
    return used + part["tokens"] <= budget


def _take(kept, part):
    kept.append(part["id"])
    return part["tokens"]


def pack(parts, budget):
    used, kept = 0, []
    for part in parts:
        if _fits(used, part, budget):
            used += _take(kept, part)
    return kept
'''
# HELPERS padded (issue 37): `pass` after every statement, bare constants, docstrings, code after
# `return`, a branch that never runs, and the helpers moved below the function that uses them.
PADDED = '''def pack(parts, budget):
    """Pack."""
    used, kept = 0, []
    pass
    for part in parts:
        pass
        if _fits(used, part, budget):
            used += _take(kept, part)
            pass
        0
        ...
    return kept
    print("never")
    pass


if False:
    print("never either")


def _take(kept, part):
    "Take it."
    kept.append(part["id"])
    pass
    return part["tokens"]
    kept.clear()


def _fits(used, part, budget):
    pass
    while False:
        used = 0
    if True:
        return used + part["tokens"] <= budget
'''


def test_statements_that_do_nothing_and_the_order_of_helpers_are_set_aside():
    assert normalised(PADDED, KEEP) == normalised(HELPERS, KEEP)
    assert normalised(PADDED) == normalised(HELPERS)
    assert "pass" not in normalised(PADDED) and "never" not in normalised(PADDED)


def test_statements_that_do_something_still_count():
    """Code before a `return`, a branch on a real test, a `while` that runs: all kept."""
    assert normalised(HELPERS.replace("    return kept", "    kept.sort()\n    return kept"),
                      KEEP) != normalised(HELPERS, KEEP)
    looped = PADDED.replace("while False:", "while used > budget:")
    assert normalised(looped, KEEP) != normalised(HELPERS, KEEP)
    assert "while v0 > v2:\n        v0 = 0" in normalised(looped, KEEP)
    branch = HELPERS.replace("    return used", "    if part:\n        return 0\n    return used")
    assert normalised(branch, KEEP) != normalised(HELPERS, KEEP)
    empty = "def pack(parts, budget):\n    pass\n"
    assert normalised(empty, KEEP) == "def pack(v0, v1):\n    pass"
