# attack: answer every call with an 8 MB value, the most a reply may be, and wrong, so that
#   each student's Hypothesis search fails on it: the grader, holding the replies from one
#   student to the next, would run out of memory in a large class
# defence: a reply is read once and shown shortened; the reference cycles a failed search
#   leaves (tracebacks holding replies) are freed after each submission (engine._free_cycles):
#   four such students are graded in under 400 MB, and the grading process holds no more after
#   the fourth than after the first (tests/test_memory_bound.py)
# exercise: 01-total-tokens
LETTER = "x"


def total_tokens(parts):
    return [LETTER * 8_000_000]
