# attack: loop forever and swallow whatever is raised into the loop, so the CPU timer cannot stop it
# defence: each call also has a wall-clock limit, enforced from outside the sandbox
def pack(parts, budget):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
