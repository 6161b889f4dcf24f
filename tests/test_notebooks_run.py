"""Every lesson and every solution notebook runs top to bottom ("Restart and run all"), offline."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, EXERCISES
from nbclient import NotebookClient

from packlab.course import ROOT

pytestmark = pytest.mark.slow

NOTEBOOKS = [lesson.path for lesson in COURSE.lessons] + [e.source for e in EXERCISES]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_runs_top_to_bottom(path: Path):
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
