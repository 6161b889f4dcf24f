# attack: crash the interpreter with a segmentation fault (ctypes reads address 0)
# defence: the worker is a separate process; the crash fails the check and is named as a signal
import ctypes


def pack(parts, budget):
    return [ctypes.string_at(0)]
