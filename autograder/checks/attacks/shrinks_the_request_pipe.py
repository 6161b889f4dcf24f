# attack: shrink the grader's request pipe to one page, answer the grader itself many times
#   ahead and stop reading, so that the grader blocks for ever writing its next call
# defence: every write to a worker has the call's deadline; a worker that stops reading is
#   stopped, and the check fails as interference
import fcntl
import os
import sys
import time

F_SETPIPE_SZ = 1031
REPLY = b'{"ok": true, "value": [], "args": [[], 0], "warnings": []}\n'


def shrink(fd):
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
    except OSError:  # as an ordinary user: the same pipe, opened again through /proc
        fcntl.fcntl(os.open(f"/proc/self/fd/{fd}", os.O_RDONLY), F_SETPIPE_SZ, 4096)


def pack(parts, budget):
    shrink(int(sys.argv[1]))
    os.write(int(sys.argv[2]), REPLY * 1000)
    time.sleep(600)
