"""An instructor adds an exercise of their own (issue 27.2, 34.5): `packlab new-exercise` writes
every file, `packlab author check` says in words what is missing or wrong, `packlab release NAME`
releases that exercise alone, and `packlab grade` grades a class on it.

The walk is the guide's own: book/instructors/new-exercise.md's ```bash blocks, run once for the
session in the guides' rehearsal (tests/guide_walk.py, shared with tests/test_guides.py), under
the first exercise number the course has free. The broken variants then each break one thing in
a copy of it and read what `packlab author check` says. (A must-raise exercise, made with the
scaffold from nothing to a graded class, is tests/test_must_raise_exercise.py.)
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from guide_walk import (
    EXAMPLE,
    NEW_EXERCISE,
    bash_blocks,
    environment,
    free_number,
    renumbered,
)

from packlab.manifest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("guides")]

SUITE = "trim_history"
NAME = renumbered(EXAMPLE, free_number(ROOT / "course.toml"))  # 11-trim-history, or as free


def run(course: Path, command: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", command], cwd=course,
                          env=env or environment(course), capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def walked(rehearsal) -> dict:
    """The new-exercise guide walked in the guides' rehearsal: what each block printed, and the
    releases of the other exercises before and after."""
    failure = rehearsal.run_page(NEW_EXERCISE)
    assert failure is None, failure
    before, after = rehearsal.releases[NEW_EXERCISE]
    name = rehearsal.example
    assert name == NAME
    return {"course": rehearsal.course, "said": rehearsal.said[NEW_EXERCISE], "name": name,
            "before": {k: v for k, v in before.items() if not k.startswith(name)},
            "after": {k: v for k, v in after.items() if not k.startswith(name)},
            "blocks": [b.code for b in bash_blocks(NEW_EXERCISE)]}


def test_the_guide_walks_from_nothing_to_a_graded_class(walked):
    course, said, name = walked["course"], walked["said"], walked["name"]
    first_check = next(out for block, out in zip(walked["blocks"], said, strict=True)
                       if "author check" in block)
    assert "FILL IN" in first_check and "not released" in first_check
    released = next(out for block, out in zip(walked["blocks"], said, strict=True)
                    if "packlab release" in block)
    assert f"{name}: ready." in released  # the author check after release and recording
    rows = {row["student"]: row for row in
            csv.DictReader((course / "graded-trim" / "grades.csv").open(encoding="utf-8"))}
    assert (rows["ada"]["score"], rows["ada"]["max_score"]) == ("5", "5")
    assert rows["bob"]["score"] == "0" and rows["cy"]["score"] == "0"
    feedback = (course / "graded-trim" / "students" / "bob" / name / "feedback.html").read_text()
    assert "the newest turns matter most" in feedback
    named = {(row["student"], row["misconception"]) for row in
             csv.DictReader((course / "graded-trim" / "misconceptions.csv").open())}
    assert ("bob", "keeps-oldest") in named and ("cy", "not started") in named


def test_the_scaffold_keeps_course_toml_comments_and_writes_consistent_grade_ids(walked):
    course = walked["course"]
    import tomllib

    original = (ROOT / "course.toml").read_text(encoding="utf-8")
    written = (course / "course.toml").read_text(encoding="utf-8")
    comments = [line for line in original.splitlines() if line.startswith("#")]
    assert comments == [line for line in written.splitlines() if line.startswith("#")]
    entry = tomllib.loads(written)["exercises"][-1]
    assert entry["name"] == NAME and entry["lesson"] == "10-conversation-shapes"
    assert "left_to_hidden" in tomllib.loads(written)
    notebook = nbformat.read(course / "solutions" / NAME / f"{NAME}.ipynb", as_version=4)
    ids = [c.metadata.nbgrader["grade_id"] for c in notebook.cells]
    assert [i for i in ids if i.startswith(SUITE)] == [
        f"{SUITE}-answer", f"{SUITE}-visible", f"{SUITE}-edge-cases", f"{SUITE}-properties"]


def test_releasing_one_exercise_leaves_the_others_untouched(walked):
    assert walked["before"] == walked["after"]
    assert (walked["course"] / "exercises" / NAME / f"{NAME}.ipynb").is_file()


def test_the_course_map_lists_the_second_exercise_of_lesson_10(walked):
    readme = (walked["course"] / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("<!-- course-map:start -->"):readme.index("<!-- course-map:end")]
    assert f"(exercises/{NAME}/{NAME}.ipynb)" in block
    assert "(exercises/10-assemble-turn/10-assemble-turn.ipynb)" in block


# --- author check names each problem ---------------------------------------------------------

def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _no_mutates_input(course: Path) -> None:
    _edit(course / "autograder/checks/suites/trim_history.py",
          '    "mutates-input": "trim_history must not change the turns it was given: the caller '
          'still "\n                     "needs the whole conversation.",\n', "")


def _starter_passes(course: Path) -> None:
    release = course / "exercises" / NAME / f"{NAME}.ipynb"
    notebook = nbformat.read(release, as_version=4)
    answer = (course / "autograder/checks/reference/trim_history.py").read_text()
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == f"{SUITE}-answer":
            cell.source = answer[answer.index("def trim_history"):]
    nbformat.write(notebook, release)


def _mutant_not_caught(course: Path) -> None:
    answer = (course / "autograder/checks/reference/trim_history.py").read_text()
    (course / "autograder/checks/mutants/trim_history/looks_wrong.py").write_text(
        "# misconception: keeps-oldest\n# really the right answer\n"
        + answer[answer.index("def trim_history"):])


def _stale_recording(course: Path) -> None:
    path = course / "autograder/checks/suites/recorded/trim_history.json"
    data = json.loads(path.read_text())
    data.pop(next(iter(data)))
    path.write_text(json.dumps(data))


def _stale_release(course: Path) -> None:
    path = course / "solutions" / NAME / f"{NAME}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[1].source += "\n\nOne more sentence."
    nbformat.write(notebook, path)


def _release_edited(course: Path) -> None:
    """The release changed after `packlab release` made it (its record no longer matches)."""
    path = course / "exercises" / NAME / f"{NAME}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[1].source += "\n\nEdited by hand."
    nbformat.write(notebook, path)


def _notebook_not_course_toml(course: Path) -> None:
    _edit(course / "course.toml", 'teaches = "Trimming a conversation to a budget',
          'teaches = "Cutting a conversation down to a budget')


def _diagnose_names_an_unknown_key(course: Path) -> None:
    _edit(course / "autograder/checks/suites/trim_history.py",
          'return MISCONCEPTIONS["keeps-oldest"]', 'return MISCONCEPTIONS["kept-oldest"]')


def _diagnose_returns_a_key(course: Path) -> None:
    _edit(course / "autograder/checks/suites/trim_history.py",
          'return MISCONCEPTIONS["newest-first"]', 'return "newest-first"')


def _strategy_raises(course: Path) -> None:
    _edit(course / "autograder/checks/hidden/trim_history.py", "    st.integers(60, 200),",
          "    st.integers(60, 200).map(lambda budget: budget // 0),")


def _mutant_named_for_two_ideas(course: Path) -> None:
    (course / "autograder/checks/mutants/trim_history/two_ideas.py").write_text(
        "# misconception: keeps-oldest\n# keeps the oldest of a long history, and returns a "
        "short one newest first\n"
        "def trim_history(turns, budget):\n"
        "    kept, used = [], 0\n"
        "    for turn in (turns if len(turns) > 3 else turns[::-1]):\n"
        "        if used + turn['tokens'] > budget:\n"
        "            break\n"
        "        kept.append(turn)\n"
        "        used += turn['tokens']\n"
        "    return kept\n")


BROKEN = {
    "a diagnosis returning a key, not a misconception": (
        _diagnose_returns_a_key, "raised AttributeError"),
    "a mutant named for another idea more than its own": (
        _mutant_named_for_two_ideas,
        "so this mistake would count as 'newest-first': make diagnose name 'keeps-oldest' for "
        "more of the answers this mistake gives"),
    "a diagnosis naming a key the table lacks": (
        _diagnose_names_an_unknown_key, "the suite's own code raised KeyError: 'kept-oldest'"),
    "a strategy that raises": (
        _strategy_raises, "the suite's own code raised ZeroDivisionError: integer division or "
        "modulo by zero while judging the reference answer in the properties group"),
    "a missing misconception key": (_no_mutates_input, "no 'mutates-input' entry"),
    "a starter that passes": (_starter_passes, "the released starter passes every group"),
    "a mutant not caught": (_mutant_not_caught,
                            "the mutant trim_history/looks_wrong is not caught"),
    "stale recorded answers": (_stale_recording, "recorded answers"),
    "a stale release": (_stale_release, f"the release exercises/{NAME}/{NAME}.ipynb is stale"),
    "a release edited by hand": (_release_edited,
                                 f"the release exercises/{NAME}/{NAME}.ipynb is stale"),
    "notebook text not matching course.toml": (
        _notebook_not_course_toml, "does not say course.toml's teaches word for word"),
}


@pytest.mark.parametrize("broken", list(BROKEN))
def test_author_check_names_each_problem_in_words(walked, tmp_path, broken):
    course = shutil.copytree(walked["course"], tmp_path / "course", symlinks=True)
    breaking, words = BROKEN[broken]
    breaking(course)
    done = run(course, f"packlab author check {NAME}")
    said = " ".join(done.stdout.split())  # the terminal's line breaks aside
    assert done.returncode == 1, done.stdout + done.stderr
    assert words in said, done.stdout + done.stderr
    if broken == "stale recorded answers":
        assert "are stale" in said and f"reference.record {NAME}`" in said
    assert "Traceback" not in done.stdout + done.stderr
