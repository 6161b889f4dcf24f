# attack: never return, hoping the grader hangs (or a later test passes, as in nbgrader #427)
# defence: each call has a wall-clock limit; the process group is killed, later checks start afresh
def pack(parts, budget):
    while True:
        pass
