"""Making exercises/ from solutions/ with `nbgrader generate_assignment` (never by hand)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
NBGRADER = BIN / "nbgrader"


def nbgrader_env() -> dict[str, str]:
    """nbgrader calls `alembic` by name: put this environment's scripts first on PATH."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def release(assignment: str, course_dir: Path) -> None:
    """Run nbgrader's release of one assignment in ``course_dir``; raise with its log on failure."""
    done = subprocess.run(
        [str(NBGRADER), "generate_assignment", assignment, "--force"],
        cwd=course_dir, capture_output=True, text=True, env=nbgrader_env(),
    )
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader could not release {assignment}:\n{done.stderr[-3000:]}")
