"""The learner's workspace: their own copies of the lessons and exercises, and a start page.

`make lab` serves this folder, so running a lesson or answering an exercise never changes the
course's own files, and pulling a new version of the course never overwrites the learner's work.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat

from packlab.course import course_map
from packlab.manifest import ROOT, Course, Lesson, load

START = "START.ipynb"
# Jupyter config read by the course's JupyterLab only (added to JUPYTER_CONFIG_PATH): its
# labconfig/page_config.json turns off nbgrader's instructor tools, the Jupyter news prompt and
# JupyterLab's build check (each page load ran `node yarn.js config` twice, 0.6 CPU-s, to offer
# a rebuild that the course's prebuilt JupyterLab never needs).
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


# Asking the kernel (importing ipykernel and jupyter_client) costs about a third of a
# CPU-second, which every learner's server on the hub would pay at each start (it rewrites the
# start page): the hub saves the answer once, when it sets up the learners' environment.
KERNEL_METADATA = Path(sys.prefix) / "share" / "packlab" / "kernel-metadata.json"


def kernel_metadata() -> dict:
    """The notebook metadata JupyterLab writes when the course's kernel starts: the kernelspec
    as installed and the kernel's language_info. A copy that already says so opens clean (no
    unsaved dot, no "Save changes?" on close); the committed notebooks cannot say it, since it
    names this machine's Python version. Read from `KERNEL_METADATA` when this environment's
    set-up saved it there (the class's hub does, see `save_kernel_metadata`)."""
    try:
        saved = json.loads(KERNEL_METADATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return installed_kernel_metadata()
    return saved if isinstance(saved, dict) else installed_kernel_metadata()


def save_kernel_metadata() -> Path:
    """Save this environment's kernel metadata where `kernel_metadata` reads it."""
    KERNEL_METADATA.parent.mkdir(parents=True, exist_ok=True)
    KERNEL_METADATA.write_text(json.dumps(installed_kernel_metadata()), encoding="utf-8")
    return KERNEL_METADATA


def installed_kernel_metadata() -> dict:
    """`kernel_metadata`, asked of the installed kernel itself."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        return {}
    return {"kernelspec": {"display_name": spec.display_name, "language": spec.language,
                           "name": "python3"},
            "language_info": json.loads(json.dumps(IPythonKernel.language_info))}


def learner_notebook(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` with the metadata this machine's kernel gives it (see `kernel_metadata`)."""
    notebook.metadata.update(kernel_metadata())
    return notebook


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


def start_page(course: Course, found: list[Update] = ()) -> nbformat.NotebookNode:
    """The course map, made from the manifest; what the course updated since the learner's
    copies were made (``found``, see `updates`); and a cell that shows the learner's progress."""
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
        "- Start an exercise over: `packlab reset 02` in a terminal, or "
        '`from packlab.course.workspace import reset; reset("02")` in a cell. Your version is '
        "kept beside it (`…mine-<date>.ipynb`) and the hints start again from the first. Then "
        "reopen the exercise (or *File → Reload Notebook from Disk*).",
        "",
        "These are your own copies: change anything. The originals stay untouched in the course "
        "folder.",
        "",
        *update_lines(list(found)),
        "## Where you stand",
        "",
        "Run the cell below (or `packlab progress` in a terminal): it checks your copy of each "
        "exercise, as it is saved.",
    ])
    cells = [nbformat.v4.new_markdown_cell(text, id="start"),
             nbformat.v4.new_code_cell(PROGRESS_CELL, id="progress")]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    return learner_notebook(notebook)


PROGRESS_CELL = "from packlab.course.progress import progress\n\nprogress()"
RECORD = ".packlab/copies.json"  # hidden: each copy's course original, as it was when copied


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _records(folder: Path) -> dict[str, str]:
    try:
        found = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def fresh_copy(folder: Path, original: Path) -> Path:
    """Write the learner's copy of ``original`` as handed out (with this machine's kernel
    metadata) and remember which version of the original it was."""
    copy = learner_copy(folder, original)
    copy.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(learner_notebook(nbformat.read(original, as_version=4)), copy)
    record = folder / RECORD
    record.parent.mkdir(parents=True, exist_ok=True)
    key = str(original.relative_to(ROOT))
    record.write_text(json.dumps({**_records(folder), key: _digest(original)}, indent=1),
                      encoding="utf-8")
    return copy


@dataclass(frozen=True)
class Update:
    """A course notebook that changed after the learner's copy was made."""

    title: str  # "Lesson 02: ...", "Exercise 02-greedy-pack"
    copy: Path  # the learner's copy, relative to the workspace
    command: str  # what brings the new version (the learner's copy is kept beside it)


