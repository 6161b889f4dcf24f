"""Grading on a Dask distributed cluster (`packlab grade --scheduler ADDRESS`).

Only `grade_one` runs on the workers, each submission in a sandbox of its own as on this
machine; everything else (dates, corrections, reports, the gradebook) stays here. Workers need
no shared folder: each task carries its submission's notebook (at most SHIPPED_BYTES), which the
worker writes to a temporary folder of its own and grades there; that folder's path never reaches
the results, which are the same, byte for byte, as a local run's.

It fails closed: before anything is graded every worker must have the same packlab, Python,
grading libraries and course as this machine (`fingerprint`) and, unless grading without a
sandbox, a working sandbox. Each task checks its worker again, so a worker that joins later
grades nothing unless it agrees (`WorkerDiffers`: that submission is left for the next run).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import platform
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from functools import cache, partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from autograder.checks.example_cache import sources
from autograder.cohort.record import Graded
from autograder.cohort.task import Task, grade_one
from autograder.run import handed_in, isolation
from autograder.run.handed_in import NOTEBOOK_BYTES
from autograder.run.isolation import Limits
from packlab.manifest import load

SHIPPED_BYTES = NOTEBOOK_BYTES  # the largest notebook sent to a worker: the largest graded
CONNECT_SECONDS = 10.0
CHECK_SECONDS = 30.0  # for every worker to answer the check (it starts a sandbox)
GRADING_LIBRARIES = ("hypothesis", "nbformat", "ipython")  # what the results depend on


class ClusterUnavailable(RuntimeError):
    """The cluster cannot grade (unreachable, no workers, or a worker that differs); says why."""


class WorkerDiffers(ClusterUnavailable):
    """Raised on a worker that does not match the instructor's machine: nothing is graded."""


@dataclasses.dataclass(frozen=True)
class Parcel:
    """One task as sent to a worker: the task, and its notebook's bytes."""

    task: Task
    notebook: bytes


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


PARTS = {"course.toml": "its course.toml (lessons, exercises, points, dates)",
         "released exercises": "its released exercises (exercises/)",
         "grader code": "its grader's code (autograder/)",
         "course algorithms": "its course algorithms (src/packlab/packing/)"}
SHOWN_FILES = 5  # files named per part that differs


def _digest(files: dict[str, str]) -> str:
    return hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]


@cache
def fingerprint() -> dict:
    """What must be the same on every machine that grades, for the same results: versions,
    and a digest per part of the course (`PARTS`) with one per file, to name what differs."""
    course = load()
    files: dict[str, dict[str, str]] = {part: {} for part in PARTS}
    files["course.toml"]["course.toml"] = hashlib.sha256(repr(course).encode()).hexdigest()[:16]
    for exercise in course.exercises:
        files["released exercises"][f"exercises/{exercise.name}"] = hashlib.sha256(
            exercise.release.read_bytes()).hexdigest()[:16]
    for name, path in sources():
        part = "grader code" if name.parts[0] == "autograder" else "course algorithms"
        files[part][str(name)] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    python = ".".join(platform.python_version_tuple()[:2])
    return {"packlab": _version("packlab"), "Python": python,
            **{name: _version(name) for name in GRADING_LIBRARIES},
            **{part: _digest(found) for part, found in files.items()}, "files": files}


def describe(key: str, mine: object, theirs: object, who: str = "this machine") -> str:
    """How a worker's fingerprint entry ``theirs`` differs from ``mine`` (of ``who``), in
    words: for a part of the course, the files that differ."""
    if key not in PARTS:
        return f"it has {key} {theirs or 'unknown'}, {who} {mine}"
    ours = (mine or {}).get(key, {}) if isinstance(mine, dict) else {}
    other = (theirs or {}).get(key, {}) if isinstance(theirs, dict) else {}
    changed = sorted(name for name in ours.keys() | other.keys()
                     if ours.get(name) != other.get(name))
    listed = ", ".join(name + (" (not on the worker)" if name not in other else
                               f" (not on {who})" if name not in ours else "")
                       for name in changed[:SHOWN_FILES])
    more = f" and {len(changed) - SHOWN_FILES} more" if len(changed) > SHOWN_FILES else ""
    return f"{PARTS[key]} differs from {who}'s" + (f": {listed}{more}" if listed else "")


def _differences(theirs: dict) -> list[str]:
    """How a worker's fingerprint differs from this machine's, in words."""
    ours = fingerprint()
    return [describe(key, ours["files"] if key in PARTS else value,
                     theirs.get("files") if key in PARTS else theirs.get(key))
            for key, value in ours.items()
            if key != "files" and theirs.get(key) != value]


def worker_state(sandboxed: bool) -> dict:
    """Run on each worker: its fingerprint and, when asked, why its sandbox does not work."""
    problem = None
    if sandboxed:
        try:
            isolation.require_sandbox()
        except isolation.SandboxUnavailable as exc:
            problem = str(exc)
    return {"fingerprint": fingerprint(), "sandbox": problem}


def _refusals(states: dict[str, object]) -> list[str]:
    """What is wrong with each worker (none when every one can grade)."""
    said = []
    for address, state in sorted(states.items()):
        if isinstance(state, BaseException):
            said.append(f"worker {address} cannot run packlab's grader "
                        f"({type(state).__name__}: {state})")
            continue
        problems = _differences(state["fingerprint"])
        if state["sandbox"]:
            problems.append(f"its sandbox does not work: {state['sandbox']}")
        said += [f"worker {address}: {problem}" for problem in problems]
    return said


