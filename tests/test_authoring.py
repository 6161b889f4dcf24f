"""An instructor adds an exercise of their own (issue 27.2): `packlab new-exercise` writes every
file, `packlab author check` says in words what is missing or wrong, `packlab release NAME`
releases that exercise alone, and `packlab grade` grades a class on it.

The walk is the guide's own: book/instructors/new-exercise.md's ```bash blocks, run in order in a
temporary copy of the course with that copy's code first on the path (so nothing is written into
this checkout). The broken variants then each break one thing in that copy and read what
`packlab author check` says.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from packlab.manifest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("authoring")]

GUIDE = ROOT / "book" / "instructors" / "new-exercise.md"
NAME = "11-trim-history"
SUITE = "trim_history"


def bash_blocks(page: Path) -> list[str]:
    """The page's ```bash blocks, in order."""
    return re.findall(r"^```bash\n(.*?)^```", page.read_text(encoding="utf-8"), re.M | re.S)


def course_copy(folder: Path) -> Path:
    """A copy of the course's files (what a clone holds, and any new file not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return folder


def env_for(course: Path) -> dict[str, str]:
    """The copy's code first on the path, this environment's scripts first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PACKLAB_COURSE_TOML",)}
    env["PYTHONPATH"] = f"{course / 'src'}{os.pathsep}{course}"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run(course: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", command], cwd=course, env=env_for(course),
                          capture_output=True, text=True, timeout=900)


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> dict:
    """The guide walked in a copy of the course: what each block printed, and the releases of
    the other exercises before and after."""
    course = course_copy(tmp_path_factory.mktemp("authoring") / "course")
    blocks = bash_blocks(GUIDE)
    others = [p for p in (course / "exercises").iterdir()]
    before = {p.name: digests(p) for p in others}
    said = []
    for block in blocks:
        done = run(course, block)
        assert done.returncode == 0, f"the guide's block failed:\n{block}\n{done.stdout}\n" \
                                     f"{done.stderr}"
        said.append(done.stdout)
    after = {p.name: digests(p) for p in others}
    return {"course": course, "said": said, "before": before, "after": after, "blocks": blocks}


def test_the_guide_walks_from_nothing_to_a_graded_class(walked):
    course, said = walked["course"], walked["said"]
    first_check = next(out for block, out in zip(walked["blocks"], said, strict=True)
                       if "author check" in block)
    assert "FILL IN" in first_check and "not released" in first_check
    released = next(out for block, out in zip(walked["blocks"], said, strict=True)
                    if "packlab release" in block)
    assert f"{NAME}: ready." in released  # the author check after release and recording
    rows = {row["student"]: row for row in
            csv.DictReader((course / "graded-trim" / "grades.csv").open(encoding="utf-8"))}
    assert (rows["ada"]["score"], rows["ada"]["max_score"]) == ("5", "5")
    assert rows["bob"]["score"] == "0" and rows["cy"]["score"] == "0"
    feedback = (course / "graded-trim" / "students" / "bob" / NAME / "feedback.html").read_text()
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


def _notebook_not_course_toml(course: Path) -> None:
    _edit(course / "course.toml", 'teaches = "Trimming a conversation to a budget',
          'teaches = "Cutting a conversation down to a budget')


def _diagnose_names_an_unknown_key(course: Path) -> None:
    _edit(course / "autograder/checks/suites/trim_history.py",
          '("keeps-oldest", keep_oldest(', '("kept-oldest", keep_oldest(')


BROKEN = {
    "a diagnosis naming a key the table lacks": (
        _diagnose_names_an_unknown_key, "the suite's own code raised KeyError: 'kept-oldest'"),
    "a missing misconception key": (_no_mutates_input, "no 'mutates-input' entry"),
    "a starter that passes": (_starter_passes, "the released starter passes every group"),
    "a mutant not caught": (_mutant_not_caught,
                            "the mutant trim_history/looks_wrong is not caught"),
    "stale recorded answers": (_stale_recording, "recorded answers"),
    "a stale release": (_stale_release, f"the release exercises/{NAME}/{NAME}.ipynb is stale"),
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
        assert "are stale" in said and "reference.record 11-trim-history`" in said
    assert "Traceback" not in done.stdout + done.stderr
