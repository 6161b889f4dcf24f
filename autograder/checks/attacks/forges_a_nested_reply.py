# attack: reply on the worker's pipe with JSON nested 100,000 levels deep, to crash the reader
# defence: the trusted side believes no reply: one it cannot read is the student's failure
import os
import sys


def pack(parts, budget):
    os.write(int(sys.argv[2]), b"[" * 100_000 + b"]" * 100_000 + b"\n")
    return []
