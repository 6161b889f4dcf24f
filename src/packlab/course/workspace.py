"""The learner's workspace: their own copies of the lessons and exercises, and a start page.

`make lab` serves this folder, so running a lesson or answering an exercise never changes the
course's own files, and pulling a new version of the course never overwrites the learner's work.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat

from packlab.course import course_map
from packlab.course.manifest import ROOT, Course, load

START = "START.ipynb"
# Jupyter config read by the course's JupyterLab only (added to JUPYTER_CONFIG_PATH): its
# labconfig/page_config.json turns off nbgrader's instructor tools and the Jupyter news prompt.
LAB_CONFIG = Path(__file__).with_name("lab_config")
# On the class's JupyterHub, read before it: nbgrader's Assignments tab (fetch, submit, feedback)
# is back, its instructor tools stay off.
HUB_LAB_CONFIG = LAB_CONFIG / "hub"


def server_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the course's JupyterLab server, its terminals and its kernels."""
    # The venv's bin/ first on PATH and VIRTUAL_ENV set, as `activate` does: `packlab hint 02`
    # works in a JupyterLab terminal (and `!packlab` in a cell) without activating anything.
    # The course's Jupyter config is added for this server only; the user's own is untouched.
    env = dict(os.environ if base is None else base)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = _first(bin_dir, env.get("PATH", ""))
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    env["JUPYTER_CONFIG_PATH"] = _first(str(LAB_CONFIG), env.get("JUPYTER_CONFIG_PATH", ""))
    if "JUPYTERHUB_API_TOKEN" in env:
        env["JUPYTER_CONFIG_PATH"] = _first(str(HUB_LAB_CONFIG), env["JUPYTER_CONFIG_PATH"])
    return env


def _first(folder: str, search_path: str) -> str:
    """``search_path`` (os.pathsep-separated) with ``folder`` first, and only there."""
    rest = [entry for entry in search_path.split(os.pathsep) if entry and entry != folder]
    return os.pathsep.join([folder, *rest])


def default_folder() -> Path:
    return Path(os.environ.get("PACKLAB_WORKSPACE") or ROOT / "workspace")


def learner_copy(folder: Path, original: Path) -> Path:
    """Where the learner's copy of a course notebook lives in the workspace."""
    return folder / original.relative_to(ROOT)


def course_copy_note(path: Path, folder: Path | None = None) -> str | None:
    """What to tell a learner who names the course's own copy of an exercise instead of theirs
    (None for any other file): `packlab check` would only ever find it unwritten."""
    originals = {exercise.release.resolve(): exercise for exercise in load().exercises}
    exercise = originals.get(Path(path).resolve())
    if exercise is None:
        return None
    mine = learner_copy(folder or default_folder(), exercise.release)
    return (f"{path} is the course's own copy of exercise {exercise.name}, which stays as "
            f"released: your work is in your copy, {mine}. Check that one: "
            f"packlab check {mine}")


def start_page(course: Course) -> nbformat.NotebookNode:
    """The course map, made from the manifest."""
    text = "\n".join([
        f"# {course.title}",
        "",
        course.tagline,
        "",
        "Work through the lessons in order, with the exercises beside them: open an exercise, "
        "write the function, and run its test cell until every check passes.",
        "",
        course_map.table(course),
        "",
        "## When you are stuck",
        "",
        "- Run the exercise's test cell: each failing check shows the call, what came back, what "
        "was expected and which lesson to revisit.",
        "- Ask for a hint in a terminal (*File → New → Terminal*): `packlab hint 02` — each call "
        "shows one more, questions first.",
        "- See where you stand: `packlab progress`.",
        "",
        "These are your own copies: change anything. The originals stay untouched in the course "
        "folder.",
    ])
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text, id="start")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    return notebook


def prepare(folder: Path | None = None) -> Path:
    """Copy every lesson and exercise the learner does not have yet; write the start page."""
    folder = folder or default_folder()
    course = load()
    originals = [lesson.path for lesson in course.lessons]
    originals += [exercise.release for exercise in course.exercises]
    for original in originals:
        copy = learner_copy(folder, original)
        if original.exists() and not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(original, copy)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(start_page(course), folder / START)
    return folder
