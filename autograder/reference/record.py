"""Writing the answers the student install's visible checks read (`autograder.recorded`).

Every visible check of a suite is run on the reference and on every gallery mutant of its
exercises, and each call of a reference function made meanwhile is written with its answer to
``autograder/suites/recorded/<suite>.json``: ``python -m autograder.reference.record``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from autograder import gallery
from autograder.recorded import FOLDER, recorded, recording
from autograder.suite import in_process_caller, run_group
from autograder.suites import load
from packlab.course.manifest import load as load_course


def answers(suite: str) -> dict[str, Any]:
    """The recorded answers of a suite's visible checks: run on the reference and every gallery
    mutant of its exercises."""
    loaded = load(suite)
    visible = [group for group in loaded.groups if group.visible]
    functions = [loaded.reference.real()]
    for mutant in gallery.every():
        if mutant.suite == suite:
            scope: dict = {}
            exec(compile(mutant.code, mutant.key, "exec"), scope)  # noqa: S102 - the gallery
            functions.append(scope[loaded.function])
    with recording() as made, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for function in functions:
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


def main() -> None:
    """``python -m autograder.reference.record``: write every suite's recorded answers again."""
    for path in record(sorted({e.suite for e in load_course().exercises})):
        print(f"wrote {path.relative_to(FOLDER.parents[2])}")


if __name__ == "__main__":
    main()
