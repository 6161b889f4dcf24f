"""`packlab gradescope`: the autograder zip, and its run_autograder grading as Gradescope would.

The zip is built for 02-greedy-pack and unzipped into a temporary ``autograder/source``, laid out
as Gradescope's /autograder (submission/, results/). setup.sh is not run (it would apt-get and pip
install); run_autograder is pointed at this folder and at this venv's Python instead, and must
import the course from the unzipped tree — never from this repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, with_answer

from autograder.checks import gallery
from packlab.course import cli

pytestmark = pytest.mark.slow

EXERCISE = COURSE.exercise("02-greedy-pack")
NOTEBOOK = f"{EXERCISE.name}.ipynb"
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("gradescope")
    out = folder / "autograder.zip"
    assert cli.main(["gradescope", EXERCISE.name, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def source(bundle, tmp_path_factory) -> Path:
    """The zip unzipped as Gradescope does, into <base>/source (modes kept)."""
    base = tmp_path_factory.mktemp("base") / "autograder"
    source = base / "source"
    with zipfile.ZipFile(bundle) as archive:
        for info in archive.infolist():
            path = Path(archive.extract(info, source))
            path.chmod((info.external_attr >> 16) & 0o777 or 0o644)
    shutil.copy2(source / "run_autograder", base / "run_autograder")
    return source


def run_autograder(source: Path, files: dict[str, str | nbformat.NotebookNode],
                   python: str = sys.executable, path_first: Path | None = None) -> dict:
    """A fresh submission/ and results/, run_autograder, and the results.json it left
    (``path_first``: a folder put first on its PATH)."""
    base = source.parent
    for name in ("submission", "results"):
        shutil.rmtree(base / name, ignore_errors=True)
        (base / name).mkdir()
    for name, content in files.items():
        path = base / "submission" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content)
        else:
            nbformat.write(content, path)
    first = [str(path_first)] if path_first else []
    env = {**os.environ, "PACKLAB_AUTOGRADER_DIR": str(base), "PACKLAB_PYTHON": python,
           "PATH": os.pathsep.join([*first, str(Path(sys.executable).parent),
                                    os.environ.get("PATH", "")])}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(base / "run_autograder")], cwd=base, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    results = base / "results" / "results.json"
    assert results.is_file(), f"no results.json\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    data = json.loads(results.read_text())
    assert isinstance(data["score"], int | float) and isinstance(data["output"], str)
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
        assert test["visibility"] in VISIBILITIES and test["status"] in {"passed", "failed"}
    return data


def test_the_zip_holds_the_scripts_and_the_course_only(bundle):
    with zipfile.ZipFile(bundle) as archive:
        infos = {info.filename: info for info in archive.infolist()}
    names = set(infos)
    for script in ("setup.sh", "run_autograder"):
        assert (infos[script].external_attr >> 16) & 0o111, f"{script} is not executable"
    assert {"pyproject.toml", "README.md", "course.toml", "src/packlab/manifest.py",
            "src/packlab/course/check.py", "autograder/run/engine.py",
            "autograder/glue/gradescope.py",
            "autograder/worker.py", f"autograder/checks/suites/{EXERCISE.suite}.py",
            f"exercises/{EXERCISE.name}/{NOTEBOOK}"} <= names
    tops = {name.split("/")[0] for name in names}
    assert tops == {"setup.sh", "run_autograder", "pyproject.toml", "README.md", "course.toml",
                    "src", "autograder", "exercises"}, "only what grading needs"
    assert {name.split("/")[1] for name in names if name.startswith("exercises/")} \
        == {EXERCISE.name}
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")
                or ".egg-info" in n or n.startswith((".venv", "tests/", "solutions/"))]
    # Only what the trusted side runs for this assignment: no gallery of whole answers, no
    # recorder of the reference, no other exercise's hidden tests.
    assert not [n for n in names if n.startswith(("autograder/checks/attacks/",
                                                  "autograder/checks/mutants/"))]
    assert "autograder/checks/reference/record.py" not in names
    assert {n for n in names if n.startswith("autograder/checks/hidden/")} == {
        "autograder/checks/hidden/__init__.py", f"autograder/checks/hidden/{EXERCISE.suite}.py"}
    run = zipfile.ZipFile(bundle).read("run_autograder").decode()
    assert f"ASSIGNMENT={EXERCISE.name}" in run and "/autograder" in run
    setup = zipfile.ZipFile(bundle).read("setup.sh").decode()
    assert "apt-get install -y python3 python3-venv python3-pip" in setup
    assert 'pip install -e "$SOURCE"' in setup


def test_the_reference_answer_gets_full_marks_from_the_unzipped_course(source):
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, None)})
    assert data["score"] == EXERCISE.max_score, data["output"]
    assert sum(t["max_score"] for t in data["tests"]) == EXERCISE.max_score
    assert all(t["status"] == "passed" for t in data["tests"])
    # The grader ran from the unzipped tree, not from this repository.
    assert Path(data["extra_data"]["course_root"]) == source


def test_a_wrong_answer_loses_marks_and_says_why(source):
    mutant = gallery.load("pack/break_at_first_miss")
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, mutant.code)})
    assert data["score"] < EXERCISE.max_score
    failed = "\n".join(t["output"] for t in data["tests"] if t["status"] == "failed")
    assert "the call:" in failed and "no `break`" in failed


def test_what_the_submission_prints_or_writes_does_not_count(source):
    results = source.parent / "results" / "results.json"
    forged = json.dumps({"score": 99, "output": "all passed", "tests": []})
    code = (gallery.load("pack/break_at_first_miss").code
            + f"\nprint({forged!r})\n"
            + "try:\n"
            + f"    open({str(results)!r}, 'w').write({forged!r})\n"
            + "except OSError:\n    pass\n")
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, code)})
    assert data["score"] < EXERCISE.max_score
    assert data["extra_data"]["assignment"] == EXERCISE.name


def test_a_broken_notebook_scores_zero_and_says_why(source):
    data = run_autograder(source, {NOTEBOOK: "{ this is not json"})
    assert data["score"] == 0
    assert "not valid notebook JSON" in data["output"]


def test_a_single_notebook_with_another_name_is_graded(source):
    data = run_autograder(source, {"my work/pack (1).ipynb": with_answer(EXERCISE, None)})
    assert data["score"] == EXERCISE.max_score
    assert f"not {NOTEBOOK}" in data["output"]


def test_several_notebooks_none_with_the_right_name_are_not_guessed(source):
    data = run_autograder(source, {"draft.ipynb": with_answer(EXERCISE, None),
                                   "final.ipynb": with_answer(EXERCISE, None),
                                   "notes.txt": "hello"})
    assert data["score"] == 0 and data["tests"] == []
    assert "draft.ipynb" in data["output"] and "final.ipynb" in data["output"]
    assert NOTEBOOK in data["output"]


def test_the_right_name_wins_over_other_notebooks(source):
    data = run_autograder(source, {"scratch.ipynb": "{ broken",
                                   NOTEBOOK: with_answer(EXERCISE, None)})
    assert data["score"] == EXERCISE.max_score


def test_no_notebook_at_all(source):
    data = run_autograder(source, {"pack.py": "def pack(parts, budget): return []"})
    assert data["score"] == 0
    assert "no notebook" in data["output"] and "pack.py" in data["output"]


def test_a_grader_that_cannot_start_still_leaves_results(source):
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, None)}, python="/bin/false")
    assert data["score"] == 0 and data["tests"] == []
    assert "could not run" in data["output"] and "not a problem with your" in data["output"]


REFUSING_BWRAP = """#!/bin/sh
echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow \
non-privileged user namespaces." >&2
exit 1
"""


@pytest.fixture
def refusing_bwrap():
    """A folder holding a bwrap that fails as Docker's seccomp profile makes it fail (not under
    /tmp, which root's grader hides when it starts bubblewrap)."""
    folder = Path(tempfile.mkdtemp(dir="/var/tmp" if Path("/var/tmp").is_dir() else None))
    folder.chmod(0o755)  # root runs bubblewrap as a user of its own
    (folder / "bwrap").write_text(REFUSING_BWRAP)
    (folder / "bwrap").chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def test_without_a_working_sandbox_nothing_is_graded_and_both_sides_are_told_why(
        source, refusing_bwrap):
    """As in a Docker container whose seccomp profile refuses user namespaces: bubblewrap is
    there and fails. The right answer is not graded: score 0, the reason and the fix."""
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, None)},
                          path_first=refusing_bwrap)
    assert data["score"] == 0 and data["tests"] == []
    said = " ".join(data["output"].split())
    assert "could not start its sandbox" in said and "not a problem with your submission" in said
    assert "No permissions to creating new namespace" in said  # the instructor's why
    assert "seccomp" in said and "CLONE_NEWUSER" in said  # and what to change
    assert data["extra_data"]["sandbox"] == ""  # nothing ran, with a sandbox or without


