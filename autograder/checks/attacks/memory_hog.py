# attack: allocate 4 GiB, to make the grading machine swap or be killed
# defence: the sandbox's address space is limited (RLIMIT_AS, 1 GiB by default): MemoryError
def pack(parts, budget):
    hog = bytearray(4 << 30)
    return [str(len(hog))]
