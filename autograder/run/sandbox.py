"""Run a student's code in a separate, confined process and call its functions with plain data.

The trusted side never executes student code. It starts `autograder/worker.py` in a fresh
sandbox (`autograder.run.isolation`), sends it the student's cells, then sends calls and reads back
JSON. It believes nothing the worker says: a reply that is not what the protocol allows (not
JSON, nested too deep, a key missing, too large, an unknown kind) is the student's failure,
"your code interfered with the grader", never a crash. A call that takes too long, a crash or a
flood of output ends that sandbox and everything in it; the next call starts a fresh one, until
the submission's restarts or its time run out.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from autograder import worker
from autograder.checks.suite import Outcome, StudentError
from autograder.run import footprint, isolation, machine
from autograder.run.isolation import Limits
from autograder.worker import NotPlain, to_plain

WORKER_SOURCE = Path(worker.__file__).read_text(encoding="utf-8")
MAX_RESPONSE = 8 * 1024 * 1024
OUTPUT_TAIL = 2000
MAX_PROBLEMS = 20
MAX_DETAIL = 500
REPLY_KINDS = {"raised", "missing", "not-plain", "timeout"}
AHEAD_BYTES = 32 * 1024  # calls sent at once (`Sandbox.expect`): half an empty pipe's room
EXIT_SECONDS = 2.0  # for a worker that closed a pipe to end, before it is stopped


def interfered(what: str) -> StudentError:
    return StudentError("interfered", what)


def _seconds(seconds: float) -> str:
    return f"{seconds:g} {'second' if seconds == 1 else 'seconds'}"


def _text(value, limit: int) -> str:
    if type(value) is not str:
        raise interfered(f"a reply with a {type(value).__name__} where text belongs")
    return value if len(value) <= limit else value[:limit] + " …"


def ready_problems(reply) -> list[str]:
    """The problems a worker reported after running the cells (at most `MAX_PROBLEMS` shown)."""
    if type(reply) is not dict or reply.get("ready") is not True or \
            type(reply.get("problems")) is not list:
        raise interfered("a reply that is not the worker's, after running the cells")
    problems = reply["problems"]
    shown = [_text(p, MAX_DETAIL) for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        shown.append(f"{len(problems) - MAX_PROBLEMS:,} more cells also failed (not listed)")
    return shown


def call_outcome(reply, sent: list) -> Outcome:
    """The `Outcome` of the reply to a call with arguments ``sent``; `StudentError` for a
    failure or a forged reply."""
    if type(reply) is not dict or type(reply.get("ok")) is not bool:
        raise interfered("a reply that is not the worker's")
    if not reply["ok"]:
        kind = reply.get("kind")
        if kind not in REPLY_KINDS:
            raise interfered("a reply with an unknown kind of failure")
        raise StudentError(kind, _text(reply.get("detail"), MAX_DETAIL))
    if set(reply) != {"ok", "value", "args", "warnings"} or type(reply["args"]) is not list \
            or len(reply["args"]) != len(sent) or type(reply["warnings"]) is not list:
        raise interfered("a reply with missing or extra parts")
    try:
        value, args = to_plain(reply["value"]), to_plain(reply["args"])
    except NotPlain as exc:
        raise interfered(f"a reply holding {exc}") from None
    notes = tuple(_text(w, 200) for w in reply["warnings"][:worker.MAX_WARNINGS])
    return Outcome(value, args, notes)


class Sandbox:
    """One student's code, loaded in a worker process; `call` asks it for a function's answer."""

    def __init__(self, cells: list[str], limits: Limits | None = None, sandboxed: bool = True,
                 started: float | None = None):
        """``started``: when the submission's time began (`time.monotonic`; default now)."""
        self.cells = cells
        self.limits = limits or Limits()
        self.plan = isolation.plan(sandboxed, self.limits)
        self._deadline = (started or time.monotonic()) + self.limits.submission_seconds
        self.problems: list[str] = []
        self.over_memory = False  # a sandbox of this submission reached `Limits.footprint_bytes`
        self._process: subprocess.Popen | None = None
        self._first: int | None = None  # the sandbox's PID 1 (a pidfd), taken as bubblewrap ended
        self._replies: selectors.BaseSelector | None = None  # waits for the worker's replies
        self._guard: footprint.Guard | None = None
        self._folder: str | None = None
        self._buffer = b""
        self._broken: StudentError | None = None
        self._last_fatal: StudentError | None = None
        self._restarts = 0
        self._ahead: collections.deque[bytes] = collections.deque()  # sent, not yet answered
        self._unsent: StudentError | None = None  # why calls sent ahead could not be sent

    # --- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        request_read, self._request = os.pipe()
        self._response, response_write = os.pipe()
        self._replies = selectors.DefaultSelector()  # one per worker, not one per reply
        self._replies.register(self._response, selectors.EVENT_READ)
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close(); unreachable from the sandbox
        if not self.plan.sandboxed:
            self._folder = isolation.scratch_folder()
        self._guard = footprint.Guard(self.limits.footprint_bytes, self.plan.sandboxed)
        with isolation.seccomp_pipe(self.plan) as seccomp:
            self._process = subprocess.Popen(
                [*self.plan.argv(seccomp), *isolation.PYTHON_FLAGS, "-c", WORKER_SOURCE,
                 str(request_read), str(response_write)],
                cwd=self._folder,
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=subprocess.STDOUT,
                pass_fds=(request_read, response_write, *([seccomp] if seccomp else [])),
                start_new_session=True,
                preexec_fn=self._preexec,
                env={"PATH": "/usr/bin:/bin", "HOME": self._folder or "/",
                     "PYTHONHASHSEED": "0"},
            )
        self._guard.watch(self._process)
        os.close(request_read)
        os.close(response_write)
        os.set_blocking(self._request, False)
        self._buffer = b""
        limits = {k: v for k, v in asdict(self.limits).items() if k in worker.LIMITS}
        setup = self.limits.setup_seconds
        late = f"{_seconds(setup)} while running your notebook's cells"
        self._write(_line({"limits": limits, "call_cpu_seconds": self.limits.call_cpu_seconds,
                           "cells": self.cells}), setup, late, starting=True)
        reply = self._receive(setup, late)
        try:
            self.problems = ready_problems(reply)
        except StudentError as exc:
            raise self._fatal(exc.kind, exc.detail) from None

    def _preexec(self) -> None:
        """In the new process: enter the sandbox's cgroup (as root), then the plan's own."""
        self._guard.join()
        self.plan.preexec()

    def close(self) -> None:
        """End the worker and everything it started; remove its folder."""
        self._ahead.clear()
        if self._process is not None:
            self._guard.stop()
            isolation.kill(self._process, self.plan.sandboxed, self._first)
            self._first = None
            self._guard.release()
            self._replies.close()
            for fd in (self._request, self._response):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._output.close()
            self._process = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def output_tail(self) -> str:
        """The last lines the student's code printed (kept short for feedback)."""
        if self._process is None:
            return ""
        self._output.flush()
        size = self._output.seek(0, os.SEEK_END)
        self._output.seek(max(0, size - OUTPUT_TAIL))
        text = self._output.read().decode("utf-8", "replace")
        return machine.hidden(text, self.limits, self.plan.sandboxed, self._folder)

    # --- protocol -------------------------------------------------------------------------

    def _window(self, seconds: float, late: str) -> tuple[float, str]:
        """The deadline of an exchange that may take ``seconds`` (no later than the whole
        submission's), and what to say when it passes."""
        left = self._deadline - time.monotonic()
        if left < seconds:
            seconds = max(0.0, left)
            late = f"{late} (the whole submission may take {self.limits.submission_seconds:g} s)"
        return time.monotonic() + seconds, late

    def _write(self, lines: bytes, seconds: float, late: str, starting: bool = False) -> None:
        """Write request lines within ``seconds``. A worker that stops reading is stopped:
        it interfered, or (``starting``, or the submission's time running out first) it was
        too slow: ``late``. One that closed its pipe too."""
        data = self._put(memoryview(lines))
        if not data:  # all of it fitted in the pipe: no waiting, no selector
            return
        too_slow = starting or self._deadline - time.monotonic() < seconds
        deadline, late = self._window(seconds, late)
        with selectors.DefaultSelector() as selector:
            selector.register(self._request, selectors.EVENT_WRITE)
            while data:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    if too_slow:
                        raise self._fatal("timeout", late, clock="wall")
                    raise self._fatal("interfered", "replies out of turn and stopped reading the "
                                      "grader's calls")
                data = self._put(data)

    def _put(self, data: memoryview) -> memoryview:
        """Write what the pipe takes now of ``data``; what is left."""
        try:
            while data:
                data = data[os.write(self._request, data):]
        except BlockingIOError:  # the pipe is full: the caller waits for the worker to read
            pass
        except BrokenPipeError:
            raise self._ended() from None
        return data

    def _receive(self, seconds: float, late: str):
        """The next reply line, parsed as JSON (anything else: the student interfered).

        No line within ``seconds`` of wall-clock time: a fatal timeout whose detail is ``late``.
        """
        if b"\n" not in self._buffer:  # else the reply was read with an earlier one
            self._read_line(seconds, late)
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return json.loads(line)
        except (ValueError, RecursionError):
            raise self._fatal("interfered", "a reply that is not JSON") from None

    def _read_line(self, seconds: float, late: str) -> None:
        """Read until the buffer holds a whole line (see `_receive`); the replies after it may
        come along."""
        deadline, late = self._window(seconds, late)
        chunks, size = [self._buffer], len(self._buffer)
        while b"\n" not in chunks[-1]:  # a line ends in the newest chunk, if at all
            left = deadline - time.monotonic()
            if left <= 0 or not self._replies.select(left):
                raise self._fatal("timeout", late, clock="wall")
            chunk = os.read(self._response, 65536)
            if not chunk:
                raise self._ended()
            chunks.append(chunk)
            end = chunk.find(b"\n")
            size += len(chunk) if end < 0 else end  # this line's size, not the next's
            if size > MAX_RESPONSE:
                raise self._fatal("not-plain", "an answer larger than 8 MB")
        self._buffer = b"".join(chunks)

    def _ended(self) -> StudentError:
        """The worker closed one of its pipes: its crash, or its interference (then it is
        stopped) when it goes on running without them."""
        if self.plan.sandboxed and self._first is None:  # while bubblewrap's pid is its own
            self._first = footprint.init_of(self._process)
        try:
            code = self._process.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            return self._fatal("interfered", "nothing more and closed its pipe to the grader")
        return self._fatal("crashed", self._exit_reason(code))

    def _exit_reason(self, code: int) -> str:
        if code < 0:
            return self._signal_reason(-code)
        if code > 128 and self.plan.sandboxed:  # bubblewrap passes signals on as 128 + the
            with contextlib.suppress(ValueError):  # signal's number
                return self._signal_reason(code - 128)
        return f"it exited with code {code} (sys.exit or os._exit?)"

    def _signal_reason(self, number: int) -> str:
        name = signal.Signals(number).name
        hints = {"SIGKILL": "killed: too much memory or CPU time?",
                 "SIGSEGV": "a segmentation fault", "SIGXCPU": "it used up its CPU time",
                 "SIGXFSZ": f"it printed or wrote more than {self.limits.file_bytes >> 20} MB"}
        return f"{name}, {hints.get(name, 'ended by a signal')}"

    def _fatal(self, kind: str, detail: str, clock: str = "") -> StudentError:
        """Stop this worker; the next call may start a fresh one. One whose processes reached
        their memory bound is told so, whatever else went wrong as it was stopped."""
        if self._guard is not None and self._guard.exceeded:
            kind, detail, clock = "crashed", footprint.too_much(self.limits.footprint_bytes), ""
            self.over_memory = True
        error = StudentError(kind, detail, clock)
        self._last_fatal = error
        self.close()
        return error

    # --- calls ----------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._broken is not None:
            raise self._broken
        if self._process is not None:
            return
        if self._restarts > self.limits.restarts:
            last = self._last_fatal or StudentError("timeout", "the time limit")
            self._broken = StudentError(last.kind, f"{last.detail}, again and again, so the "
                                        "remaining checks were not run")
            raise self._broken
        self._restarts += 1
        try:
            self._start()
        except StudentError as error:
            self._broken = error  # the cells themselves hang or crash: no call can succeed
            raise

    def expect(self, function: str, calls: list[list]) -> None:
        """Send the calls of ``function`` about to be made, in one message: the worker answers
        them one by one, each under its own time limits, while the grader reads the answers.

        Each call is still made with `call`, which takes its answer (read within the time one
        call may take). A call that is not the next one sent goes the usual way, after the
        answers sent for nothing have been read and dropped (`_drop_ahead`). At most
        `AHEAD_BYTES` are sent at once, into an empty pipe, so the write never waits.
        """
        self._drop_ahead()
        if len(calls) < 2:
            return
        try:
            self._ensure_started()
        except StudentError:  # the first of these calls meets it, as it would have
            return
        lines, size = [], 0
        for args in calls:
            line = _line({"call": function, "args": args})
            if size + len(line) > AHEAD_BYTES:
                break
            lines.append(line)
            size += len(line)
        try:
            self._write(b"".join(lines), self.limits.call_seconds, self._call_limit(function))
        except StudentError as error:  # the first of these calls fails so, as it would have
            self._unsent = error
            return
        self._ahead.extend(lines)

    def _drop_ahead(self) -> None:
        """Read and drop the answers to calls sent ahead and not made. A worker that fails on
        one of them (a call the grader never needed) is ended quietly, and the next call starts
        a fresh one without counting it as a restart."""
        last_fatal = self._last_fatal
        while self._ahead:
            self._ahead.popleft()
            try:
                self._receive(self.limits.call_seconds, "")
            except StudentError:
                self._restarts -= 1
                self._last_fatal = last_fatal
                return

    def call(self, function: str, args: list) -> Outcome:
        """Call ``function(*args)`` in the sandbox; raise `StudentError` if no plain answer came."""
        line, late = _line({"call": function, "args": args}), self._call_limit(function)
        if self._unsent is not None:
            error, self._unsent = self._unsent, None
            raise error
        if self._ahead and self._ahead[0] == line:
            self._ahead.popleft()
        else:
            self._drop_ahead()
            self._ensure_started()
            self._write(line, self.limits.call_seconds, late)
        reply = self._receive(self.limits.call_seconds, late)
        try:
            return call_outcome(reply, args)
        except StudentError as exc:
            if exc.kind == "timeout":  # the worker's CPU timer stopped the call
                raise self._fatal("timeout", late, clock="cpu") from None
            if exc.kind == "interfered":
                raise self._fatal(exc.kind, exc.detail) from None
            raise

    def run_cell(self, source: str, number: int):
        """Run one notebook cell in the worker (a plain nbgrader assignment's; see
        `autograder.worker.run_cell`) and return its reply, parsed but not yet believed
        (`autograder.run.plain` checks it); `StudentError` when none came."""
        self._ensure_started()
        late = f"{_seconds(self.limits.setup_seconds)} while running the notebook's cell {number}"
        self._write(_line({"run": source, "number": number}), self.limits.setup_seconds, late)
        return self._receive(self.limits.setup_seconds, late)

    def _call_limit(self, function: str) -> str:
        """A call's time limit in words: the same whichever clock stops it, so that a loaded
        machine (where the wall clock may run out first) writes the same feedback."""
        return (f"the time one call may take ({self.limits.call_cpu_seconds:g} s of CPU time, "
                f"{_seconds(self.limits.call_seconds)} in all) while calling {function}")

    def caller(self, function: str) -> SandboxCaller:
        """A `Caller` for the suites: ``caller(args)`` calls ``function``."""
        return SandboxCaller(self, function)


@dataclass(frozen=True)
class SandboxCaller:
    """``caller(args)`` calls the function in the sandbox; ``caller.expect(calls)`` sends the
    calls about to be made at once (`Sandbox.expect`)."""

    box: Sandbox
    function: str

    def __call__(self, args: list) -> Outcome:
        return self.box.call(self.function, args)

    def expect(self, calls: list[list]) -> None:
        self.box.expect(self.function, calls)


def _line(message) -> bytes:
    return (json.dumps(message) + "\n").encode()
