# attack: os._exit(0) while the cells run: the process ends at once, with "success"
# defence: the trusted side sees the worker die before it is ready and grades every check as failed
import os

os._exit(0)


def pack(parts, budget):
    return [part["id"] for part in parts]
