# attack: import the course's own answer (packlab's greedy, or the suite's reference)
# defence: no copy of the course, and no installed package, is in the sandbox's filesystem
import sys

sys.path[:0] = ["{root}", "{root}/src"]
try:
    from packlab.packing.packers import greedy as pack  # noqa: F401
except ImportError:
    from autograder.checks.suites.pack import SUITE

    pack = SUITE.reference