@contextmanager
def connected(address: str, sandboxed: bool, timeout: float = CONNECT_SECONDS,
              check_timeout: float = CHECK_SECONDS) -> Iterator[Callable[..., Future]]:
    """Connect to the scheduler, check every worker, and yield `submit` bound to its executor.

    Raises `ClusterUnavailable` when the scheduler cannot be reached within ``timeout`` seconds,
    has no worker, or any worker differs from this machine, lacks a sandbox or does not answer
    the check within ``check_timeout`` seconds.
    """
    from distributed import Client

    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except ValueError:
        raise ClusterUnavailable(f"{address} is not the address of a Dask scheduler, such as "
                                 "tcp://10.0.0.5:8786.") from None
    except (OSError, TimeoutError):
        raise ClusterUnavailable(
            f"Cannot reach the Dask scheduler at {address} within {timeout:g} s. Is `dask "
            "scheduler` running there, and can this machine reach its port?") from None
    try:
        _check(client, address, sandboxed, timeout, check_timeout)
        yield partial(submit, client.get_executor(pure=False))
    finally:
        client.close()


def _check(client, address: str, sandboxed: bool, timeout: float,
           check_timeout: float) -> None:
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailable(f"The Dask scheduler at {address} has no workers (waited "
                                 f"{timeout:g} s): start `dask worker {address}` on each "
                                 "grading machine.") from exc
    refusals = _refusals(_states(client, sandboxed, check_timeout))
    if refusals:
        raise ClusterUnavailable("A worker of the cluster cannot grade like this machine: "
                                 + "; ".join(refusals) + ". Install packlab on every worker "
                                 "from the same checkout as here, with bubblewrap.")


def _states(client, sandboxed: bool, timeout: float) -> dict[str, object]:
    """Each worker's `worker_state`, or the error it gave; one that does not answer within
    ``timeout`` seconds (its event loop stuck) gets a `TimeoutError` saying so."""
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    pool = ThreadPoolExecutor(max(1, len(workers)), thread_name_prefix="packlab-check")
    asked = {address: pool.submit(client.run, worker_state, sandboxed, workers=[address],
                                  on_error="return") for address in workers}
    done, _ = wait(asked.values(), timeout=timeout)
    pool.shutdown(wait=False)  # a stuck worker's thread ends when the client closes
    states: dict[str, object] = {}
    for address, future in asked.items():
        if future not in done:
            states[address] = TimeoutError(f"it did not answer within {timeout:g} s; restart it")
        elif future.exception() is not None:
            states[address] = future.exception()
        else:
            states[address] = future.result().get(address, KeyError("it left the cluster"))
    return states


def _done(graded: Graded) -> Future:
    future: Future = Future()
    future.set_result(graded)
    return future


def _contents(task: Task) -> bytes | str:
    """The notebook's bytes to send, or why it cannot be sent: read as the grader reads it
    (`handed_in.read`: a regular file, no link followed, at most SHIPPED_BYTES)."""
    try:
        return handed_in.read(task.notebook, SHIPPED_BYTES, "the notebook", task.submitted)
    except handed_in.TooLarge:
        return (f"the notebook is larger than {SHIPPED_BYTES >> 20} MB, too large to send to "
                "the grading cluster: clear its outputs (Edit, Clear Outputs of All Cells), "
                "save it and hand it in again")
    except handed_in.Refused as exc:
        return str(exc)
    except OSError as exc:
        return f"the notebook could not be read ({type(exc).__name__})"


def submit(executor: Executor, task: Task, limits: Limits, sandboxed: bool,
           groups: tuple[str, ...] | None) -> Future:
    """Grade ``task`` on the cluster, its notebook sent with it; what cannot be sent (or has
    nothing to grade) gets its reason here, without sending anything."""
    contents = task.problem if task.notebook is None else _contents(task)
    if isinstance(contents, str):
        return _done(grade_one(dataclasses.replace(task, notebook=None, problem=contents),
                               limits, sandboxed, groups))
    return executor.submit(grade_parcel, Parcel(task, contents), limits, sandboxed, groups,
                           fingerprint())


def grade_parcel(parcel: Parcel, limits: Limits, sandboxed: bool,
                 groups: tuple[str, ...] | None, expected: dict[str, str]) -> Graded:
    """Run on a worker: grade one sent submission as `grade_one` would where it was sent from."""
    task, state = parcel.task, worker_state(sandboxed)
    mine = state["fingerprint"]
    refusals = [describe(key, expected.get("files") if key in PARTS else expected[key],
                         mine.get("files") if key in PARTS else mine.get(key),
                         "the instructor")
                for key in expected if key != "files" and mine.get(key) != expected[key]]
    refusals += [f"its sandbox does not work: {state['sandbox']}"] if state["sandbox"] else []
    if refusals:  # not recorded as graded: the next run grades it again
        message = "the grading machine it was sent to cannot grade it: " + "; ".join(refusals)
        logging.getLogger("distributed.worker").warning("packlab: refused a submission: %s",
                                                        message)
        raise WorkerDiffers(message)
    with tempfile.TemporaryDirectory(prefix="packlab-submission-") as folder:
        copy = Path(folder) / task.notebook.name
        copy.write_bytes(parcel.notebook)
        graded = grade_one(dataclasses.replace(task, notebook=copy, submitted=None), limits,
                           sandboxed, groups)
    return _replaced(graded, folder, str(task.notebook.parent))


def _replaced(value, old: str, new: str):
    """``value`` (the grader's dataclasses, lists and strings) with ``old`` written ``new``."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list | tuple):
        return type(value)(_replaced(item, old, new) for item in value)
    if isinstance(value, dict):
        return {key: _replaced(item, old, new) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _replaced(getattr(value, f.name), old, new)
                                             for f in dataclasses.fields(value) if f.init})
    return value
