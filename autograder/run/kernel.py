"""Run one notebook of a plain nbgrader assignment with nbgrader's own `Execute`, in the sandbox.

The trusted side sends `kernel_runner` the notebook to run (the student's cells, the locked ones
as the instructor wrote them), the files that sat beside it and nbgrader's `Execute` settings
from the course's nbgrader_config.py; the runner starts a real kernel in the same bubblewrap
sandbox as every worker, with the course environment's packages shown read-only
(`isolation.environment_packages`), and sends the run notebook back. That answer is the
student's to forge (nbgrader's trust level): it is bounded, parsed as a notebook and scored on
the trusted side.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import selectors
import shutil
import stat
import subprocess
import tempfile
import time
from functools import cache
from pathlib import Path

import nbformat

from autograder.checks.suite import StudentError
from autograder.run import footprint, isolation
from autograder.run.isolation import Limits


@cache
def runner_source() -> str:
    """The kernel runner's source (read when a plain assignment is graded: the student install,
    which imports this module's neighbours, ships no runner)."""
    return (Path(__file__).parent / "kernel_runner.py").read_text(encoding="utf-8")


RUNNER_FLAGS = ("-S", "-u")  # the packages' folder comes on PYTHONPATH, so not -I
MAX_NOTEBOOK = 16 * 1024 * 1024  # the run notebook sent back
MAX_FILES = 32 * 1024 * 1024  # the files beside the notebook, together
START_SECONDS = 60.0  # the kernel's start (nbclient's own startup_timeout)
CELL_MARGIN = 5.0  # besides each cell's timeout: an interrupt, a slow reply
ENV = {"NBGRADER_EXECUTION": "autograde", "HOME": isolation.WORK, "IPYTHONDIR": "/tmp/ipython",
       "JUPYTER_RUNTIME_DIR": "/tmp/jupyter", "JUPYTER_CONFIG_DIR": "/tmp/jupyter-config",
       "MPLCONFIGDIR": "/tmp/matplotlib"}


def files_beside(folders: list[Path]) -> dict[str, str]:
    """The files (not notebooks) of ``folders``, later ones overwriting earlier ones, as nbgrader
    copies them beside the notebook it runs: name -> base64. No link is followed."""
    found: dict[str, bytes] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_symlink() or not path.is_file() or path.suffix == ".ipynb" \
                    or any(p.startswith(".") for p in path.relative_to(folder).parts):
                continue
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
            if sum(map(len, found.values())) > MAX_FILES:
                raise StudentError("crashed", "the files beside the notebook are larger than "
                                   f"{MAX_FILES >> 20} MB together")
    return {name: base64.b64encode(data).decode() for name, data in found.items()}


def unreachable(folders: tuple[Path, ...]) -> Path | None:
    """A package folder that the sandbox's own user (root grading) could not read, if any."""
    if os.geteuid() != 0:
        return None
    for folder in folders:
        for step in [folder, *folder.parents]:
            if not step.stat().st_mode & stat.S_IXOTH:
                return folder
    return None


def budget(cells: int, settings: dict, limits: Limits) -> float:
    """The wall-clock time the whole run may take: the kernel's start, then each code cell's
    timeout (nbgrader's; the submission's limit when it has none) and a margin."""
    timeout = settings.get("timeout", 30)
    per_cell = limits.submission_seconds if timeout is None or timeout <= 0 else timeout
    return START_SECONDS + cells * (per_cell + CELL_MARGIN)


def execute(notebook: nbformat.NotebookNode, files: dict[str, str], settings: dict,
            limits: Limits, sandboxed: bool = True) -> tuple[nbformat.NotebookNode, str | None]:
    """``notebook`` as nbgrader's `Execute` ran it in the sandbox, and why it stopped early (or
    None); `StudentError` when no notebook came back."""
    packages = isolation.environment_packages()
    missing = unreachable(packages) if sandboxed else None
    if missing is not None:
        raise isolation.SandboxUnavailable(
            f"the course's packages ({missing}) are in a folder the sandbox's user cannot read; "
            "install the course's environment where others may read it")
    cells = sum(c.cell_type == "code" for c in notebook.cells)
    seconds = budget(cells, settings, limits)
    request = {"notebook": notebook, "execute": settings, "files": files, "env": ENV,
               "limits": {"cpu_seconds": int(seconds) + 1,
                          "memory_bytes": limits.memory_bytes,
                          "file_bytes": limits.file_bytes, "processes": limits.processes}}
    reply = _run(json.dumps(request).encode(), seconds, limits, sandboxed, packages)
    try:
        answer = json.loads(reply)
        run = nbformat.reads(json.dumps(answer["notebook"]), as_version=4)
        stopped = answer["stopped"]
        if not (stopped is None or type(stopped) is str) or \
                len(run.cells) != len(notebook.cells):
            raise ValueError
    except (ValueError, KeyError, TypeError, RecursionError, AttributeError):
        raise StudentError("interfered", "a run notebook that is not the one sent") from None
    if stopped is not None and not re.fullmatch(r"[A-Za-z_]\w{0,79}", stopped, re.ASCII):
        stopped = "an error"  # the answer is the student's to forge: a name, nothing more
    return run, stopped


def _run(request: bytes, seconds: float, limits: Limits, sandboxed: bool,
         packages: tuple[Path, ...]) -> bytes:
    plan = isolation.plan(sandboxed, limits, packages)
    folder = None if sandboxed else isolation.scratch_folder()
    guard = footprint.Guard(limits.footprint_bytes, sandboxed)
    request_read, request_write = os.pipe()
    response_read, response_write = os.pipe()
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0", **ENV, "HOME": folder or "/"}
    if not sandboxed:
        env["PYTHONPATH"] = os.pathsep.join(map(str, packages))

    def preexec() -> None:
        guard.join()
        plan.preexec()

    with isolation.seccomp_pipe(plan) as seccomp, tempfile.TemporaryFile() as said:
        process = subprocess.Popen(
            [*plan.argv(seccomp), *RUNNER_FLAGS, "-c", runner_source(), str(request_read),
             str(response_write)], cwd=folder, stdin=subprocess.DEVNULL, stdout=said,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec, env=env,
            pass_fds=(request_read, response_write, *([seccomp] if seccomp else [])))
        guard.watch(process)
        os.close(request_read)
        os.close(response_write)
        try:
            with contextlib.suppress(BrokenPipeError):
                _write_all(request_write, request)
            os.close(request_write)
            return _read_all(response_read, time.monotonic() + seconds, guard, limits)
        finally:
            with contextlib.suppress(OSError):
                os.close(request_write)
            os.close(response_read)
            guard.stop()
            isolation.kill(process, plan.sandboxed)
            guard.release()
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int, deadline: float, guard: footprint.Guard, limits: Limits) -> bytes:
    chunks, size = [], 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise StudentError("timeout", "the notebook's cells ran past their time limits",
                                   "wall")
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_NOTEBOOK:
                raise StudentError("not-plain", "a run notebook larger than "
                                   f"{MAX_NOTEBOOK >> 20} MB")
    if guard.exceeded:
        raise StudentError("crashed", footprint.too_much(limits.footprint_bytes))
    if not chunks:
        raise StudentError("crashed", "the notebook's kernel ended before it answered")
    return b"".join(chunks)


