"""Gradescope: a zip that runs packlab's own grader, and the runner that zip calls.

``packlab gradescope ASSIGNMENT`` builds the zip (`build`). Gradescope unzips it into
``/autograder/source``, runs ``setup.sh`` once on its image, then ``run_autograder`` for every
submission; that script calls ``python -m autograder.glue.gradescope run`` (`run`), which grades the
one notebook in ``/autograder/submission`` exactly as ``packlab grade`` does — in the sandbox, never
trusting what the student's code printed — and writes ``/autograder/results/results.json``.
Where bubblewrap cannot build a sandbox (Docker's default seccomp profile refuses the user
namespaces it needs) it grades nothing: the results say so, score 0, with the reason and the
container settings that fix it (`CONTAINER_FIX`).

The zip holds what the trusted side runs for this one assignment (`course_files`): no attack or
mutant gallery, no other exercise's hidden tests. setup.sh makes the unzipped course readable by
root alone, and the sandbox's filesystem holds none of it either.

The course is laid out in the zip as in this repository, so `packlab.manifest.ROOT` is the unzipped
``source`` folder at run time. The base folder (default ``/autograder``) can be moved with
``--base`` or ``PACKLAB_AUTOGRADER_DIR`` (tests use a temporary one).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import stat
import sys
import tempfile
import zipfile
from pathlib import Path

BASE_ENV = "PACKLAB_AUTOGRADER_DIR"
DEFAULT_BASE = "/autograder"
NO_SANDBOX = ("The autograder could not start its sandbox on this Gradescope machine, so your "
              "code was not run and this score of 0 is not a grade. This is not a problem with "
              "your submission: your instructor can see why below and will regrade it.")
CONTAINER_FIX = (
    "For the instructor: packlab grades only inside its bubblewrap sandbox, and bubblewrap needs "
    "unprivileged user namespaces, which Docker's default seccomp profile refuses. Let the "
    "grading container create them: run it with a seccomp profile that allows clone/unshare "
    "with CLONE_NEWUSER (docker run --security-opt seccomp=<that profile.json>, or "
    "seccomp=unconfined), on a host where the kernel allows unprivileged user namespaces "
    "(sysctl kernel.unprivileged_userns_clone=1 on Debian kernels, "
    "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04). Where Gradescope's "
    "container cannot be changed, grade with `packlab grade` on a machine where bubblewrap works "
    "and upload the scores.")
VENV = "/opt/packlab-venv"
STUDENT = "student"
# What a graded run needs from the course, besides the assignment's release (exercises/<name>/).
# The reference answers (solutions/) are not needed at run time, so they stay out of the zip.
COURSE_FILES = ("pyproject.toml", "README.md", "course.toml")
COURSE_TREES = ("src", "autograder")
# What only the instructor's tools use: the attack and mutant galleries (whole answers, some
# right), and the script that records the reference's answers. The hidden tests of other
# exercises are left out too (`_wanted`).
LEFT_OUT = ("autograder/checks/attacks", "autograder/checks/mutants",
            "autograder/checks/reference/record.py")
HIDDEN = "autograder/checks/hidden"
SKIPPED = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis"}
SKIPPED_SUFFIXES = (".pyc", ".egg-info")

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, on its Ubuntu image: a Python 3.11+ with venv, then the
# course (the folder this script is in, /autograder/source) installed into a venv of its own.
# Pick the Ubuntu 24.04 base image if you can (its python3 is 3.12); on 22.04 this installs 3.11.
set -euo pipefail
SOURCE="$(cd "$(dirname "$0")" && pwd)"
VENV="${PACKLAB_VENV:-__VENV__}"
export DEBIAN_FRONTEND=noninteractive

good_python() {
    for candidate in python3 python3.13 python3.12 python3.11; do
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c \
            'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

PYTHON="$(good_python || true)"
if [ -z "$PYTHON" ]; then
    apt-get update
    apt-get install -y python3 python3-venv python3-pip
    PYTHON="$(good_python || true)"
fi
# packlab's sandbox (bubblewrap). It needs unprivileged user namespaces, which Docker's default
# seccomp profile refuses: where the container forbids them, every submission gets score 0 and
# the reason (nothing is graded without the sandbox), until the container allows them.
command -v bwrap >/dev/null 2>&1 || { apt-get update && apt-get install -y bubblewrap; } || true
if [ -z "$PYTHON" ]; then
    apt-get install -y python3.11 python3.11-venv
    PYTHON="$(good_python || true)"
fi
if [ -z "$PYTHON" ]; then
    echo "setup.sh: packlab needs Python 3.11 or newer with venv; none could be installed." >&2
    exit 1
fi

"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --upgrade pip
"$VENV/bin/python" -m pip install -e "$SOURCE"
# The grader must import the course from $SOURCE (the course reads course.toml and exercises/
# from there): fail the setup now rather than every submission later.
PYTHONPATH="$SOURCE/src:$SOURCE" "$VENV/bin/python" -c \
    "import autograder.glue.gradescope as g, sys; sys.exit(g.check_root('$SOURCE'))"
# The course (its hidden tests and reference answers) is root's alone.
chmod -R go-rwx "$SOURCE"
# Say now, loudly, if this container cannot run the sandbox.
PYTHONPATH="$SOURCE/src:$SOURCE" "$VENV/bin/python" -c \
    "import autograder.glue.gradescope as g, sys; sys.exit(g.check_sandbox())" || true
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission, as root. It grades /autograder/submission with
# packlab's sandboxed grader (autograder/glue/gradescope.py) and always leaves a results.json.
# PACKLAB_AUTOGRADER_DIR moves /autograder; PACKLAB_PYTHON picks the interpreter.
set -u
umask 077  # what grading writes into the course (its stored examples, .cache/) stays root's too
ASSIGNMENT=__ASSIGNMENT__
BASE="${PACKLAB_AUTOGRADER_DIR:-/autograder}"
SOURCE="$BASE/source"
RESULTS="$BASE/results/results.json"
PYTHON="${PACKLAB_PYTHON:-}"
if [ -z "$PYTHON" ]; then
    if [ -x "__VENV__/bin/python" ]; then PYTHON="__VENV__/bin/python"; else PYTHON=python3; fi
fi

mkdir -p "$BASE/results"
rm -f "$RESULTS"
chmod -R go-rwx "$SOURCE" 2>/dev/null  # the course is root's alone (setup.sh does it too)
cd "$SOURCE"  # if it is missing, the grader fails below and says so
# Import the course from the unzipped source folder, whatever else is installed.
PYTHONPATH="$SOURCE/src:$SOURCE" PACKLAB_AUTOGRADER_DIR="$BASE" \
    "$PYTHON" -m autograder.glue.gradescope run --assignment "$ASSIGNMENT" --base "$BASE"
status=$?

if [ ! -s "$RESULTS" ]; then
    # The grader itself failed (not the student's code, which cannot stop it): say so.
    message="The autograder could not run (exit status $status). This is not a problem"
    message="$message with your submission: please tell your instructor."
    printf '{"score": 0, "output": "%s", "tests": []}\n' "$message" > "$RESULTS"
fi
exit 0
"""


