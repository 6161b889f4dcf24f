# attack: read the hidden test suite from the course folder, print it and return it
# defence: as root the course folder is hidden from the sandbox (an empty, locked mount)
SUITE = "{root}/autograder/suites/pack.py"


def steal():
    with open(SUITE) as handle:
        return handle.read()


try:
    print(steal())
except OSError as error:
    print("could not steal the suite:", type(error).__name__)


def pack(parts, budget):
    return steal().splitlines()
