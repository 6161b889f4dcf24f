"""nbgrader plugin for `nbgrader export`: its raw_score column is the score before packlab's
corrections.

packlab writes the late penalty and the instructor's override into the gradebook as extra
credit on a submission's first test cell (`autograder.term.gradebook`), so that formgrader and
`nbgrader export` show the same total. nbgrader's own CSV export then gives that total as
``raw_score`` too. `RawScoreExport` writes nbgrader's CSV, then puts in ``raw_score`` the score
before any extra credit: the test cells' scores, or a grader's manual scores, alone. ``score``
stays the total.
"""

from __future__ import annotations

import csv
import io

from nbgrader.api import MissingEntry
from nbgrader.plugins import CsvExportPlugin

from autograder.term.corrections import number


def raw_score(submission) -> float:
    """A submission's score without any extra credit (packlab's corrections or a grader's)."""
    extra = sum(grade.extra_credit or 0 for notebook in submission.notebooks
                for grade in notebook.grades)
    return number(max(0.0, submission.score - extra))


class RawScoreExport(CsvExportPlugin):
    """nbgrader's CSV export, with ``raw_score`` before the late penalty and overrides."""

    def export(self, gradebook) -> None:
        super().export(gradebook)
        dest = self.to or "grades.csv"
        with open(dest, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            try:
                submission = gradebook.find_submission(row["assignment"], row["student_id"])
            except MissingEntry:
                continue
            row["raw_score"] = str(float(raw_score(submission)))
        text = io.StringIO()
        if rows:
            writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        with open(dest, "w", encoding="utf-8", newline="") as handle:
            handle.write(text.getvalue())