# --- building the zip -----------------------------------------------------------------------


def _tree(root: Path, top: Path) -> list[Path]:
    """Every file under ``top`` worth shipping (no caches, no build leftovers)."""
    files = []
    for folder, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not d.endswith(SKIPPED_SUFFIXES))
        for name in sorted(names):
            if not name.endswith(SKIPPED_SUFFIXES):
                files.append(Path(folder, name).relative_to(root))
    return files


def _wanted(path: Path, suite: str) -> bool:
    """Whether the zip of an exercise graded by ``suite`` needs this course file."""
    name = path.as_posix()
    if any(name == left or name.startswith(f"{left}/") for left in LEFT_OUT):
        return False
    if name.startswith(f"{HIDDEN}/"):
        return path.name in ("__init__.py", f"{suite}.py")
    return True


def course_files(root: Path, assignment: str, suite: str) -> list[Path]:
    """The course files the zip holds, relative to ``root``: what grading ``assignment`` (whose
    tests are ``suite``'s) runs on the trusted side, nothing more."""
    files = [Path(name) for name in COURSE_FILES]
    for top in (*COURSE_TREES, f"exercises/{assignment}"):
        files += [path for path in _tree(root, root / top) if _wanted(path, suite)]
    missing = [str(f) for f in files if not (root / f).is_file()]
    if missing:
        raise FileNotFoundError(f"the course is missing {', '.join(missing)}")
    return files


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # same bytes on every build
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def scripts(assignment: str) -> dict[str, str]:
    """setup.sh and run_autograder for one assignment."""
    return {
        "setup.sh": SETUP_SH.replace("__VENV__", VENV),
        "run_autograder": RUN_AUTOGRADER.replace("__ASSIGNMENT__", shlex.quote(assignment))
                                        .replace("__VENV__", VENV),
    }


def build(assignment: str, out: Path, root: Path | None = None) -> list[str]:
    """Write the Gradescope autograder zip for ``assignment``; return the names it holds."""
    from packlab.manifest import ROOT, load

    root = root or ROOT
    exercise = load().exercise(assignment)
    if not exercise.release.is_file():
        raise FileNotFoundError(f"{exercise.release} is missing: run `packlab release` first")
    names = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as archive:
        for name, text in scripts(exercise.name).items():
            _add(archive, name, text.encode(), executable=True)
            names.append(name)
        for path in course_files(root, exercise.name, exercise.suite):
            _add(archive, path.as_posix(), (root / path).read_bytes())
            names.append(path.as_posix())
    return names


# --- running it on Gradescope ---------------------------------------------------------------


def check_root(source: str) -> int:
    """0 when the course in use is the one in ``source`` (setup.sh's last check)."""
    from packlab.manifest import ROOT

    if ROOT.resolve() == Path(source).resolve():
        return 0
    print(f"packlab is imported from {ROOT}, not from {source}", file=sys.stderr)
    return 1


