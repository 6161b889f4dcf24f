"""Shared helpers: the course manifest, submissions built from the released notebooks, and the
slow artefacts (executed lessons, the book, a released course, the property checks' stored
examples) built once per test session."""

from __future__ import annotations

import fcntl
import hashlib
import json
import multiprocessing
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import leaks
import nbformat
import pytest
import scratch
from leaks import pytest_sessionfinish  # noqa: F401 - no process left running
from scheduling import (  # noqa: F401 - the longest work first; the ordinary user's tests in turn
    pytest_collection_modifyitems,
    pytest_runtest_setup,
)
from scratch import pytest_report_header, pytest_unconfigure  # noqa: F401 - scratch in memory

from packlab.manifest import ROOT, Exercise, load

COURSE = load()
EXERCISES = COURSE.exercises


def pytest_configure(config: pytest.Config) -> None:
    leaks.pytest_configure(config)
    scratch.configure(config)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Store the property checks' examples once, before any xdist worker starts, as `packlab
    release` does: every grader and notebook kernel of the session then reads them, instead of
    each drawing its own while none is stored yet (a fresh clone)."""
    if not hasattr(session.config, "workerinput"):  # the controller, or a run without xdist
        from autograder.checks import example_cache

        example_cache.prepare()


def with_answer(exercise: Exercise, code: str | None) -> nbformat.NotebookNode:
    """The released notebook with its answer cell replaced (None: the solution's answer)."""
    source = exercise.source if code is None else exercise.release
    notebook = nbformat.read(source, as_version=4)
    if code is not None:
        answer_id = exercise.grade_id("answer")
        for cell in notebook.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == answer_id:
                cell.source = code
    return notebook


def submit(root: Path, student: str, exercise: Exercise, notebook) -> Path:
    """Lay a notebook out as nbgrader's SUBMITTED/<student>/<assignment>/<assignment>.ipynb."""
    path = root / student / exercise.name / f"{exercise.name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(notebook, str):
        path.write_text(notebook)
    else:
        nbformat.write(notebook, path)
    return path


@pytest.fixture(autouse=True)
def _hint_state(tmp_path, monkeypatch):
    """Keep `packlab hint`'s memory out of the real home folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


# ---------------------------------------------------------------------------------------------
# Built once per test session, shared by every xdist worker
# ---------------------------------------------------------------------------------------------


def built_once(tmp_path_factory, worker_id: str, name: str,
               build: Callable[[Path], None]) -> Path:
    """The folder ``name`` that ``build(folder)`` fills, built once per test session.

    The xdist workers share the session's temporary root; the first to ask builds under a lock
    there, the others wait for it and read the result. A build that raises leaves nothing behind,
    so the next test to ask tries again (and fails with the same message).
    """
    shared = tmp_path_factory.getbasetemp()
    shared = shared if worker_id == "master" else shared.parent
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            done.touch()
    return folder


def _execute_lessons(folder: Path) -> None:
    """Each lesson executed once, in its own folder, as the book executes it (no widget state):
    ``folder/<lesson>.ipynb``, or ``folder/<lesson>.error`` with the failure when it raised."""
    from packlab.course import book

    before = _digest()
    # spawn, not fork: the test process has threads
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        runs = {lesson.path.name: pool.submit(book.execute_notebook, str(lesson.path),
                                              str(folder / lesson.path.name))
                for lesson in COURSE.lessons}
        for name, run in runs.items():
            try:
                run.result()
            except book.BookError as exc:
                (folder / name).with_suffix(".error").write_text(str(exc), encoding="utf-8")
    assert _digest() == before, "running the lessons changed lessons/ or exercises/"


@pytest.fixture(scope="session")
def executed_lessons(tmp_path_factory, worker_id) -> Path:
    """A folder with every lesson executed top to bottom (run once per test session): the
    notebook tests, the predict-and-reveal checks and the book all read these."""
    return built_once(tmp_path_factory, worker_id, "executed-lessons", _execute_lessons)


def executed(folder: Path, lesson) -> nbformat.NotebookNode:
    """The executed copy of ``lesson``; fails with the lesson's error when it did not run."""
    error = folder / f"{lesson.path.stem}.error"
    if error.is_file():
        pytest.fail(error.read_text(encoding="utf-8"), pytrace=False)
    return nbformat.read(folder / lesson.path.name, as_version=4)


@pytest.fixture(scope="session")
def built_book(tmp_path_factory, worker_id, executed_lessons) -> Path:
    """The HTML root of the book (`make book`), built once per test session from the executed
    lessons; lessons/ and exercises/ are left as they were."""
    from packlab.course import book

    def build(folder: Path) -> None:
        before = _digest()
        book.build(folder, executed=executed_lessons)
        assert _digest() == before, "building the book changed lessons/ or exercises/"

    return book.html_root(built_once(tmp_path_factory, worker_id, "book", build))


def _digest() -> dict[str, str]:
    """A hash of every file in lessons/ and exercises/."""
    return {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
            for top in ("lessons", "exercises") for p in sorted((ROOT / top).rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="session")
def released_course(tmp_path_factory, worker_id) -> Path:
    """A course folder (solutions/, nbgrader_config.py) in which one nbgrader process has
    released every exercise, one after the other as `packlab release` does: exercises/ and
    gradebook.db."""
    from packlab.course.release import release

    def build(folder: Path) -> None:
        shutil.copytree(ROOT / "solutions", folder / "solutions")
        shutil.copy(ROOT / "nbgrader_config.py", folder)
        release([exercise.name for exercise in EXERCISES], folder)

    return built_once(tmp_path_factory, worker_id, "released-course", build)


@pytest.fixture(scope="session")
def parity(released_course, tmp_path_factory):
    """Every assignment's class graded by real `nbgrader autograde` and by packlab on the same
    files, and nbgrader's feedback pages of one (tests/parity_class.py), once per session: the
    parity and feedback tests share it (one xdist group, "parity")."""
    from parity_class import grade

    return grade(released_course, tmp_path_factory.mktemp("parity"))


@pytest.fixture(scope="session")
def released_greedy_pack(tmp_path_factory, worker_id) -> Path:
    """A course folder in which one `nbgrader generate_assignment` released 02-greedy-pack alone
    (solutions/, exercises/, gradebook.db), built once per test session: the gradebook, feedback
    and feedback-route tests each copy it instead of releasing it again."""
    from packlab.course.release import release

    exercise = COURSE.exercise("02-greedy-pack")

    def build(folder: Path) -> None:
        shutil.copytree(ROOT / "solutions" / exercise.name, folder / "solutions" / exercise.name)
        shutil.copy(ROOT / "nbgrader_config.py", folder)
        release(exercise.name, folder)

    return built_once(tmp_path_factory, worker_id, "released-02-greedy-pack", build)


def undated(results: str) -> dict:
    """A results.json read with the times its attempts were graded left out: two gradings of
    the same notebook give the same file but for those (`extra_data.counted.attempts`)."""
    data = json.loads(results)
    for attempt in data.get("extra_data", {}).get("counted", {}).get("attempts", []):
        attempt["graded_at"] = ""
    return data


@pytest.fixture(scope="session")
def rehearsal(tmp_path_factory):
    """One copy of the course in which the guides' pages run, each once (tests/guide_walk.py):
    tests/test_guides.py and tests/test_authoring.py share it (one xdist group, "guides")."""
    from guide_walk import Rehearsal, copy_course, environment

    course = copy_course(tmp_path_factory.mktemp("guides") / "course")
    return Rehearsal(course, environment(course))
