# attack: read /proc/*/cmdline (bubblewrap's command line, the worker's source) and the
#   interpreter's folder; raise, print and return them, to learn how the grader runs
# defence: every text made from what the code raised, printed or returned hides this
#   machine's paths, the sandbox's command line and the worker's source (run/machine.py)
import glob
import sys


def machine():
    found = [sys.prefix, sys.executable]
    for path in sorted(glob.glob("/proc/[0-9]*/cmdline")):
        with open(path, "rb") as handle:
            found.append(handle.read().decode("utf-8", "replace"))
    return " ".join(found)


def pack(parts, budget):
    if budget % 2:
        return [machine()]
    raise RuntimeError(machine())


print(machine())
raise RuntimeError(machine())
