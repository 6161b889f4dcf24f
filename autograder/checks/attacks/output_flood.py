# attack: print 50 MB, to fill the disk or blow up the feedback page
# defence: RLIMIT_FSIZE on the captured output (16 MB: SIGXFSZ); feedback shows 2,000 characters
import sys


def pack(parts, budget):
    for _ in range(50):
        sys.stdout.write("x" * (1 << 20))
    return []
