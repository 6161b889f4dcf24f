# attack: return a list of str subclasses whose == is always True
# defence: to_plain checks every item's exact type: a str subclass is refused
class Anything(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def pack(parts, budget):
    return [Anything(part["id"]) for part in parts]
