# attack: reply on the worker's pipe without the keys the grader expects (a KeyError?)
# defence: every reply is checked against the protocol before it is used
import os
import sys


def pack(parts, budget):
    os.write(int(sys.argv[2]), b'{"ok": true}\n')
    return []
