# attack: raise SystemExit inside pack, ending an in-process test runner
# defence: the worker catches every BaseException from a call and reports it as raised
def pack(parts, budget):
    raise SystemExit
