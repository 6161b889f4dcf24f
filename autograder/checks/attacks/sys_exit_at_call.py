# attack: sys.exit(0) inside pack, so the first test ends the test run "successfully"
# defence: the worker catches SystemExit from a call and reports it as an error of that call
import sys


def pack(parts, budget):
    sys.exit(0)
