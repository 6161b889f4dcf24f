"""The course as an HTML book (Jupyter Book 1.x), built offline from the course manifest.

``build(out_dir)`` lays out a staging folder ``out_dir/_build/source`` (never writing into
lessons/ or exercises/): the book's config, pages and CSS from book/, a ``_toc.yml`` and a course
map generated from course.toml, the guide pages (book/*.md, book/instructors/*.md),
docs/jupyterhub.md, the lessons, executed here (in parallel, without widget state, failing on the
first error), the released exercises (not executed: their answer cells raise
NotImplementedError) and MathJax from the django-static-mathjax wheel. Then
``jupyter-book build --warningiserror`` writes the HTML to ``out_dir/_build/html``, which
``build`` returns.

Nothing on a page comes from a CDN: MathJax is local, the ipywidgets embed scripts are never
loaded, and each view shows its static rendering (see packlab.views.static).

``python -m packlab.course.book [OUT_DIR]`` (``make book``: OUT_DIR = book) does the same from
a shell.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path

import nbformat

from packlab.course.course_map import table as course_map_table
from packlab.manifest import ROOT, Course, load

BOOK = ROOT / "book"
EXECUTION_TIMEOUT = 600  # seconds per cell; a whole lesson takes 5-30 s
MAP_MARKER = "<!-- course-map"
# The guide pages, by part, in reading order (each a Markdown page under book/, without ".md").
GUIDES = {
    "Using the course": ["learners", "presenters"],
    "For instructors": ["instructors", "instructors/setting-up", "instructors/grading",
                        "instructors/gradebook", "instructors/feedback", "instructors/analytics",
                        "instructors/new-exercise", "instructors/plain-nbgrader",
                        "instructors/trust", "instructors/scale", "docs/jupyterhub",
                        "instructors/kubernetes"],
    "About packlab": ["speed", "repository"],
}
# Text that a released exercise page must never contain: solution and hidden-test markers.
FORBIDDEN = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
# MathJax 3 files the book needs (the wheel also holds SVG output, speech rules, sources).
MATHJAX_KEEP = {"tex-chtml.js", "input", "output", "ui", "a11y", "adaptors"}
# Staged MathJax goes to <source>/_mathjax/mathjax and is served as _static/mathjax. Not in
# <source>/_static: Jupyter Book puts a <script> for every .js found there on every page.
MATHJAX_STAGE = "_mathjax"


class BookError(RuntimeError):
    """The book cannot be built; the message says why, in one paragraph."""


def html_root(out_dir: Path) -> Path:
    """Where ``build(out_dir)`` puts the HTML (index.html and one page per document)."""
    return Path(out_dir).resolve() / "_build" / "html"


# ---------------------------------------------------------------------------------------------
# Staging: the book's source folder, generated from the manifest
# ---------------------------------------------------------------------------------------------


def lesson_doc(slug: str) -> str:
    return f"lessons/{slug}"


def exercise_doc(name: str) -> str:
    return f"exercises/{name}/{name}"


def toc(course: Course) -> str:
    """The _toc.yml: the intro, then every lesson, every exercise and the guide pages."""
    lines = ["# Generated from course.toml by src/packlab/course/book.py: do not edit.",
             "format: jb-book", "root: intro", "parts:"]
    lines += ["  - caption: Lessons", "    chapters:"]
    lines += [f"      - file: {lesson_doc(lesson.slug)}" for lesson in course.lessons]
    lines += ["  - caption: Exercises", "    chapters:"]
    lines += [f"      - file: {exercise_doc(e.name)}" for e in course.exercises]
    for caption, pages in GUIDES.items():
        lines += [f"  - caption: {caption}", "    chapters:"]
        lines += [f"      - file: {page}" for page in pages]
    return "\n".join(lines) + "\n"


def course_map(course: Course) -> str:
    """The intro page's table: each lesson, its exercises and the functions they ask for."""
    return course_map_table(course)


def _fill(template: Path, marker: str, content: str) -> str:
    text = template.read_text(encoding="utf-8")
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith(marker)]
    if len(at) != 1:
        raise BookError(f"{template.relative_to(ROOT)} needs exactly one line starting with "
                        f"{marker!r}, where the generated part goes.")
    lines[at[0]] = content.rstrip("\n")
    return "\n".join(lines) + "\n"


