# attack: send SIGKILL to every process it may signal (kill -1), the grader among them
# defence: the sandbox's PID namespace holds only its own processes
import os
import signal


def pack(parts, budget):
    os.kill(-1, signal.SIGKILL)
    return []
