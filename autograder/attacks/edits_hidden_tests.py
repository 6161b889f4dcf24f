# attack: open the hidden test suite for writing, to weaken the tests for everyone after
# defence: as root the course folder is hidden from the sandbox (and its user may not write it)
# (opened for appending and left unchanged: the gallery must not damage a course it runs against)
SUITE = "{root}/autograder/suites/pack.py"


def pack(parts, budget):
    with open(SUITE, "a"):
        pass
    return []