def updates(folder: Path, course: Course | None = None) -> list[Update]:
    """The lessons and exercises whose course version is newer than the learner's copy: by the
    digest recorded when the copy was made, or (a copy from before that record) by date."""
    course = course or load()
    records = _records(folder)
    items = [(f"Lesson {lesson.slug[:2]}: {lesson.title}", lesson.path,
              f"packlab reset --lesson {lesson.slug[:2]}") for lesson in course.lessons]
    items += [(f"Exercise {exercise.name}", exercise.release,
               f"packlab reset {exercise.name[:2]}") for exercise in course.exercises]
    found = []
    for title, original, command in items:
        copy = learner_copy(folder, original)
        if not (original.is_file() and copy.is_file()):
            continue
        recorded = records.get(str(original.relative_to(ROOT)))
        newer = (_digest(original) != recorded if recorded is not None
                 else original.stat().st_mtime > copy.stat().st_mtime)
        if newer:
            found.append(Update(title, copy.relative_to(folder), command))
    return found


def update_lines(found: list[Update]) -> list[str]:
    """The start page's (markdown) notice of newer course notebooks; [] when there is none."""
    if not found:
        return []
    return ["## Updated in the course since you copied them", "",
            "The course has a newer version of these notebooks than your copy. Your copy stays "
            "as it is until you ask for the new one; the command keeps your version beside it "
            "(`…mine-<date>.ipynb`).", "",
            *[f"- {update.title} (`{update.copy}`): `{update.command}`" for update in found], ""]


def _kept_name(copy: Path) -> Path:
    """Where a reset keeps the learner's version: beside the copy, named for the moment (and
    numbered when a version was kept in the same second: none is ever written over)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    kept = copy.with_name(f"{copy.stem}.mine-{stamp}{copy.suffix}")
    number = 1
    while kept.exists():
        number += 1
        kept = copy.with_name(f"{copy.stem}.mine-{stamp}-{number}{copy.suffix}")
    return kept


def _work(path: Path) -> list[tuple[str, str]] | None:
    """What a learner can change in a notebook: each cell's kind and text (outputs and
    metadata follow from them); None when it cannot be read as a notebook."""
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001 - whatever is wrong with it, it is kept as it is
        return None
    return [(cell.cell_type, cell.source) for cell in notebook.cells]


def _keep(copy: Path, original: Path, say: Callable[[str], object]) -> Path | None:
    """Keep the learner's ``copy`` beside it unless it holds nothing that is not kept already:
    the handed-out cells, or the same cells as a version kept by an earlier reset (returned)."""
    work = _work(copy)
    if work is not None and work == _work(original):
        copy.unlink()
        say(f"{copy} had no changes of yours (the same cells as the handed-out one), so no "
            "copy of it was kept.")
        return None
    earlier = sorted(copy.parent.glob(f"{copy.stem}.mine-*{copy.suffix}"))
    same = next((path for path in earlier if work is not None and _work(path) == work), None)
    if same is not None:
        copy.unlink()
        say(f"Your version is the same as the one kept already as {same}, so no second copy "
            "was made.")
        return same
    kept = _kept_name(copy)
    copy.rename(kept)
    say(f"Your version is kept as {kept}.")
    return kept


def reset(key: str, folder: Path | None = None, lesson: bool = False,
          say: Callable[[str], object] = print) -> tuple[Path, Path | None]:
    """Put the handed-out version of an exercise (or, ``lesson``, a lesson) back in the
    workspace; the learner's version is kept beside it, and an exercise's hints start again from
    the first. A version with no changes of its own (the handed-out cells, or those of a version
    kept before) is not kept again. Says what it did with ``say``; returns the fresh copy and
    where the learner's version is kept (None when there was none, or nothing of theirs)."""
    from packlab.course.hints import forget

    folder = folder or default_folder()
    course = load()
    if lesson:
        original = _lesson_by_key(course, key).path
    else:
        exercise = course.exercise(key)
        original = exercise.release
        forget(exercise)
    copy = learner_copy(folder, original)
    kept = _keep(copy, original, say) if copy.exists() else None
    fresh_copy(folder, original)
    what = "lesson" if lesson else "exercise, and its hints start again from the first"
    say(f"{copy} is the handed-out {what}. If it is open in JupyterLab, reopen it (or File → "
        "Reload Notebook from Disk) before you save it again.")
    return copy, kept


def _lesson_by_key(course: Course, key: str) -> Lesson:
    found = [lesson for lesson in course.lessons if key in (lesson.slug, lesson.slug[:2])]
    if len(found) != 1:
        numbers = ", ".join(lesson.slug[:2] for lesson in course.lessons)
        raise KeyError(f"No lesson called {key!r}. The lessons are numbered {numbers}.")
    return found[0]


def prepare(folder: Path | None = None) -> Path:
    """Copy every lesson and exercise the learner does not have yet; write the start page."""
    folder = folder or default_folder()
    course = load()
    originals = [lesson.path for lesson in course.lessons]
    originals += [exercise.release for exercise in course.exercises]
    for original in originals:
        if original.exists() and not learner_copy(folder, original).exists():
            fresh_copy(folder, original)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(start_page(course, updates(folder, course)), folder / START)
    return folder
