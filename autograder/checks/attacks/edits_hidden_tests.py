# attack: open the hidden test suite for writing, to weaken the tests for everyone after
# defence: no copy of the course is in the sandbox's filesystem; nothing else is writable
# (opened for appending and left unchanged: the gallery must not damage a course it runs against)
SUITE = "{root}/autograder/checks/hidden/pack.py"


def pack(parts, budget):
    with open(SUITE, "a"):
        pass
    return []
