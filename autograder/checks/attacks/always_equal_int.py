# attack: return an int subclass whose == is always True, so `total == expected` always holds
# defence: to_plain checks the exact type: an int subclass is refused
# exercise: 01-total-tokens
class Anything(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def total_tokens(parts):
    return Anything(0)
