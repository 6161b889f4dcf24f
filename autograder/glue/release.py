"""nbgrader preprocessor for the release: a bug-fix exercise starts from its buggy starter.

nbgrader replaces a solution with ``raise NotImplementedError()``. For an exercise whose manifest
entry names a ``starter`` (a file of the mutant gallery), this puts the starter there instead.
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.checks import gallery
from packlab.manifest import load


class UseStarterCode(NbGraderPreprocessor):
    """Replace the answer cell of a bug-fix exercise with its starter code."""

    def preprocess(self, nb, resources):
        name = resources["nbgrader"]["assignment"]
        exercise = next((e for e in load().exercises if e.name == name), None)
        if exercise is None or exercise.starter is None:
            return nb, resources
        starter = gallery.load(exercise.starter).code.rstrip("\n")
        answer_id = exercise.grade_id("answer")
        cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id]
        if len(cells) != 1:
            raise ValueError(f"{name}: expected one answer cell with grade_id {answer_id!r}")
        cells[0].source = starter
        return nb, resources
