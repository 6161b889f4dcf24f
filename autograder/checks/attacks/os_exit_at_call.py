# attack: os._exit(0) inside pack: the process running the tests vanishes with exit code 0
# defence: the tests run on the trusted side; a worker that dies fails that check (then restarts)
import os


def pack(parts, budget):
    os._exit(0)
