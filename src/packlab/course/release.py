"""Making exercises/ from solutions/ with `nbgrader generate_assignment` (never by hand).

Several assignments are released by one nbgrader process, one after the other, as nbgrader's
own test suite runs its commands (its application, started, then reset): the same command
`nbgrader generate_assignment NAME --force` each time, without paying for Python, nbgrader and
the gradebook's start once per assignment (about 1.7 s of CPU each).

Each release is recorded (`RECORDS`): a digest of everything it was made from and one of what
it made. `packlab author check` believes a release current when both still match, instead of
releasing again into a scratch folder to compare (4.5 s of CPU); any other release is made
again and compared byte for byte, as before.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterator, Sequence
from importlib.metadata import version
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
    released = [line.removeprefix(DONE) for line in done.stdout.splitlines()
                if line.startswith(DONE)]
    for name in released:
        _record(name, course_dir)
    if done.returncode != 0:
        failed = next((name for name in names if name not in released), names[-1])
        raise RuntimeError(f"nbgrader could not release {failed}:\n{done.stderr[-3000:]}")


RECORDS = Path(".cache", "packlab", "releases")  # in the course folder: <assignment>.json


def _files(folder: Path) -> Iterator[tuple[str, Path]]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and ".ipynb_checkpoints" not in path.parts:
            yield str(path.relative_to(folder)), path


# The course's own code that a release runs: nbgrader_config.py's step of packlab's
# (UseStarterCode) and every module of the course's that importing it loads (a test holds this to
# what Python loads). The grader's suites and its other mutants play no part in a release.
RELEASE_CODE = ("autograder", "autograder.checks", "autograder.checks.gallery", "autograder.glue",
                "autograder.glue.release", "packlab", "packlab.manifest")


def release_code(name: str, course_dir: Path) -> list[tuple[str, Path]]:
    """The code the release of ``name`` runs, as (name, path): `RELEASE_CODE`'s modules and the
    starter course.toml names for it (a bug-fix exercise's), if any."""
    import importlib.util

    from autograder.checks import gallery
    from packlab.manifest import load

    files = [(module, Path(importlib.util.find_spec(module).origin)) for module in RELEASE_CODE]
    toml = course_dir / "course.toml"
    exercise = next((e for e in load(toml).exercises if e.name == name), None) \
        if toml.is_file() else None
    if exercise is not None and exercise.starter is not None:
        files.append((f"starter {exercise.starter}", gallery.GALLERY / f"{exercise.starter}.py"))
    return files


def made_from(name: str, course_dir: Path) -> str:
    """A digest of what the release of ``name`` is made from: its solution folder, the course's
    nbgrader_config.py and course.toml, the code the release runs (`release_code`) and the
    versions of Python, nbgrader, nbconvert and nbformat."""
    from autograder.checks.example_cache import digest

    course = course_dir.resolve()
    return digest(
        "\0".join([platform.python_version(),
                   *(version(p) for p in ("nbgrader", "nbconvert", "nbformat"))]),
        [*((f"solutions/{n}", p) for n, p in _files(course / "solutions" / name)),
         *((n, course / n) for n in ("nbgrader_config.py", "course.toml")
           if (course / n).is_file()),
         *release_code(name, course)])


def _made(name: str, course_dir: Path) -> str:
    from autograder.checks.example_cache import digest

    return digest("", _files(course_dir.resolve() / "exercises" / name))


def _record(name: str, course_dir: Path) -> None:
    """Note what the release of ``name`` was made from and what it made; quietly not, when
    the course folder cannot be written to (the release stands without it)."""
    if not (course_dir / "exercises" / name).is_dir():  # nbgrader's glob, "*": nothing named
        return
    path = course_dir / RECORDS / f"{name}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"from": made_from(name, course_dir),
                                    "made": _made(name, course_dir)}), encoding="utf-8")
    except OSError:
        pass


def recorded_current(name: str, course_dir: Path) -> bool:
    """Was exercises/<name> made by `packlab release` from exactly what solutions/<name> and
    the course hold now, and left as it was made?"""
    try:
        said = json.loads((course_dir / RECORDS / f"{name}.json").read_text(encoding="utf-8"))
        return said == {"from": made_from(name, course_dir), "made": _made(name, course_dir)}
    except (OSError, ValueError):
        return False


def alembic_head() -> str:
    """The revision of nbgrader's newest gradebook migration, as `alembic heads` prints it for
    nbgrader's migrations, read with alembic's own API in this process."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    return ScriptDirectory.from_config(config).get_current_head()


def _generate(names: list[str]) -> int:
    """`nbgrader generate_assignment NAME --force` for each name, in this process.

    A course's first release makes its gradebook, and nbgrader stamps a new gradebook with the
    revision it learns by running `alembic heads` as a program of its own (1.7 CPU-s); this
    process reads the same revision with alembic's API instead (`alembic_head`)."""
    import nbgrader.api
    from jupyter_core.application import NoStart
    from nbgrader.apps.nbgraderapp import NbGraderApp

    nbgrader.api.get_alembic_version = alembic_head

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
