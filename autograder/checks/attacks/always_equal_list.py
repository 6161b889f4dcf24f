# attack: return a list subclass whose == is always True, so every assertion passes
# defence: only plain data crosses the sandbox: a subclass of list is refused (to_plain)
class Anything(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def pack(parts, budget):
    return Anything()
