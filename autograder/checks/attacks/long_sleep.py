# attack: sleep for hours while the cells run, so the grader waits forever
# defence: running the cells has its own time limit (setup_seconds); then the submission is stopped
import time

time.sleep(10_000)


def pack(parts, budget):
    return []