def attack(name: str, **filled: Path) -> str:
    text = (gallery.ATTACKS / f"{name}.py").read_text()
    for key, value in filled.items():
        text = text.replace(f"{{{key}}}", str(value))
    return text


@pytest.mark.parametrize("name, says", [("imports_the_reference", "ModuleNotFoundError"),
                                        ("reads_hidden_tests", "FileNotFoundError")])
def test_the_unzipped_course_is_out_of_the_submissions_reach(source, name, says):
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, attack(name, root=source))})
    assert data["score"] == 0, data["output"]
    assert says in json.dumps(data)
    assert "MIDDLE_MISS" not in json.dumps(data)  # a line of the hidden tests
    for path in source.rglob("*"):  # and root's alone, should a sandbox ever see it
        assert not path.stat().st_mode & 0o077, path


def test_a_daemon_dies_with_the_sandbox_and_forges_nothing(source):
    from as_user import leftover_processes

    results = source.parent / "results"
    code = attack("daemon_rewrites_results", out=results)
    data = run_autograder(source, {NOTEBOOK: with_answer(EXERCISE, code)})
    time.sleep(1.5)  # time enough for a surviving daemon to rewrite results.json
    after = json.loads((results / "results.json").read_text())
    assert after == data and after["score"] == 0 and "FORGED" not in json.dumps(after)
    assert leftover_processes(ordinary=False) == []  # root grades here, in sandboxes' uids


def test_setup_says_loudly_when_the_container_cannot_run_the_sandbox(refusing_bwrap):
    env = {**os.environ, "PATH": f"{refusing_bwrap}{os.pathsep}{os.environ.get('PATH', '')}"}
    check = [sys.executable, "-c",
             "import autograder.glue.gradescope as g, sys; sys.exit(g.check_sandbox())"]
    refused = subprocess.run(check, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    said = " ".join(refused.stderr.split())
    assert "WARNING: packlab cannot start its sandbox here" in said and "score 0" in said
    assert "CLONE_NEWUSER" in said
    works = subprocess.run(check, capture_output=True, text=True, timeout=120)
    assert works.returncode == 0 and "the sandbox works here" in works.stderr
    assert "of memory" in works.stderr  # and how memory is bounded
