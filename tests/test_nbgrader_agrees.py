"""Real `nbgrader autograde` and packlab's grader give the same score to the same notebook.

One throwaway course directory for every assignment: nbgrader has released them all (conftest's
released_course, so its gradebook holds the test cells and their checksums), a handful of students
submit to each (the reference solution, gallery mutants, and the release with its visible test cell
gutted), one `nbgrader autograde` process grades them all, and every gradebook score must equal
`grade_notebook(...).score` for the same submitted notebook — cell by cell and in total.

The gutted release is two cases in one notebook: nbgrader puts the locked cell back from its
gradebook before running it (the test checks it did), so what nbgrader runs is the release as
handed out, which must score 0 under both graders; and packlab must say the cell had been edited.

`make test` hands in one gallery mutant per assignment (a sample); `make bench`
(benchmarks/parity.py, ``PACKLAB_PARITY=full``) hands in PER_ASSIGNMENT of them.

One exercise (`PROPORTIONAL`) is graded under the proportional partial-credit policy instead of
the course's default: nbgrader's kernels read a course.toml saying so for that exercise
(PACKLAB_COURSE_TOML), and its test cells output the partial score, which nbgrader reads as the
cell's credit.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from conftest import EXERCISES, submit, with_answer

from autograder.checks import gallery, unwritten
from autograder.run.engine import grade_notebook
from packlab import manifest
from packlab.course.release import NBGRADER, nbgrader_env
from packlab.manifest import PROPORTIONAL as PROPORTIONAL_CREDIT
from packlab.manifest import Exercise

# One course directory and one autograde for the module (the `parity` fixture): one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("parity")]

# Per suite, in order of preference: mutants that fail for different reasons (a wrong loop, a
# wrong comparison, a wrong type or key, mutating the caller's list). Each assignment takes the
# first PER_ASSIGNMENT of them that are not its starter code (that one is the release already);
# `make test` takes the first SAMPLE of those.
PER_ASSIGNMENT = 3
SAMPLE = 1
FULL = os.environ.get("PACKLAB_PARITY") == "full"
RELEASE = "release"  # the release, with its visible test cell replaced by `pass`
PROPORTIONAL = "02-greedy-pack"  # graded with proportional partial credit, by both graders


def proportional_course(folder: Path, exercise: Exercise) -> tuple[Exercise, dict[str, str]]:
    """The exercise under proportional credit, and the environment that tells nbgrader's
    kernels so: a copy of course.toml in which that exercise (only) sets proportional."""
    toml = folder / "course.toml"
    text, found = re.subn(rf'^(name = "{re.escape(exercise.name)}")$',
                          rf'\1\npartial_credit = "{PROPORTIONAL_CREDIT}"',
                          manifest.MANIFEST.read_text(encoding="utf-8"), count=1, flags=re.M)
    toml.write_text(text, encoding="utf-8")
    assert found and manifest.load(toml).exercise(exercise.name).partial_credit == \
        PROPORTIONAL_CREDIT
    assert all(manifest.load(toml).exercise(e.name).partial_credit == e.partial_credit
               for e in EXERCISES if e.name != exercise.name)
    return (dataclasses.replace(exercise, partial_credit=PROPORTIONAL_CREDIT),
            {"PACKLAB_COURSE_TOML": str(toml)})


def mutant_names(exercise: Exercise) -> list[str]:
    """A few of the exercise's gallery mutants, spread over the gallery (the starter left out)."""
    names = [m.name for m in gallery.every()
             if m.suite == exercise.suite and m.key != exercise.starter]
    step = max(1, len(names) // PER_ASSIGNMENT)
    return names[::step][:PER_ASSIGNMENT if FULL else SAMPLE]


def students(exercise: Exercise) -> dict[str, nbformat.NotebookNode]:
    """Student id -> the notebook they hand in for ``exercise``."""
    gutted = nbformat.read(exercise.release, as_version=4)
    visible = [c for c in gutted.cells if grade_id(c) == visible_id(exercise)]
    assert len(visible) == 1
    visible[0].source = "pass"
    class_ = {"reference": with_answer(exercise, None), RELEASE: gutted}
    for name in mutant_names(exercise):
        mutant = gallery.load(f"{exercise.suite}/{name}")
        assert mutant.suite == exercise.suite
        class_[name] = with_answer(exercise, mutant.code)
    return class_


def grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def visible_id(exercise: Exercise) -> str:
    """The grade_id of the exercise's (first step's) visible test cell."""
    return exercise.grade_id(next(iter(exercise.points)))


def nbgrader_scores(course_dir: Path, exercise: Exercise, ids: list[str]):
    """(student -> total, (student, grade_id) -> cell score) from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    totals, cells = {}, {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", course_id="packlab") as gb:
        for student in ids:
            totals[student] = gb.find_submission(exercise.name, student).score
            for group in exercise.points:
                grade_id = exercise.grade_id(group)
                cells[student, grade_id] = gb.find_grade(grade_id, exercise.name, exercise.name,
                                                         student).score
    return totals, cells


def cell_outputs(course_dir: Path, exercise: Exercise, student: str) -> str:
    """What nbgrader's run of the graded cells printed, to explain a disagreement."""
    path = course_dir / "autograded" / student / exercise.name / f"{exercise.name}.ipynb"
    if not path.exists():
        return "    (no autograded notebook)"
    lines = []
    for cell in nbformat.read(path, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade"):
            continue
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                text = f"{out.ename}: {out.evalue}"
            else:
                text = out.get("text") or str(out.get("data", ""))
            lines.append(f"    [{meta['grade_id']}] {out.output_type}: {text.strip()[:600]}")
    return "\n".join(lines)


@dataclasses.dataclass
class Parity:
    """Both graders' run over every assignment's class."""

    course_dir: Path
    exercises: dict[str, Exercise]  # as graded (PROPORTIONAL under its policy)
    ours: dict[str, dict]  # assignment -> student -> packlab's result
    returncode: int  # nbgrader autograde's
    log: str  # nbgrader autograde's


@pytest.fixture(scope="module")
def parity(released_course, tmp_path_factory) -> Parity:
    """Every class handed in to one copy of the released course, graded by one `nbgrader
    autograde` process while packlab grades the same files."""
    root = tmp_path_factory.mktemp("parity")
    course_dir = root / "course"
    shutil.copytree(released_course, course_dir)  # solutions, release, gradebook with checksums
    graded = {exercise.name: exercise for exercise in EXERCISES}
    graded[PROPORTIONAL], policy_env = proportional_course(root, graded[PROPORTIONAL])
    paths = {name: {s: submit(course_dir / "submitted", s, exercise, nb)
                    for s, nb in students(exercise).items()}
             for name, exercise in graded.items()}

    autograde = subprocess.Popen(
        [str(NBGRADER), "autograde", "*", "--force", "--Autograde.create_student=True"],
        cwd=course_dir, env={**nbgrader_env(), **policy_env}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        ours = {name: {s: grade_notebook(path, graded[name], s) for s, path in class_.items()}
                for name, class_ in paths.items()}
        log, _ = autograde.communicate(timeout=300 * len(graded))
    finally:
        if autograde.poll() is None:
            autograde.kill()
            autograde.wait()
    (root / "autograde.log").write_text(log, encoding="utf-8")
    return Parity(course_dir, graded, ours, autograde.returncode, log)


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
