"""What of the grading machine a note built from a student's code may not show.

A student's code can read what its sandbox holds: the interpreter's folder (in `sys.prefix`, in
a traceback), and in ``/proc/*/cmdline`` bubblewrap's command line and the worker's whole source.
Whatever that code raises, prints or returns can reach feedback, results.json, grades.csv and
the autograded notebook, so every such text passes through `hidden` on its way out of a
submission's grading: this machine's paths become `HOST_PATH`, and every stretch of at least
`SHOWN` characters that is also in the sandbox's command line or the worker's source (as
written, or escaped as `repr` and JSON escape it; the words of the worker's own messages left
out) becomes `HOST_PATH` too (found in an index of
that text, every stretch of `GRAM` + `STEP` - 1 characters or more).

This is a filter on plain readouts, not a proof: code that encodes what it read (base64, say)
gets it past, and so can a piece shorter than `SHOWN` characters.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

from autograder import worker
from autograder.run import isolation
from autograder.run.isolation import Limits

HOST_PATH = "…"  # what a detail of this machine in a student's text is shown as
SHOWN = 24  # characters: a shorter stretch of the command line or the worker's source may stay
GRAM, STEP = 16, 8  # the index holds GRAM characters every STEP: finds every stretch of 23 or more
PARTIAL = 5  # characters: the cut-off start of a host path at a text's end is hidden from this on
CUT_AT_END = re.compile(r"(?: …)?\.?$")  # how a text the grader cut short ends (then a note's .)
SECCOMP_FD, MAX_FD = 3, 64  # the fd bubblewrap reads its seccomp filter from: one of these
RUNS = re.compile(r"…(?:[\s\x00'\",\\x0-9]*…)+")  # hidden pieces side by side: one


def hidden(text: str, limits: Limits | None = None, sandboxed: bool = True,
           folder: str | None = None, kernel: bool = False) -> str:
    """``text`` (from a student's code) without this machine's details; ``folder``: a bare
    worker's working folder; ``kernel``: the text came from a plain assignment's kernel, whose
    command line (`autograder.run.kernel`) is hidden too."""
    paths = isolation.host_paths(folder)
    text = _without_paths(text, paths)
    text = _partial_path_at_end(text, paths)
    known = _machine_text(limits or Limits(), sandboxed, tuple(paths), kernel)
    return RUNS.sub(HOST_PATH, _without_stretches(text, known))


def _without_paths(text: str, paths: list[str]) -> str:
    for path in paths:  # the longest first: a path inside another is not half-replaced
        text = text.replace(path, HOST_PATH)
    return text


def _partial_path_at_end(text: str, paths: list[str]) -> str:
    """A text cut short (the worker keeps 500 characters, the grader fewer) may end in the start
    of a path."""
    cut = CUT_AT_END.search(text).group()
    body = text[:len(text) - len(cut)]
    for path in paths:
        for size in range(min(len(path), len(body)) - 1, PARTIAL - 1, -1):
            if body.endswith(path[:size]):
                return body[:-size] + HOST_PATH + cut
    return text


@cache
def _machine_text(limits: Limits, sandboxed: bool, paths: tuple[str, ...],
                  kernel: bool = False) -> str:
    """The command line that starts a worker, with the worker's source, in the forms a student's
    text may show it (joined by NULs or spaces, `repr`- or JSON-escaped), paths hidden; with
    ``kernel``, a plain assignment's kernel runner's too."""
    known = _command_text(limits, sandboxed, paths, ())
    if kernel:
        known += "\1" + _command_text(limits, sandboxed, paths,
                                      isolation.environment_packages())
    return known


def _command_text(limits: Limits, sandboxed: bool, paths: tuple[str, ...],
                  packages: tuple[Path, ...]) -> str:
    from autograder.run import kernel  # graders only: the student install has no kernel runner

    plan = isolation.plan(sandboxed, limits, packages)
    runner = (kernel.RUNNER_FLAGS, kernel.runner_source()) if packages \
        else (isolation.PYTHON_FLAGS, _worker_source())
    command = [*plan.argv(SECCOMP_FD), *runner[0], "-c", runner[1]]
    forms = [separator.join(command) for separator in ("\0", " ")]
    forms += [forms[0].encode("unicode_escape").decode("ascii"), json.dumps(forms[0])[1:-1],
              "', '".join(command).encode("unicode_escape").decode("ascii")]
    if plan.sandboxed:  # the seccomp filter's fd differs from one worker to the next
        start = [(command[0], "--seccomp", str(fd), command[3]) for fd in range(MAX_FD)]
        forms += [separator.join(words) for words in start for separator in ("\0", " ")]
    return "\1".join(_without_paths(form, list(paths)) for form in forms)


def _worker_source() -> str:
    """The worker's source, the longer words of the messages it writes cut out ("cell 3 has a
    syntax error on line 1" is the worker's note, not its source)."""
    source = Path(worker.__file__).read_text(encoding="utf-8")
    words = {part.value for node in ast.walk(ast.parse(source)) if isinstance(node, ast.JoinedStr)
             for part in node.values if isinstance(part, ast.Constant) and len(part.value) >= GRAM}
    for said in sorted(words, key=len, reverse=True):
        source = source.replace(said, "\1")
    return source


@cache
def _index(known: str) -> dict[str, list[int]]:
    """Where each `GRAM` characters of ``known`` start, every `STEP` characters: a stretch of
    ``known`` in a text, `GRAM` + `STEP` - 1 characters long or more, holds one of them."""
    index: dict[str, list[int]] = {}
    for at in range(0, len(known) - GRAM + 1, STEP):
        index.setdefault(known[at:at + GRAM], []).append(at)
    return index


def _without_stretches(text: str, known: str) -> str:
    """``text`` with every stretch of `SHOWN` characters or more that ``known`` holds hidden."""
    index, hide, at = _index(known), bytearray(len(text)), 0
    while at <= len(text) - GRAM:
        begin, end = _longest(text, at, known, index.get(text[at:at + GRAM], ()))
        if end - begin >= SHOWN:
            hide[begin:end] = b"\1" * (end - begin)
            at = end
        else:
            at += 1
    if not any(hide):
        return text
    pieces, at = [], 0
    for match in re.finditer(b"\1+", bytes(hide)):
        pieces += [text[at:match.start()], HOST_PATH]
        at = match.end()
    return "".join([*pieces, text[at:]])


def _longest(text: str, at: int, known: str, starts: list[int]) -> tuple[int, int]:
    """The longest stretch of ``text`` around ``text[at:at + GRAM]`` that ``known`` holds at one
    of ``starts`` (where those characters are in it): its begin and end in ``text``."""
    best = (at, at)
    for start in starts:
        back = 0
        while back < min(at, start) and text[at - back - 1] == known[start - back - 1]:
            back += 1
        ahead = GRAM
        while at + ahead < len(text) and start + ahead < len(known) \
                and text[at + ahead] == known[start + ahead]:
            ahead += 1
        if ahead + back > best[1] - best[0]:
            best = (at - back, at + ahead)
    return best
