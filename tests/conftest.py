"""Shared helpers: the course manifest and submissions built from the released notebooks."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from packlab.course.manifest import Exercise, load

COURSE = load()
EXERCISES = COURSE.exercises


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
