"""The parity class: every assignment handed in by a few students to one copy of the released
course, graded by one real `nbgrader autograde` process while packlab grades the same files.

Built once per test session (conftest's `parity` fixture calls `grade`) and read by
tests/test_nbgrader_agrees.py (the scores, cell by cell) and tests/test_nbgrader_feedback.py
(nbgrader's own feedback pages, from `nbgrader generate_feedback` of FEEDBACK in the same course):
both say `xdist_group("parity")`, so one worker builds it.

Each assignment's class: the reference solution, the release with its visible test cell gutted
(nbgrader puts it back from its gradebook, so it grades the release as handed out) and gallery
mutants. FEEDBACK's class also has RENAMER, a right answer under another name, handed to
nbgrader alone (its hidden cells raise NameError: the feedback test reads its page). Only the
reference hands in the picture cell (PICTURE), which nbgrader runs but never scores.

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
from conftest import EXERCISES, submit, with_answer

from autograder.checks import gallery
from autograder.run.engine import grade_notebook
from packlab import manifest
from packlab.course.release import NBGRADER, nbgrader_env
from packlab.manifest import PROPORTIONAL as PROPORTIONAL_CREDIT
from packlab.manifest import Exercise

# Per suite, in order of preference: mutants that fail for different reasons (a wrong loop, a
# wrong comparison, a wrong type or key, mutating the caller's list). Each assignment takes the
# first PER_ASSIGNMENT of them that are not its starter code (that one is the release already);
# `make test` takes the first SAMPLE of those.
PER_ASSIGNMENT = 3
SAMPLE = 1
FULL = os.environ.get("PACKLAB_PARITY") == "full"
RELEASE = "release"  # the release, with its visible test cell replaced by `pass`
PROPORTIONAL = "04-pack-report"  # graded with proportional partial credit, by both graders
FEEDBACK = "02-greedy-pack"  # `nbgrader generate_feedback` renders its class's pages
BREAKER = "break_at_first_miss"  # FEEDBACK's sampled mutant: the `break` bug
RENAMER = "renamer"  # handed in to FEEDBACK, graded by nbgrader alone
PICTURE = "try-it"  # the last cell's picture beside the lesson's: locked, never graded
# The attack gallery's right answer under another name.
RENAMED = (manifest.ROOT / "autograder" / "checks" / "attacks" / "renamed_function.py").read_text()


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
    class_ = {"reference": with_answer(exercise, None), RELEASE: without_picture(gutted)}
    for name in mutant_names(exercise):
        mutant = gallery.load(f"{exercise.suite}/{name}")
        assert mutant.suite == exercise.suite
        class_[name] = without_picture(with_answer(exercise, mutant.code))
    return class_


def without_picture(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook without its picture cell, which nbgrader runs (about 1 s of CPU in each
    kernel) but never scores, nor puts back when it is missing: the reference's run of it is
    enough, and tests/test_compare.py checks the picture with wrong answers."""
    notebook.cells = [cell for cell in notebook.cells if grade_id(cell) != PICTURE]
    return notebook


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
    feedback: subprocess.CompletedProcess  # `nbgrader generate_feedback FEEDBACK`


def grade(released_course: Path, root: Path) -> Parity:
    """Every class handed in to a copy of the released course in ``root``, graded by one
    `nbgrader autograde` process while packlab grades the same files; then nbgrader's feedback
    for FEEDBACK."""
    course_dir = root / "course"
    shutil.copytree(released_course, course_dir)  # solutions, release, gradebook with checksums
    graded = {exercise.name: exercise for exercise in EXERCISES}
    graded[PROPORTIONAL], policy_env = proportional_course(root, graded[PROPORTIONAL])
    paths = {name: {s: submit(course_dir / "submitted", s, exercise, nb)
                    for s, nb in students(exercise).items()}
             for name, exercise in graded.items()}
    assert BREAKER in paths[FEEDBACK]
    submit(course_dir / "submitted", RENAMER, graded[FEEDBACK],
           without_picture(with_answer(graded[FEEDBACK], RENAMED)))

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
    feedback = subprocess.run([str(NBGRADER), "generate_feedback", FEEDBACK, "--force"],
                              cwd=course_dir, env=nbgrader_env(), capture_output=True, text=True,
                              timeout=300)
    return Parity(course_dir, graded, ours, autograde.returncode, log, feedback)
