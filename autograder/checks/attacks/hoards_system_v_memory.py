# attack: hold memory in System V shared memory segments, detached: no process maps them
# defence: the sandbox's seccomp filter refuses shmget: PermissionError
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segments = []


def take(size=256 << 20):
    segment = libc.shmget(0, ctypes.c_size_t(size), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if segment == -1:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
    address = libc.shmat(segment, None, 0)
    ctypes.memset(address, 1, size)
    libc.shmdt(ctypes.c_void_p(address))
    segments.append(segment)


def pack(parts, budget):
    while len(segments) < 8:  # 2 GiB, once
        take()
    taken, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            taken.append(part["id"])
            used += part["tokens"]
    return taken
