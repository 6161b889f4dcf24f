"""Run a student's code in a separate, confined process and call its functions with plain data.

The trusted side never executes student code. It starts `autograder/worker.py` (confined as
`autograder.isolation` describes) in an empty working folder, sends it the student's cells, then
sends calls and reads back JSON. A call that takes too long, a crash or a flood of output ends
that process and everything it started; the next call starts a fresh one, until the submission's
restarts or its time run out.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from autograder import isolation, worker
from autograder.isolation import Limits
from autograder.suite import Outcome, StudentError

WORKER = Path(worker.__file__).resolve()
MAX_RESPONSE = 8 * 1024 * 1024
OUTPUT_TAIL = 2000


class Sandbox:
    """One student's code, loaded in a worker process; `call` asks it for a function's answer."""

    def __init__(self, cells: list[str], limits: Limits | None = None,
                 hidden: tuple[str, ...] = ()):
        self.cells = cells
        self.limits = limits or Limits()
        self.plan = isolation.plan()
        self.hidden = hidden
        self._deadline = time.monotonic() + self.limits.submission_seconds
        self.problems: list[str] = []
        self._process: subprocess.Popen | None = None
        self._folder: Path | None = None
        self._buffer = b""
        self._broken: StudentError | None = None
        self._last_fatal: StudentError | None = None
        self._restarts = 0

    # --- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="packlab-sandbox-"))
        worker_copy = self._folder / "worker.py"  # readable wherever the course folder is hidden
        shutil.copyfile(WORKER, worker_copy)
        if self.plan.uid is not None:
            for path in (self._folder, worker_copy):
                os.chown(path, self.plan.uid, self.plan.uid)
        request_read, self._request = os.pipe()
        self._response, response_write = os.pipe()
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close(); unreachable from the sandbox
        self._process = subprocess.Popen(
            [self.plan.interpreter, "-I", "-u", str(worker_copy), str(request_read),
             str(response_write)],
            cwd=self._folder,
            stdin=subprocess.DEVNULL,
            stdout=self._output,
            stderr=subprocess.STDOUT,
            pass_fds=(request_read, response_write),
            start_new_session=True,
            preexec_fn=lambda: isolation.confine(self.limits, self.plan, self.hidden),
            env={"PATH": "/usr/bin:/bin", "HOME": str(self._folder), "PYTHONHASHSEED": "0"},
        )
        os.close(request_read)
        os.close(response_write)
        self._buffer = b""
        self._send(self.cells)
        ready = self._receive(self.limits.setup_seconds, "running your notebook's cells")
        self.problems = ready.get("problems", [])

    def close(self) -> None:
        """End the worker and everything it started; remove its folder."""
        if self._process is not None:
            isolation.kill_everything(self._process.pid, self.plan.uid)
            self._process.wait()
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
        return self._output.read().decode("utf-8", "replace")

    # --- protocol -------------------------------------------------------------------------

    def _send(self, message) -> None:
        data = (json.dumps(message) + "\n").encode()
        try:
            while data:
                written = os.write(self._request, data)
                data = data[written:]
        except BrokenPipeError:
            raise self._fatal("crashed", self._exit_reason()) from None

    def _receive(self, seconds: float, doing: str) -> dict:
        if self._deadline - time.monotonic() < seconds:
            seconds = max(0.0, self._deadline - time.monotonic())
            doing = f"{doing} (the whole submission may take {self.limits.submission_seconds:g} s)"
        deadline = time.monotonic() + seconds
        with selectors.DefaultSelector() as selector:
            selector.register(self._response, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    unit = "second" if seconds == 1 else "seconds"
                    raise self._fatal("timeout", f"{seconds:g} {unit} while {doing}")
                chunk = os.read(self._response, 65536)
                if not chunk:
                    raise self._fatal("crashed", self._exit_reason())
                self._buffer += chunk
                if len(self._buffer) > MAX_RESPONSE:
                    raise self._fatal("not-plain", "an answer larger than 8 MB")
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _exit_reason(self) -> str:
        code = self._process.wait(timeout=5) if self._process else None
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            hints = {"SIGKILL": "killed: too much memory or CPU time?",
                     "SIGSEGV": "a segmentation fault", "SIGXCPU": "it used up its CPU time",
                     "SIGXFSZ": f"it printed or wrote more than {self.limits.file_bytes >> 20} MB"}
            return f"{name}, {hints.get(name, 'ended by a signal')}"
        return f"it exited with code {code} (sys.exit or os._exit?)"

    def _fatal(self, kind: str, detail: str) -> StudentError:
        """Stop this worker; the next call may start a fresh one."""
        error = StudentError(kind, detail)
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

    def call(self, function: str, args: list) -> Outcome:
        """Call ``function(*args)`` in the sandbox; raise `StudentError` if no plain answer came."""
        self._ensure_started()
        self._send({"call": function, "args": args})
        response = self._receive(self.limits.call_seconds, f"calling {function}")
        if not response.get("ok"):
            raise StudentError(response.get("kind", "crashed"), response.get("detail", ""))
        return Outcome(response["value"], response["args"])

    def caller(self, function: str):
        """A `Caller` for the suites: ``caller(args)`` calls ``function``."""
        return lambda args: self.call(function, args)
