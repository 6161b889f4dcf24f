"""Notebooks are committed clean: no outputs, no execution counts, one python3 kernelspec."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from packlab.manifest import ROOT

NOTEBOOKS = sorted(
    p for folder in ("lessons", "solutions", "exercises")
    for p in (ROOT / folder).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_is_clean(path: Path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, f"{path.name}: a cell has outputs"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"