def _check_cells(exercise) -> str:
    """Which check cells a learner runs: the one under the answer, or each step's in turn."""
    if not exercise.steps:
        return "run the check cell under it"
    return (f"build it in {len(exercise.steps)} graded steps, running each step's check cell "
            "before adding the next idea")


def _hidden_share(exercise) -> str:
    """How much of an exercise's score the hidden tests decide, in words."""
    visible = sum(exercise.points[group] for group in exercise.visible_groups)
    return "most of them" if visible * 2 < exercise.max_score else "half of them"


def _exercise_note(exercise, number: str) -> nbformat.NotebookNode:
    """The cell put on top of an exercise page: it is to be done in JupyterLab."""
    path = f"workspace/exercises/{exercise.name}/{exercise.name}.ipynb"
    return nbformat.v4.new_markdown_cell(
        ":::{note}\n"
        f"This page shows exercise {number} as it is handed out: the task, the starter code and "
        "the visible checks, without any output. Do it in JupyterLab: `make lab` opens the "
        f"course, and your own copy of this notebook is `{path}`. Write "
        f"`{exercise.signature}` in the answer cell, then {_check_cells(exercise)} "
        f"({exercise.max_score} points in all, {_hidden_share(exercise)} from hidden tests). "
        "Stuck? "
        f"`packlab hint {number}` shows one more hint each time.\n:::"
    )


def _stage_exercise(exercise, target: Path) -> None:
    text = exercise.release.read_text(encoding="utf-8")
    for marker in FORBIDDEN:
        if marker in text:
            raise BookError(f"{exercise.release.relative_to(ROOT)} contains {marker!r}: the "
                            "release must not hold solutions or hidden tests (make release).")
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    # After the first cell (the title and what the exercise teaches), before the task.
    notebook.cells.insert(1, _exercise_note(exercise, exercise.name[:2]))
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)


def _stage_mathjax(folder: Path) -> None:
    es5 = resources.files("mathjax") / "static" / "mathjax" / "es5"
    if not es5.is_dir():
        raise BookError("MathJax is missing: install the book's dependencies "
                        "(pip install -e '.[book]').")

    def ignore(current: str, names: list[str]) -> set[str]:
        top = Path(current) == Path(str(es5))
        return {n for n in names if (top and n not in MATHJAX_KEEP) or "svg" in n or n == "sre"}

    shutil.copytree(str(es5), folder / "mathjax", ignore=ignore)


def stage(source: Path, course: Course | None = None) -> None:
    """Write the book's whole source folder (emptied first) from book/ and the manifest."""
    course = course or load()
    if source.exists():
        shutil.rmtree(source)
    (source / "lessons").mkdir(parents=True)
    shutil.copy2(BOOK / "_config.yml", source / "_config.yml")
    shutil.copytree(BOOK / "_static", source / "_static")  # the book's CSS, linked on every page
    (source / "_toc.yml").write_text(toc(course), encoding="utf-8")
    (source / "intro.md").write_text(
        _fill(BOOK / "intro.md", MAP_MARKER, course_map(course)), encoding="utf-8")
    for page in (p for pages in GUIDES.values() for p in pages):
        (source / page).parent.mkdir(parents=True, exist_ok=True)
        text = guide_file(page).read_text(encoding="utf-8")
        (source / f"{page}.md").write_text(book_links(text, page.count("/")), encoding="utf-8")
    for lesson in course.lessons:
        notebook = nbformat.read(lesson.path, as_version=4)
        nbformat.write(notebook, source / "lessons" / lesson.path.name)
    for exercise in course.exercises:
        _stage_exercise(exercise, source / f"{exercise_doc(exercise.name)}.ipynb")
    _stage_mathjax(source / MATHJAX_STAGE)


def guide_file(page: str) -> Path:
    """Where a guide page of `GUIDES` is in the repository."""
    return ROOT / f"{page}.md" if page.startswith("docs/") else BOOK / f"{page}.md"


def book_links(text: str, depth: int) -> str:
    """A guide page as the book shows it, ``depth`` folders down the book's source. Its links
    are written for the repository; in the book's source, book/'s pages sit at the top and
    docs/ beside them, one folder less up."""
    up = "../" * depth
    return text.replace(f"]({up}../docs/", f"]({up}docs/").replace(f"]({up}book/", f"]({up}")


def _is_thebe(script) -> bool:
    filename = getattr(script, "filename", script) or ""
    body = (getattr(script, "attributes", None) or {}).get("body", "")
    return filename == "sphinx-thebe.js" or "THEBE_JS_URL" in body


