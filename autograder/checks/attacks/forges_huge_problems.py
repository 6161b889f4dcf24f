# attack: before the worker does, send a "ready" reply with 7 MB of problems and rich markup
# defence: 20 problems of 500 characters at most, escaped where shown; the worker's real
#   reply then arrives out of turn and counts as interference
import os
import sys

PROBLEM = "[bold red]full marks[/] " + "x" * 70_000
os.write(int(sys.argv[2]), ('{"ready": true, "problems": ["' + '", "'.join([PROBLEM] * 100)
                            + '"]}\n').encode())


def pack(parts, budget):
    return []
