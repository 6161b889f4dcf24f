"""Writing the answers the student install's visible checks read (`autograder.checks.recorded`).

Every visible check of a suite is run on the reference, every gallery mutant and released starter of
its exercises and a few answers of the wrong kind (`tried`), and each call of a reference function
made meanwhile is written with its answer to ``autograder/checks/suites/recorded/<suite>.json``:
``python -m autograder.checks.reference.record`` (every suite), or followed by exercise names or
numbers (their suites only).
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat

from autograder.checks import gallery
from autograder.checks.recorded import FOLDER, recorded, recording
from autograder.checks.suite import in_process_caller, run_group
from autograder.checks.suites import load
from packlab.manifest import load as load_course


def _defined(code: str, name: str, function: str) -> Callable:
    scope: dict = {}
    exec(compile(code, name, "exec"), scope)  # noqa: S102 - the course's own code
    return scope[function]


def _raises(*args: Any) -> None:
    raise ValueError("not this")


def _returning(value: Any) -> Callable:
    return lambda *args: value


def tried(suite: str) -> list[Callable]:
    """The answers the visible checks are recorded on: the reference, every gallery mutant and
    released starter of the suite's exercises, and answers of the wrong kind."""
    loaded = load(suite)
    functions = [loaded.reference.real(), _raises,
                 *(_returning(value) for value in (None, 7, "x", [], {}))]
    functions += [_defined(m.code, m.key, loaded.function) for m in gallery.every()
                  if m.suite == suite]
    for exercise in load_course().exercises:
        if exercise.suite == suite and exercise.release.is_file():  # not released yet: no starter
            release = nbformat.read(exercise.release, as_version=4)
            functions += [_defined(cell.source, exercise.name, loaded.function)
                          for cell in release.cells if cell.metadata.get("nbgrader", {}).get(
                              "grade_id") == exercise.grade_id("answer")]
    return functions


def answers(suite: str) -> dict[str, Any]:
    """The recorded answers of a suite's visible checks: every call of a reference function
    they make for the answers `tried`."""
    visible = [group for group in load(suite).groups if group.visible]
    with recording() as made, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for function in tried(suite):
            for group in visible:
                run_group(group, in_process_caller(function))
    return dict(sorted(made.items()))


def text(answers: dict[str, Any]) -> str:
    """The file's text: one call per line, so a change reads as a diff."""
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in answers.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def record(suites: list[str]) -> list[Path]:
    """Write the recorded answers of these suites; the paths written."""
    FOLDER.mkdir(exist_ok=True)
    written = []
    for suite in suites:
        path = FOLDER / f"{suite}.json"
        path.write_text(text(answers(suite)), encoding="utf-8")
        written.append(path)
    recorded.cache_clear()
    return written


def main(names: list[str] | None = None) -> None:
    """``python -m autograder.checks.reference.record [EXERCISE...]``: write the recorded answers
    of the named exercises' suites again (of every suite when none is named)."""
    names = sys.argv[1:] if names is None else names
    course = load_course()
    chosen = [course.exercise(name) for name in names] or list(course.exercises)
    for path in record(sorted({e.suite for e in chosen})):
        print(f"wrote {path.relative_to(FOLDER.parents[3])}")


if __name__ == "__main__":
    main()
