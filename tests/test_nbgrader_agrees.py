"""Real `nbgrader autograde` and packlab's grader give the same score to the same notebook.

The parity class (tests/parity_class.py, built once per session): in one throwaway course
directory nbgrader has released every assignment (conftest's released_course, so its gradebook
holds the test cells and their checksums), a handful of students submit to each (the reference
solution, gallery mutants, and the release with its visible test cell gutted), one `nbgrader
autograde` process grades them all, and every gradebook score must equal
`grade_notebook(...).score` for the same submitted notebook — cell by cell and in total.

The gutted release is two cases in one notebook: nbgrader puts the locked cell back from its
gradebook before running it (the test checks it did), so what nbgrader runs is the release as
handed out, which must score 0 under both graders; and packlab must say the cell had been edited.
One exercise is graded under proportional partial credit by both (parity_class.PROPORTIONAL).
The reference is also the check that every solution notebook runs top to bottom: nbgrader's
kernel runs it whole, and none of its cells may raise.
"""

from __future__ import annotations

import nbformat
import pytest
from conftest import EXERCISES
from parity_class import (
    RELEASE,
    cell_outputs,
    grade_id,
    mutant_names,
    nbgrader_scores,
    visible_id,
)

from autograder.checks import unwritten
from packlab.manifest import PROPORTIONAL as PROPORTIONAL_CREDIT

# One course directory and one autograde for the session (the `parity` fixture): one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("parity")]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_nbgrader_and_packlab_give_the_same_scores(parity, exercise):
    course_dir, log = parity.course_dir, parity.log
    exercise = parity.exercises[exercise.name]
    ours = parity.ours[exercise.name]
    class_ = list(ours)
    assert parity.returncode == 0, (f"nbgrader autograde failed (whole log: "
                                    f"{course_dir.parent / 'autograde.log'}):\n{log[-4000:]}")

    totals, cells = nbgrader_scores(course_dir, exercise, list(class_))

    problems = []
    for student, result in ours.items():
        assert result.error is None, f"{student}: packlab could not grade it: {result.error}"
        by_cell = {exercise.grade_id(g.name): g.points for g in result.groups}
        if round(totals[student], 2) != result.score or any(
                cells[student, gid] != pts for gid, pts in by_cell.items()):
            rows = "\n".join(f"    {gid:<24} nbgrader {cells[student, gid]:>4}  packlab {pts:>2}"
                             for gid, pts in by_cell.items())
            why = "\n".join(f.message() for g in result.groups for f in g.failures)[:1500]
            problems.append(
                f"{student}: nbgrader {totals[student]} != packlab {result.score} "
                f"(of {exercise.max_score})\n{rows}\n  nbgrader's graded cells printed:\n"
                f"{cell_outputs(course_dir, exercise, student)}\n"
                f"  packlab's failures:\n{why or '    (none)'}"
            )
    assert not problems, (f"{exercise.name}: the graders disagree\n" + "\n\n".join(problems)
                          + f"\n\nnbgrader's log (tail):\n{log[-2000:]}")
    # The hidden edge cases vary per student alike on both sides: nbgrader's kernel shows the
    # very calls packlab's grader made for that student.
    varied = 0
    for student, result in ours.items():
        hidden = [f for g in result.groups if not g.visible for f in g.failures]
        notebook = course_dir / "autograded" / student / exercise.name / f"{exercise.name}.ipynb"
        shown = "\n".join(str(out.get("evalue", "")) + str(out.get("text", ""))
                           + str(out.get("data", {}).get("text/plain", ""))
                           for cell in nbformat.read(notebook, as_version=4).cells
                           for out in cell.get("outputs", []))
        for failure in (f for f in hidden if not unwritten.is_unwritten(f)):
            assert failure.call in shown, (student, failure.call, shown[-3000:])
            varied += 1
    assert varied, "no student failed a hidden edge case: nothing showed the seeds agree"

    # Sanity, under both graders.
    assert totals["reference"] == ours["reference"].score == exercise.max_score
    # The reference is the solution notebook as written: nbgrader's kernel ran it top to bottom
    # ("Restart and run all", offline), and no cell of it raised.
    reference = nbformat.read(course_dir / "autograded" / "reference" / exercise.name
                              / f"{exercise.name}.ipynb", as_version=4)
    raised = [f"[{grade_id(cell)}] {out.ename}: {out.evalue}" for cell in reference.cells
              for out in cell.get("outputs", []) if out.output_type == "error"]
    assert not raised, raised
    ran = {grade_id(c): c.source for c in nbformat.read(
        course_dir / "autograded" / RELEASE / exercise.name / f"{exercise.name}.ipynb",
        as_version=4).cells}
    released = {grade_id(c): c.source
                for c in nbformat.read(exercise.release, as_version=4).cells}
    assert ran[visible_id(exercise)] == released[visible_id(exercise)] != "pass", \
        "nbgrader did not put the gutted test cell back: it did not grade the release"
    assert totals[RELEASE] == ours[RELEASE].score == 0
    assert any("had been edited" in note for note in ours[RELEASE].notes)
    for name in mutant_names(exercise):
        assert ours[name].score < exercise.max_score, f"{name} got full marks"
    if exercise.partial_credit == PROPORTIONAL_CREDIT:  # some cell got part of its points
        assert any(0 < cells[s, gid] < exercise.points[group] for s in class_
                   for group, gid in ((g, exercise.grade_id(g)) for g in exercise.points)), cells
