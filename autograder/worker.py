"""The sandbox worker: runs one student's code and answers calls with plain data.

This file runs *inside* the sandbox, as ``python -I -S -c <this file's text> REQUEST RESPONSE``,
so it uses the standard library only, and of it what starts quickly: a worker starts for every
submission, and `json` and `signal` would import `re` and `enum` (about 10 ms of CPU, a third of
the worker's start), so it reads and writes JSON with `json`'s own C core, set up as
`json.loads` and `json.dumps` set it up (`loads`, `dumps`), and sets its timer with `_signal`.
The trusted side imports it for `to_plain` and `with_callables`, which both sides share, and
believes none of its replies (see `autograder.run.sandbox`; it reads them with `json` itself).

Protocol: first ``{"limits": {...}, "call_cpu_seconds": s, "cells": [...]}`` arrives on the
request pipe; the worker sets its resource limits, runs the cells and answers
``{"ready": true, "problems": [...]}``. Then each request line ``{"call": name, "args": [...]}``
gets one response line on the response pipe:
``{"ok": true, "value": ..., "args": [...], "warnings": [...]}`` or
``{"ok": false, "kind": ..., "detail": ...}``. A call that uses more than ``call_cpu_seconds`` of
CPU time is stopped by a profiling timer and answered ``{"ok": false, "kind": "timeout", ...}``;
the trusted side's wall-clock limit covers code that sleeps, blocks or catches the timer.

A plain nbgrader assignment (`autograder.run.plain`) starts with no cells and sends its notebook's
cells one at a time, ``{"run": source, "number": n}``, each answered as a kernel would have run
it: ``{"ran": n, "error": "AssertionError: ..." or null, "line": l or null, "stderr": bool,
"value": repr of the last expression or null}``. Its test cells run here, beside the student's
code (nbgrader's model): these replies are the student's to forge.
"""

from __future__ import annotations

import _json
import _signal as signal
import io
import os
import resource
import sys
import warnings


class _Decoder:
    """What json's C scanner reads of its decoder: `json.JSONDecoder`'s defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"),
                      "NaN": float("nan")}.__getitem__


_scan = _json.make_scanner(_Decoder())


def loads(line: str):
    """``json.loads(line)`` for a line the grader wrote (JSON, from its first character)."""
    try:
        return _scan(line, 0)[0]
    except StopIteration:
        raise ValueError("not JSON") from None


def _unknown(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value) -> str:
    """``json.dumps(value, allow_nan=False)``, by the encoder json.dumps itself uses."""
    encode = _json.make_encoder({}, _unknown, _json.encode_basestring_ascii, None, ": ", ", ",
                                False, False, False)
    return "".join(encode(value, 0))


PLAIN_SCALARS = (str, int, float, bool, type(None))
MAX_DEPTH = 50


class NotPlain(Exception):
    """Not plain data: exactly list, dict with str keys, str, int, float, bool or None."""


def to_plain(value, depth: int = 0):
    """Copy ``value`` as plain data, refusing subclasses and other types (they could rig ``==``)."""
    if depth > MAX_DEPTH:
        raise NotPlain("a structure nested more than 50 levels deep")
    kind = type(value)
    if kind in PLAIN_SCALARS:
        if kind is float and value != value:
            raise NotPlain("a float that is NaN")
        return value
    if kind in (list, tuple):
        return [to_plain(item, depth + 1) for item in value]
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise NotPlain(f"a dict key of type {type(key).__name__}")
            out[key] = to_plain(item, depth + 1)
        return out
    raise NotPlain(f"an object of type {kind.__module__}.{kind.__qualname__}")


# Functions a test may hand to the student's code (e.g. a tokenizer for `fit`). They cross the
# sandbox by name: the argument {"callable": "words"} arrives as the function below.
TEST_CALLABLES = {
    "characters": len,
    "words": lambda text: len(text.split()),
    "quarter-characters": lambda text: -(-len(text) // 4),
    "nan": lambda text: float("nan"),
    "infinite": lambda text: float("inf"),
    "negative": lambda text: -1,
    "not-a-number": lambda text: "many",
}


def with_callables(value):
    """Replace every ``{"callable": name}`` in the arguments by the function of that name."""
    if type(value) is dict:
        if set(value) == {"callable"} and value["callable"] in TEST_CALLABLES:
            return TEST_CALLABLES[value["callable"]]
        return {key: with_callables(item) for key, item in value.items()}
    if type(value) is list:
        return [with_callables(item) for item in value]
    return value


def plain_args(args, original):
    """The arguments after the call, with the test's functions back in their named form."""
    if callable(args) and not isinstance(args, type):
        return original
    if type(args) is list and type(original) is list and len(args) == len(original):
        return [plain_args(a, o) for a, o in zip(args, original, strict=True)]
    if type(args) is dict and type(original) is dict:
        return {k: plain_args(v, original.get(k)) for k, v in args.items()}
    return args


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}"[:500] if text else type(exc).__name__


RUNS_ITS_BODY = {"time", "timeit", "capture", "prun"}  # cell magics whose cell IPython runs


class Shell:
    """`get_ipython()` for code read by IPython's transformers: magics and ``!`` do nothing,
    except that ``%%time``-like cell magics run their cell, as they do in Jupyter."""

    def __init__(self, namespace: dict):
        self._namespace = namespace

    def run_cell_magic(self, name: str, line: str, body: str):
        if name in RUNS_ITS_BODY:
            exec(compile(body, f"<%%{name} cell>", "exec"), self._namespace)

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None


