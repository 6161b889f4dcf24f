"""Inside the sandbox: run one notebook with nbgrader's own `Execute` and a real kernel.

This file runs *inside* a plain assignment's sandbox (`autograder.run.kernel`), as ``python -S
-u -c <this file's text> REQUEST RESPONSE``, with the course environment's packages on its
path, read-only. It reads one JSON request, ``{"notebook": ..., "execute": {...}, "files":
{name: base64}, "env": {...}, "limits": {...}}``, writes the files that sat beside the notebook
into its working folder (read-only there), sets the environment nbgrader's autograde sets
(``NBGRADER_EXECUTION=autograde``), lowers its resource limits (which the kernel inherits), runs
the notebook as ``nbgrader autograde`` runs it (per-cell timeout, the cell interrupted and the
rest run) and answers ``{"notebook": ..., "stopped": why or null}``. The kernel runs the student's
code, which can reach this process: the trusted side believes none of the answer.
"""

import base64
import json
import os
import resource
import sys

LIMITS = {"cpu_seconds": resource.RLIMIT_CPU, "memory_bytes": resource.RLIMIT_AS,
          "file_bytes": resource.RLIMIT_FSIZE, "processes": resource.RLIMIT_NPROC}


def _write_files(files: dict) -> None:
    for name, data in files.items():
        path = os.path.join(os.getcwd(), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))
        os.chmod(path, 0o444)


def nbgrader_execute() -> type:
    """nbgrader's own `Execute` preprocessor, its module and its base class's module imported
    as nbgrader ships them, but without running the ``__init__`` of the packages ``nbgrader``
    and ``nbgrader.preprocessors``: those import nbgrader's Jupyter server extensions and every
    other preprocessor (Tornado, jupyter_server, SQLAlchemy), which Execute never uses, for
    0.5-0.6 CPU-s in each notebook's sandbox (pinned nbgrader 0.9.6; the parity tests grade
    the same notebooks with `nbgrader autograde` itself)."""
    import importlib.util

    for package in ("nbgrader", "nbgrader.preprocessors"):
        spec = importlib.util.find_spec(package)
        sys.modules[package] = importlib.util.module_from_spec(spec)  # its folder, not its code
    from nbgrader.preprocessors.base import NbGraderPreprocessor

    sys.modules["nbgrader.preprocessors"].NbGraderPreprocessor = NbGraderPreprocessor
    from nbgrader.preprocessors.execute import Execute

    return Execute


def main() -> None:
    requests = os.fdopen(int(sys.argv[1]), "r", encoding="utf-8")
    responses = os.fdopen(int(sys.argv[2]), "w", encoding="utf-8")
    start = json.loads(requests.read())
    requests.close()
    _write_files(start["files"])
    os.environ.update(start["env"])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name, which in LIMITS.items():
        value = int(start["limits"][name])
        resource.setrlimit(which, (value, value))
    import nbformat

    Execute = nbgrader_execute()
    notebook = nbformat.reads(json.dumps(start["notebook"]), as_version=4)
    stopped = None
    try:
        Execute(**start["execute"]).preprocess(notebook, {"metadata": {"path": os.getcwd()}})
    except Exception as exc:  # noqa: BLE001 - a dead kernel: what ran is kept, the rest not
        stopped = type(exc).__name__
    responses.write(json.dumps({"notebook": notebook, "stopped": stopped}))
    responses.flush()


if __name__ == "__main__":
    main()
