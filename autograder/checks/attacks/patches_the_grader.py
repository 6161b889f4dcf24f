# attack: import the grader and patch it, patch builtins, the worker's to_plain and json.dumps
# defence: the checks and scoring run in another process; whatever the worker says is checked
import builtins
import json

import __main__

try:
    import autograder.checks.suite

    autograder.checks.suite.run_group = lambda group, call: None
except ImportError:
    pass

__main__.to_plain = lambda value, depth=0: value
real_dumps = json.dumps


def lying_dumps(obj, *args, **kwargs):
    if "ready" in obj:
        return real_dumps(obj)
    return real_dumps({"ok": True, "value": ["sys", "small"], "args": obj.get("args", [])})


json.dumps = lying_dumps


class Anything(list):
    def __eq__(self, other):
        return True


builtins.list = Anything  # the worker's own type checks now see Anything as a list


def pack(parts, budget):
    return Anything()
