# attack: never return, hoping the grader hangs (or a later test passes, as in nbgrader #427)
# defence: each call may use 0.25 s of CPU time (a timer in the worker stops it); the sandbox is
#   killed and later checks start afresh
def pack(parts, budget):
    while True:
        pass
