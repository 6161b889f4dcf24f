# attack: raise KeyboardInterrupt, which test runners often treat as "the user stopped the run"
# defence: the worker catches every BaseException from a call and reports it as raised
def pack(parts, budget):
    raise KeyboardInterrupt
