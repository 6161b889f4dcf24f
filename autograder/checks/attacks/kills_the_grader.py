# attack: kill the process that grades it (its parent), so the class run falls over
# defence: in the sandbox's PID namespace its parent is bubblewrap's init, which ignores it
import os
import signal


def pack(parts, budget):
    os.kill(os.getppid(), signal.SIGKILL)
    return []
