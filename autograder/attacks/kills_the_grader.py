# attack: kill the process that grades it (its parent), so the class run falls over
# defence: as root the sandbox runs as a user of its own, which may not signal the grader
# requires: root (as an ordinary user the sandbox shares the grader's user and could kill it)
import os
import signal


def pack(parts, budget):
    os.kill(os.getppid(), signal.SIGKILL)
    return []
