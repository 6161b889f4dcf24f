"""Making exercises/ from solutions/ with `nbgrader generate_assignment` (never by hand).

Several assignments are released by one nbgrader process, one after the other, as nbgrader's
own test suite runs its commands (its application, started, then reset): the same command
`nbgrader generate_assignment NAME --force` each time, without paying for Python, nbgrader and
the gradebook's start once per assignment (about 1.7 s of CPU each).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

BIN = Path(sys.executable).parent
NBGRADER = BIN / "nbgrader"
DONE = "released: "  # what the nbgrader process prints once an assignment is released


def nbgrader_env() -> dict[str, str]:
    """nbgrader calls `alembic` by name: put this environment's scripts first on PATH."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def release(assignments: str | Sequence[str], course_dir: Path) -> None:
    """Run nbgrader's release of each assignment (a name or nbgrader's glob) in ``course_dir``,
    in one process; raise with nbgrader's log of the first that fails."""
    names = [assignments] if isinstance(assignments, str) else list(assignments)
    done = subprocess.run(
        [sys.executable, "-m", __name__, *names],
        cwd=course_dir, capture_output=True, text=True, env=nbgrader_env(),
    )
    if done.returncode != 0:
        released = {line.removeprefix(DONE) for line in done.stdout.splitlines()
                    if line.startswith(DONE)}
        failed = next((name for name in names if name not in released), names[-1])
        raise RuntimeError(f"nbgrader could not release {failed}:\n{done.stderr[-3000:]}")


def _generate(names: list[str]) -> int:
    """`nbgrader generate_assignment NAME --force` for each name, in this process."""
    from jupyter_core.application import NoStart
    from nbgrader.apps.nbgraderapp import NbGraderApp

    for name in names:
        app = NbGraderApp.instance()
        try:
            app.initialize(["generate_assignment", name, "--force"])
            app.start()
        except NoStart:  # the subcommand ran (as `nbgrader`'s own launch ends)
            pass
        except SystemExit as exc:  # nbgrader's way to fail: its log already says why
            if exc.code:
                return int(exc.code) if isinstance(exc.code, int) else 1
        finally:
            app.reset()
        print(f"{DONE}{name}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_generate(sys.argv[1:]))