def setup(app) -> dict:
    """Sphinx extension (book/_config.yml loads it) that keeps every page offline.

    - The staged MathJax is served as _static/mathjax, added once Jupyter Book has read the
      configuration, so that the only MathJax file a page loads is ``mathjax_path``, and only on
      pages with math.
    - Jupyter Book always loads sphinx-thebe, which writes thebe's CDN address into a script on
      every page, for a launch button this book does not have: both of its scripts are dropped.
    """

    def add_mathjax(app, config) -> None:
        config.html_static_path = [*config.html_static_path, MATHJAX_STAGE]

    def drop_thebe(app, pagename, templatename, context, doctree) -> None:
        scripts = context.get("script_files")
        if scripts:
            scripts[:] = [script for script in scripts if not _is_thebe(script)]

    app.connect("config-inited", add_mathjax)
    app.connect("html-page-context", drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# ---------------------------------------------------------------------------------------------
# Executing the lessons
# ---------------------------------------------------------------------------------------------


def execute_notebook(path: str, out: str | None = None) -> float:
    """Run one notebook top to bottom in its own folder and save it with its outputs (to ``out``
    when given, else in place); return seconds.

    Widget state is not saved: the book shows each view's static rendering instead.
    """
    from nbclient.exceptions import CellExecutionError

    from packlab.course.kernels import notebook_client

    start = time.perf_counter()
    notebook = nbformat.read(path, as_version=4)
    client = notebook_client(notebook, timeout=EXECUTION_TIMEOUT, kernel_name="python3",
                             store_widget_state=False,
                             resources={"metadata": {"path": str(Path(path).parent)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        raise BookError(f"{Path(path).name} failed to run, so the book is not built:\n{exc}")\
            from None
    nbformat.write(notebook, out or path)
    return time.perf_counter() - start


def execute_lessons(paths: Sequence[Path], jobs: int | None = None) -> dict[str, float]:
    """Execute the lessons, ``jobs`` at a time (default: one per core); seconds per lesson."""
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(paths)))
    if jobs == 1:
        return {p.name: execute_notebook(str(p)) for p in paths}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {p.name: pool.submit(execute_notebook, str(p)) for p in paths}
        try:
            return {name: future.result() for name, future in futures.items()}
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------


def build(out_dir: Path | str, jobs: int | None = None, quiet: bool = True,
          executed: Path | None = None) -> Path:
    """Build the book into ``out_dir/_build/html`` and return that folder.

    ``executed``: a folder holding every lesson already executed by `execute_notebook` (the tests
    execute each lesson once and share it); the lessons are executed here otherwise.
    Fails (BookError) when a lesson raises, or when Sphinx or myst-nb warns about anything.
    """
    out_dir = Path(out_dir).resolve()
    build_dir = out_dir / "_build"
    source = build_dir / "source"
    html = html_root(out_dir)
    course = load()
    stage(source, course)
    lessons = [source / "lessons" / lesson.path.name for lesson in course.lessons]
    if executed is None:
        execute_lessons(lessons, jobs)
    else:
        for path in lessons:
            if not (Path(executed) / path.name).is_file():
                raise BookError(f"{path.name} has no executed copy in {executed}")
            shutil.copy2(Path(executed) / path.name, path)
    for stale in (html, build_dir / ".doctrees", build_dir / "jupyter_execute"):
        shutil.rmtree(stale, ignore_errors=True)
    command = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
               "build", str(source), "--path-output", str(out_dir), "--builder", "html",
               "--warningiserror"]
    if quiet:
        command.append("--quiet")
    result = subprocess.run(command, capture_output=quiet, text=True)
    if result.returncode != 0:
        output = (result.stdout or "") + (result.stderr or "") if quiet else ""
        raise BookError(f"jupyter-book build failed (warnings count as errors):\n{output}")
    if not (html / "index.html").is_file():
        raise BookError(f"jupyter-book build made no {html / 'index.html'}")
    return html


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m packlab.course.book",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?", default=str(BOOK),
                        help="the HTML goes to OUT_DIR/_build/html (default: book)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="lessons executed at once (default: one per core)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        html = build(args.out_dir, args.jobs, quiet=False)
    except BookError as exc:
        print(f"packlab book: {exc}", file=sys.stderr)
        return 1
    print(f"The book is in {html} (index.html), built in {time.perf_counter() - start:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