def check_sandbox() -> int:
    """0 when bubblewrap builds a sandbox in this container; else say why, loudly (setup.sh).
    Either way, say how a submission's memory is bounded here."""
    from autograder.run import footprint, isolation
    from autograder.run.isolation import Limits

    problem = isolation.sandbox_problem()
    if problem is None:
        print(f"packlab: the sandbox works here. {footprint.describe(Limits().footprint_bytes)}",
              file=sys.stderr)
        return 0
    banner = "!" * 78
    print(f"{banner}\nWARNING: packlab cannot start its sandbox here: {problem}.\nEvery "
          f"submission will score 0 with this reason until it can.\n{CONTAINER_FIX}\n{banner}",
          file=sys.stderr)
    return 1


def find_notebook(folder: Path, assignment: str) -> tuple[Path | None, str]:
    """The submitted notebook, and a note on how it was chosen (or why none was)."""
    found = sorted(p for p in folder.rglob("*.ipynb")
                   if p.is_file() and ".ipynb_checkpoints" not in p.parts) if folder.is_dir() \
        else []
    wanted = f"{assignment}.ipynb"
    named = [p for p in found if p.name == wanted]
    listing = ", ".join(str(p.relative_to(folder)) for p in found)
    if len(named) == 1:
        return named[0], ""
    if len(named) > 1:
        return None, (f"the submission holds {len(named)} notebooks called {wanted} ({listing}): "
                      "submit just one")
    if len(found) == 1:
        return found[0], (f"Your notebook is called {found[0].name}, not {wanted}; it was graded "
                          "anyway.")
    if not found:
        others = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) \
            if folder.is_dir() else []
        return None, (f"the submission holds no notebook (.ipynb); expected {wanted}"
                      + (f" (found: {', '.join(others[:20])})" if others else ""))
    return None, (f"the submission holds {len(found)} notebooks ({listing}) and none is called "
                  f"{wanted}: submit {wanted} alone, or rename the one to grade")


def grade_submission(assignment: str, base: Path) -> dict:
    """Grade ``base``/submission with packlab's grader; return its Gradescope results."""
    from autograder import outfolder
    from autograder.cohort import report
    from autograder.cohort.task import Task, grade_task
    from autograder.run import isolation
    from autograder.run.engine import Result
    from autograder.run.isolation import Limits
    from packlab.manifest import ROOT, load

    exercise = load().exercise(assignment)
    submission = base / "submission"
    notebook, note = find_notebook(submission, exercise.name)
    with tempfile.TemporaryDirectory(prefix="packlab-gradescope-") as tmp:
        submitted, graded = Path(tmp) / "submitted", Path(tmp) / "graded"
        if notebook is None:
            result = Result(STUDENT, exercise.name, max_score=exercise.max_score, error=note)
        else:
            # nbgrader's layout, as `packlab grade` reads it: SUBMITTED/<student>/<assignment>/.
            copy = submitted / STUDENT / exercise.name / f"{exercise.name}.ipynb"
            copy.parent.mkdir(parents=True)
            shutil.copyfile(notebook, copy)
            problem = isolation.sandbox_problem()
            if problem is None:
                result = grade_task(Task(STUDENT, exercise.name, copy), Limits())
                if note:
                    result.notes.insert(0, note)
            else:  # fail closed: no sandbox, no grading
                print(f"packlab: not grading: {problem}. {CONTAINER_FIX}", file=sys.stderr)
                result = Result(STUDENT, exercise.name, max_score=exercise.max_score,
                                error=f"{NO_SANDBOX}\n\nWhy: {problem}.\n\n{CONTAINER_FIX}",
                                sandbox="")  # nothing ran: no sandbox to name
        # The same writer as `packlab grade`: its results.json is what Gradescope gets.
        report.write_submission(graded, result)
        folder = outfolder.submission_folder(graded, STUDENT, exercise.name)
        data = json.loads((folder / "results.json").read_text())
    data["extra_data"]["course_root"] = str(ROOT)
    return data


def run(assignment: str, base: Path) -> int:
    """Grade the submission and write results/results.json; 0 unless the grader itself broke."""
    from autograder.outfolder import write_atomically

    data = grade_submission(assignment, base)
    write_atomically(base / "results" / "results.json", json.dumps(data, indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    top = argparse.ArgumentParser(prog="python -m autograder.glue.gradescope", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)
    grade = sub.add_parser("run", help="grade /autograder/submission into results/results.json")
    grade.add_argument("--assignment", required=True)
    grade.add_argument("--base", default=os.environ.get(BASE_ENV, DEFAULT_BASE),
                       help=f"Gradescope's folder (default: ${BASE_ENV} or {DEFAULT_BASE})")
    zip_ = sub.add_parser("build", help="build the autograder zip (as `packlab gradescope`)")
    zip_.add_argument("assignment")
    zip_.add_argument("--out", required=True)
    args = top.parse_args(argv)
    if args.command == "build":
        build(args.assignment, Path(args.out))
        return 0
    return run(args.assignment, Path(args.base))


if __name__ == "__main__":
    raise SystemExit(main())
