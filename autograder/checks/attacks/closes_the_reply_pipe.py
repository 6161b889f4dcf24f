# attack: close the pipe the grader reads replies from and go on running, so that the grader
#   waits for an exit that never comes (and shows the sandbox's command line in the feedback)
# defence: a worker that closes a pipe and does not end is stopped; the check fails as
#   interference, in plain words, with nothing of the machine in them
import os
import sys
import time


def pack(parts, budget):
    os.close(int(sys.argv[2]))
    time.sleep(600)
