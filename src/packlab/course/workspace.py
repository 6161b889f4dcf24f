"""The learner's workspace: their own copies of the lessons and exercises, and a start page.

`make lab` serves this folder, so running a lesson or answering an exercise never changes the
course's own files, and pulling a new version of the course never overwrites the learner's work.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat

from packlab.course.manifest import ROOT, Course, load

START = "START.ipynb"


def default_folder() -> Path:
    return Path(os.environ.get("PACKLAB_WORKSPACE") or ROOT / "workspace")


def learner_copy(folder: Path, original: Path) -> Path:
    """Where the learner's copy of a course notebook lives in the workspace."""
    return folder / original.relative_to(ROOT)


def start_page(course: Course) -> nbformat.NotebookNode:
    """The course map, made from the manifest."""
    rows = ["| # | Lesson | Exercise | Function |", "|---|---|---|---|"]
    exercises = {e.name: e for e in course.exercises}
    for lesson in course.lessons:
        exercise = exercises[lesson.exercise]
        rows.append(
            f"| {lesson.slug[:2]} | [{lesson.title}](lessons/{lesson.slug}.ipynb) "
            f"| [{exercise.name}](exercises/{exercise.name}/{exercise.name}.ipynb) "
            f"| `{exercise.signature}` |"
        )
    text = "\n".join([
        f"# {course.title}",
        "",
        course.tagline,
        "",
        "Work through the lessons in order. Each one ends with an exercise: open it, write the "
        "function, and run its test cell until every check passes.",
        "",
        *rows,
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
