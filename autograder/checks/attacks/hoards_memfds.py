# attack: hold memory in memfds (shared memory that no process maps, outside every RLIMIT_AS)
# defence: the sandbox's seccomp filter refuses memfd_create (and memfd_secret): PermissionError
import os

hoard = []


def pack(parts, budget):
    while len(hoard) < 96:  # 96 × 16 MiB = 1.5 GiB, once
        fd = os.memfd_create("hoard")
        os.write(fd, b"x" * (16 << 20))
        hoard.append(fd)
    taken, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            taken.append(part["id"])
            used += part["tokens"]
    return taken