LIMITS = {"cpu_seconds": resource.RLIMIT_CPU, "memory_bytes": resource.RLIMIT_AS,
          "file_bytes": resource.RLIMIT_FSIZE, "open_files": resource.RLIMIT_NOFILE,
          "processes": resource.RLIMIT_NPROC}


def set_limits(limits: dict) -> None:
    """Lower this process's limits (hard and soft) before any student code runs."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name, which in LIMITS.items():
        value = int(limits[name])
        resource.setrlimit(which, (value, value))


def _run_cells(cells: list[str], namespace: dict) -> list[str]:
    """Execute the student's cells in order, like a kernel would; collect what each one raised."""
    problems = []
    for number, source in enumerate(cells, 1):
        try:
            exec(compile(source, f"<cell {number}>", "exec"), namespace)
        except SyntaxError as exc:
            problems.append(f"cell {number} has a syntax error on line {exc.lineno}: {exc.msg}")
        except BaseException as exc:  # noqa: BLE001 - a student's cell may raise anything
            problems.append(f"cell {number} raised {_describe(exc)}")
    return problems


MAX_WARNINGS = 20


def warning_names(caught: list) -> list[str]:
    """``"UserWarning: the message"`` for each warning a call gave (at most 20)."""
    return [f"{w.category.__name__}: {w.message}"[:200] for w in caught[:MAX_WARNINGS]]


class OutOfTime(BaseException):
    """Raised into the student's code when one call has used up its CPU time."""


def _out_of_time(signum, frame):
    raise OutOfTime


def _timed(func, args: list, cpu_seconds: float):
    """``func(*args)``, stopped with `OutOfTime` once it has used ``cpu_seconds`` of CPU time.

    The timer fires again every 50 ms of CPU time, in case the code catches the first one.
    """
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds, 0.05)
    try:
        return func(*args)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _answer(namespace: dict, request: dict, cpu_seconds: float) -> dict:
    func = namespace.get(request["call"])
    if not callable(func):
        return {"ok": False, "kind": "missing", "detail": request["call"]}
    args = with_callables(request["args"])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = _timed(func, args, cpu_seconds)
    except OutOfTime:
        return {"ok": False, "kind": "timeout", "detail": ""}
    except BaseException as exc:  # noqa: BLE001
        return {"ok": False, "kind": "raised", "detail": _describe(exc)}
    try:
        return {"ok": True, "value": to_plain(value),
                "args": to_plain(plain_args(args, request["args"])),
                "warnings": warning_names(caught)}
    except NotPlain as exc:
        return {"ok": False, "kind": "not-plain", "detail": str(exc)}


class _Flagged:
    """A stream that notes whether anything was written to it, and passes it on."""

    def __init__(self, stream):
        self.stream, self.written = stream, False

    def write(self, text):
        self.written = self.written or bool(text)
        return self.stream.write(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


MAX_VALUE = 200  # characters of a cell's value sent back (nbgrader reads a number from it)


def _failing_line(tb, filename: str) -> int | None:
    """The line of the cell ``filename`` an exception's traceback last passed through."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run_cell(source: str, number: int, namespace: dict) -> dict:
    """One notebook cell, run as IPython runs it: its statements, then its last expression,
    whose repr is its value (unless the cell ends with ``;``)."""
    import ast

    name = f"<cell {number}>"
    report = {"ran": number, "error": None, "line": None, "stderr": False, "value": None}
    stderr, sys.stderr = sys.stderr, _Flagged(sys.stderr)
    flagged = sys.stderr
    try:
        tree = ast.parse(source, name)
        last = tree.body.pop() if tree.body and type(tree.body[-1]) is ast.Expr \
            and not source.rstrip().endswith(";") else None
        exec(compile(tree, name, "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)
            if value is not None:
                report["value"] = repr(value)[:MAX_VALUE]
    except SyntaxError as exc:
        report["error"], report["line"] = f"SyntaxError: {exc.msg}"[:500], exc.lineno
    except BaseException as exc:  # noqa: BLE001 - a cell may raise anything
        report["error"] = _describe(exc)
        report["line"] = _failing_line(exc.__traceback__, name)
    finally:
        sys.stderr = stderr
    report["stderr"] = flagged.written
    return report


def _reply(namespace: dict, request: dict, cpu_seconds: float) -> dict:
    if "run" in request:
        return run_cell(request["run"], request["number"], namespace)
    return _answer(namespace, request, cpu_seconds)


def main() -> None:
    requests = os.fdopen(int(sys.argv[1]), "r", encoding="utf-8")
    responses = os.fdopen(int(sys.argv[2]), "w", encoding="utf-8")
    sys.stdin = io.StringIO("")  # input() gets end-of-file at once instead of hanging
    start = loads(requests.readline())
    set_limits(start["limits"])
    signal.signal(signal.SIGPROF, _out_of_time)
    namespace = {"__name__": "__main__"}
    namespace["get_ipython"] = lambda: Shell(namespace)
    problems = _run_cells(start["cells"], namespace)
    responses.write(dumps({"ready": True, "problems": problems}) + "\n")
    responses.flush()
    for line in requests:
        response = _reply(namespace, loads(line), start["call_cpu_seconds"])
        try:
            text = dumps(response)
        except (ValueError, OverflowError) as exc:
            text = dumps({"ok": False, "kind": "not-plain", "detail": str(exc)})
        responses.write(text + "\n")
        responses.flush()


if __name__ == "__main__":
    main()
