# attack: return a plain object whose == is always True
# defence: only plain data crosses the sandbox: an object of another type is refused
class Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


def pack(parts, budget):
    return Anything()
