# attack: a daemon (double fork, new session) that outlives grading and rewrites results.json
# defence: the sandbox's PID namespace dies with it, and the results folder is not in its filesystem
import glob
import json
import os
import time


def rewrite_later():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for _ in range(60):
                time.sleep(0.5)
                for path in glob.glob("{out}/**/results.json", recursive=True):
                    try:
                        with open(path, "w") as handle:
                            json.dump({"score": 5, "output": "FORGED", "tests": []}, handle)
                    except OSError:
                        pass
        os._exit(0)


rewrite_later()


def pack(parts, budget):
    return []
