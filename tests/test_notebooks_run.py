"""Every lesson runs top to bottom ("Restart and run all"), offline. Every solution notebook does
too, in tests/test_nbgrader_agrees.py: it is the parity class's reference, which nbgrader's kernel
runs whole (a kernel per solution here as well would run each twice)."""

from __future__ import annotations

import nbformat
import pytest
from conftest import COURSE, EXERCISES, executed

from packlab.course.kernels import notebook_client

pytestmark = pytest.mark.slow


def errors(notebook: nbformat.NotebookNode) -> list:
    return [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
            if o.output_type == "error"]


@pytest.mark.parametrize("lesson", COURSE.lessons, ids=lambda one: f"lessons/{one.path.name}")
def test_lesson_runs_top_to_bottom(executed_lessons, lesson):
    """Each lesson was run once this session (conftest.executed_lessons): it failed the run,
    naming the cell, if any cell raised."""
    assert not errors(executed(executed_lessons, lesson))


def test_a_failing_test_cell_says_why_and_run_all_goes_on():
    """What a learner sees when a check fails: the message in words (its code spans as code),
    then a line on stderr, which nbgrader scores 0; no error, so the cells below run too (the
    slider on the learner's own answer)."""
    from packlab.course.check import FAILED_NOTE

    exercise = EXERCISES[1]
    notebook = nbformat.read(exercise.release, as_version=4)
    notebook_client(notebook, timeout=120, kernel_name="python3",  # no allow_errors
                    resources={"metadata": {"path": str(exercise.release.parent)}}).execute()
    grade_id = exercise.grade_id("visible")
    visible = next(c for c in notebook.cells
                   if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    assert not errors(notebook)
    kinds = [(o.output_type, o.get("name")) for o in visible.outputs]
    assert kinds == [("display_data", None), ("stream", "stderr")], kinds
    report, note = visible.outputs
    assert note.text.strip() == FAILED_NOTE
    shown = report.data["text/plain"]
    assert f"`{exercise.function}` is not written yet: replace `raise NotImplementedError`" in shown
    assert f"packlab hint {exercise.name[:2]}`" in shown
    assert "Traceback" not in shown and "site-packages" not in shown
    page = report.data["text/html"]
    assert f"<code>{exercise.function}</code> is not written yet" in page and "`" not in page
    slider = notebook.cells[-1]
    assert "pack_beside" in slider.source and slider.outputs, "the cells below did not run"
