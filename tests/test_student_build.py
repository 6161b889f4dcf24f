"""The student install (`packlab student-build`): built from this checkout, installed with pip into
a fresh venv, it runs every learner command, lesson and exercise, and holds nothing hidden.

One build and one venv for the whole module (the pip install takes about a minute). Everything
about the student install runs in that venv's Python, from a folder outside this checkout; the
hidden things it is searched for come from the instructor's install, in this process.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from autograder.checks import gallery
from autograder.checks.suites import load as load_suite
from packlab.course import kernels, notes, student
from packlab.course.quiz import questions
from packlab.course.workshop import PRESENTER
from packlab.manifest import ROOT, STUDENT_MARKER, load

# One build and one venv: every test of this module runs on the same xdist worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("student-build")]

COURSE = load()
PACKLAB = Path(sys.executable).with_name("packlab")
NOT_IMPORTABLE = (
    "autograder.checks.hidden", "autograder.checks.hidden.pack", "autograder.checks.hidden.fit",
    "autograder.checks.reference", "autograder.checks.reference.fitting",
    "autograder.checks.reference.evidence",
    "autograder.checks.mutants", "autograder.checks.mutants.pack.break_at_first_miss",
    "autograder.checks.attacks",
    "autograder.checks.gallery", "autograder.cohort.classroom", "autograder.cohort.report",
    "autograder.cohort.record",
    "autograder.term.gradebook", "autograder.glue.gradescope", "autograder.term.bundle",
    "autograder.term.lms",
    "autograder.glue.release", "autograder.glue.feedback", "autograder.cohort.similarity",
    "autograder.cohort.cluster",
    "packlab.course.notes", "packlab.course.workshop", "packlab.course.release",
    "packlab.course.student", "packlab.course.slides", "packlab.course.book",
)



def run(command: list, cwd: Path, env: dict | None = None,
        given: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False, input=given)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The student install, written by the instructor's `packlab student-build`."""
    folder = tmp_path_factory.mktemp("student") / "packlab"
    done = run([PACKLAB, "student-build", folder], cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> Path:
    """A working folder outside the checkout and the build (so nothing imports from `.`)."""
    return tmp_path_factory.mktemp("elsewhere")


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory) -> dict:
    """A fresh venv with the student install (`pip install -e`), and the environment to use it."""
    folder = tmp_path_factory.mktemp("venv") / "v"
    # Without venv's bundled pip (ensurepip: 4 CPU-s); the course's own, newer pip installs the
    # same packages into it for a third less CPU than pip 23.2 (setuptools: its current one).
    made = run([sys.executable, "-m", "venv", "--without-pip", folder], cwd=built)
    assert made.returncode == 0, made.stderr
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PACKLAB_COURSE_TOML", "PACKLAB_WORKSPACE")}
    env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    # As a learner installs it: pip compiles what it installs, so no process of this venv
    # compiles its imports again (where PYTHONDONTWRITEBYTECODE is set, each one would).
    installed = run([sys.executable, "-m", "pip", "--python", folder / "bin" / "python",
                     "install", "--quiet", "-e", built], cwd=built, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return {"python": folder / "bin" / "python", "packlab": folder / "bin" / "packlab",
            "env": env, "site": Path(run([folder / "bin" / "python", "-c",
                                          "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                         cwd=built).stdout.strip())}


def packlab(venv: dict, cwd: Path, *args) -> subprocess.CompletedProcess:
    return run([venv["packlab"], *args], cwd=cwd, env=venv["env"])


# --- the learner commands -----------------------------------------------------------------------

def with_reference_answer(exercise) -> nbformat.NotebookNode:
    """The released notebook with the reference answer pasted into its answer cell."""
    source = {c.metadata["nbgrader"]["grade_id"]: c.source
              for c in nbformat.read(exercise.source, as_version=4).cells
              if c.metadata.get("nbgrader", {}).get("solution")}
    notebook = nbformat.read(exercise.release, as_version=4)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in source:
            cell.source = "\n".join(line for line in source[grade_id].splitlines()
                                    if "### BEGIN SOLUTION" not in line
                                    and "### END SOLUTION" not in line)
    return notebook


def test_the_learner_commands_work(built, venv, outside):
    exercise = COURSE.exercise("02")
    released = built / exercise.release.relative_to(ROOT)
    written = outside / "mine" / f"{exercise.name}.ipynb"
    written.parent.mkdir()
    nbformat.write(with_reference_answer(exercise), written)

    own = packlab(venv, outside, "check", released)  # the install's own copy: not the learner's
    assert own.returncode == 2 and "course's own copy" in own.stdout, own.stdout
    mine = outside / "mine" / "released.ipynb"
    mine.write_bytes(released.read_bytes())
    unwritten = packlab(venv, outside, "check", mine)
    assert unwritten.returncode == 1 and "not written yet" in unwritten.stdout, unwritten.stdout
    passing = packlab(venv, outside, "check", written)
    assert passing.returncode == 0 and "Every check passed" in passing.stdout, passing.stdout
    everything = packlab(venv, outside, "check", "--all", written)
    assert "not part of this install" in everything.stdout, everything.stdout
    assert "Every check passed" in everything.stdout
    hint = packlab(venv, outside, "hint", "02")
    assert hint.returncode == 0 and f"Hints for {exercise.name}" in hint.stdout, hint.stdout
    workspace = outside / "workspace"
    (workspace / "exercises" / exercise.name).mkdir(parents=True)
    nbformat.write(with_reference_answer(exercise), workspace / exercise.release.relative_to(ROOT))
    progress = packlab(venv, outside, "progress", "--workspace", workspace)
    assert progress.returncode == 0, progress.stdout + progress.stderr
    assert "passes the visible tests" in progress.stdout and "not opened yet" in progress.stdout
    assert "hidden tests run when" in " ".join(progress.stdout.split())


def test_the_quizzes_are_sealed_and_unseal_to_the_instructors(built, venv, outside):
    """The install holds quizzes.sealed.json, not quizzes.toml; its kernel reads the same
    questions, verdicts and explanations as the instructor's."""
    course = built / "src" / "packlab" / "course"
    assert not (course / "quizzes.toml").exists() and (course / "quizzes.sealed.json").is_file()
    probe = ("import dataclasses, json; from packlab.course.quiz import questions; "
             "print(json.dumps({k: dataclasses.asdict(q) for k, q in questions().items()}))")
    done = run([venv["python"], "-c", probe], cwd=outside, env=venv["env"])
    assert done.returncode == 0, done.stderr
    import dataclasses
    ours = {k: dataclasses.asdict(q) for k, q in questions().items()}
    assert json.loads(done.stdout) == json.loads(json.dumps(ours))


def test_instructor_commands_are_not_offered(venv, outside):
    listed = packlab(venv, outside, "--help").stdout
    usage = re.search(r"\{([^}]*)\}", listed).group(1).split(",")
    assert sorted(usage) == ["check", "hint", "lab", "progress", "reset", "room"], listed
    for command in ("grade", "release", "gradescope", "export", "bundle", "similarity",
                    "student-build", "demo"):
        said = packlab(venv, outside, command, "x")
        assert said.returncode == 2, said.stdout + said.stderr
        assert "part of the instructor's install" in " ".join(said.stdout.split()), said.stdout
        assert "Traceback" not in said.stderr


# --- nothing hidden -----------------------------------------------------------------------------

def test_nothing_hidden_is_importable(venv, outside):
    probe = textwrap.dedent(f"""
        import importlib, json
        found = {{}}
        for name in {list(NOT_IMPORTABLE)!r}:
            try:
                found[name] = importlib.import_module(name).__file__
            except ModuleNotFoundError:
                pass
        import autograder, packlab.course.cli
        print(json.dumps([found, autograder.__file__, packlab.course.cli.__file__]))
    """)
    done = run([venv["python"], "-c", probe], cwd=outside, env=venv["env"])
    assert done.returncode == 0, done.stderr
    found, grader, cli = json.loads(done.stdout)
    assert found == {}
    assert not Path(grader).is_relative_to(ROOT) and not Path(cli).is_relative_to(ROOT)


def shown_to_learners() -> str:
    """What learners read anyway, where a hidden check's name may appear as plain prose: the
    visible checks' names, every misconception's paragraph, the released notebooks, and the
    budget check's message that 02's visible group shows
    (autograder.checks.suites.pack.WITHIN_BUDGET)."""
    texts = ["the chosen parts never add up to more than the budget"]
    for suite in sorted({e.suite for e in COURSE.exercises}):
        texts += [c.name for g in load_suite(suite).groups if g.visible for c in g.checks]
        module = importlib.import_module(f"autograder.checks.suites.{suite}")
        texts += [wrong.text for wrong in module.MISCONCEPTIONS.values()]
    texts += [e.release.read_text(encoding="utf-8") for e in COURSE.exercises]
    return "\n".join(texts)


def hidden_texts() -> dict[str, str]:
    """What must not be readable in the student install, by what it is."""
    texts = {}
    shown = shown_to_learners()
    for suite in sorted({e.suite for e in COURSE.exercises}):
        groups = load_suite(suite).groups
        texts |= {c.name: f"hidden check of {suite}" for g in groups if not g.visible
                  for c in g.checks if c.name not in shown}
    starters = {e.starter for e in COURSE.exercises}  # 03 hands its mutant out, on purpose
    for mutant in (m for m in gallery.every() if m.key not in starters):
        texts[mutant.code.strip()] = f"mutant {mutant.key}"
        texts[mutant.description] = f"mutant {mutant.key}'s description"
    for exercise in COURSE.exercises:
        for cell in nbformat.read(exercise.source, as_version=4).cells:
            solution = re.search(r"### BEGIN SOLUTION\n(.*?)\n[ \t]*### END SOLUTION",
                                 cell.source, re.S)
            if solution:
                texts[solution.group(1).strip()] = f"the solution of {exercise.name}"
    for note in notes.notes(nbformat.read(PRESENTER, as_version=4)):
        texts[note.strip()] = "a speaker note"
    texts |= reference_bodies()
    for question in questions().values():  # an explanation's opening is on one line in the TOML
        texts |= {option.why[:40]: f"quiz {question.id}'s explanation"
                  for option in question.options}
    return texts


def reference_bodies() -> dict[str, str]:
    """The code of every function in autograder/checks/reference/, from its first statement after
    the docstring to its end."""
    found = {}
    for path in sorted((ROOT / "autograder" / "checks" / "reference").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef):
                body = node.body[1:] if ast.get_docstring(node) else node.body
                lines = source.splitlines()[body[0].lineno - 1:node.end_lineno]
                found["\n".join(lines).strip()] = f"the reference's {path.stem}.{node.name}"
    return found


def files_below(folder: Path):
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            yield path


def string_constants(source: str) -> str:
    """Every string a Python module's code holds, as the running module holds it (a string
    literal writes its quotes escaped: the text is not in the file as written)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    return "\n".join(node.value for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str))


def leaks(paths, texts: dict[str, str]) -> list[str]:
    """Each file that holds one of ``texts``, in its bytes or (a Python module) in the strings
    its code holds, and what it holds."""
    found = []
    for path in paths:
        content = path.read_bytes().decode("utf-8", "replace")
        if path.suffix == ".py":
            content += "\n" + string_constants(content)
        found += [f"{path}: {what}" for text, what in texts.items() if text in content]
    return found


def test_nothing_hidden_is_readable(built, venv):
    texts = hidden_texts()
    assert sum("hidden check" in what for what in texts.values()) > 50
    assert sum("speaker note" in what for what in texts.values()) > 5
    assert sum("explanation" in what for what in texts.values()) > 30
    assert sum("the reference's" in what for what in texts.values()) > 10
    marker = {"### BEGIN HIDDEN TESTS": "nbgrader's hidden tests",  # nbgrader's own files hold it
              "\nright = true\n": "quizzes.toml's verdicts"}
    assert leaks(files_below(built), texts | marker) == []
    # Every file pip put in site-packages, searched for all of it; the rest of site-packages
    # (other projects) for the one-line texts, with grep.
    ours = [p for p in files_below(venv["site"])
            if "packlab" in str(p.relative_to(venv["site"])).lower()]
    assert len(ours) >= 3, ours
    assert leaks(ours, texts | marker) == []
    patterns = venv["site"].parent / "hidden-patterns.txt"
    patterns.write_text("\n".join(t for t in texts if "\n" not in t) + "\n")
    grep = run(["grep", "-rlF", "-f", patterns, venv["site"]], cwd=venv["site"])
    assert grep.returncode == 1, grep.stdout  # 1: no file matched


def compiled_since(built: Path, path: Path) -> bool:
    """Is ``path`` a module of the install compiled by Python since the build wrote it (the
    learner's processes import the install and keep its modules compiled, as any checkout
    does), rather than a compiled file the build copied (it would keep its old time)?"""
    if path.parent.name != "__pycache__" or path.suffix != ".pyc":
        return False
    source = path.parent.parent / f"{path.name.split('.')[0]}.py"
    written = (built / "course.toml").stat().st_mtime  # the build writes it, never copies it
    return source.is_file() and path.stat().st_mtime >= written


def test_it_holds_only_what_the_build_lists(built):
    """No folder the build never copies, nothing .gitignore lists; the marker in course.toml."""
    names = {p.relative_to(built) for p in files_below(built)
             if "packlab.egg-info" not in p.parts  # written there by `pip install -e`
             and not compiled_since(built, p)}
    assert names == set(student.plan().paths)
    assert not {p.parts[0] for p in names} & {"solutions", "tests", "benchmarks", ".git",
                                                "workshop"}
    ignored = run(["git", "check-ignore", "--stdin"], cwd=ROOT,
                  given="\n".join(map(str, sorted(names))) + "\n")
    assert ignored.returncode == 1 and ignored.stdout == ""  # 1: none of them is ignored
    assert (built / "course.toml").read_text().endswith(STUDENT_MARKER)
    assert load(built / "course.toml").student_install and not COURSE.student_install


def test_its_pyproject_lists_its_packages_and_not_the_instructors_dependencies(built):
    import tomllib

    config = tomllib.loads((built / "pyproject.toml").read_text())
    inits = list(built.rglob("__init__.py"))
    assert len(config["tool"]["setuptools"]["packages"]) == len(inits)
    for package in config["tool"]["setuptools"]["packages"]:
        top, *rest = package.split(".")
        where = config["tool"]["setuptools"]["package-dir"][top]
        assert (built / where / Path(*rest) / "__init__.py").is_file(), package
    names = " ".join(config["project"]["dependencies"])
    assert "copydetect" not in names and "distributed" not in names and "nbgrader" in names
    assert "optional-dependencies" not in config["project"]


# --- every lesson and exercise runs in the student venv's kernel --------------------------------

# Each notebook runs in a kernel of its own, as Run All does; a last cell, added here after the
# notebook's own, says which Python that kernel was (no kernel started only to ask that). The
# runner starts with packlab.course.kernels' own source (kernels on unix sockets): the learners'
# install leaves that module out.
RUNNER = Path(kernels.__file__).read_text(encoding="utf-8") + """
import json, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from nbclient.exceptions import CellExecutionError

def execute(path):
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.prefix)"))
    client = notebook_client(notebook, timeout=300, kernel_name="python3",
                             resources={"metadata": {"path": tempfile.mkdtemp()}})
    try:
        client.execute()
    except CellExecutionError as exc:
        failed = next(c for c in notebook.cells if c.get("outputs") and any(
            o.output_type == "error" for o in c.outputs))
        return {"path": path, "error": exc.ename, "text": str(exc.evalue),
                "cell": failed.metadata.get("nbgrader", {}).get("grade_id", "")}
    kernel = notebook.cells.pop().outputs[0].text.strip()
    said = {c.metadata["nbgrader"]["grade_id"]: "".join(
                o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in c.outputs)
            for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")
            and any(o.get("name") == "stderr" for o in c.get("outputs", []))}
    return {"path": path, "error": None, "failed": said, "kernel": kernel}

with ThreadPoolExecutor(2) as pool:
    results = list(pool.map(execute, sys.argv[1:]))
print(json.dumps(results))
"""


def test_every_lesson_and_exercise_runs_in_the_student_kernel(built, venv, outside):
    lessons = [built / lesson.path.relative_to(ROOT) for lesson in COURSE.lessons]
    exercises = {str(built / e.release.relative_to(ROOT)): e for e in COURSE.exercises}
    done = run([venv["python"], "-c", RUNNER, *lessons, *exercises], cwd=outside,
               env=venv["env"])
    errors = done.stderr  # its start (a kernel's own error) and its end (the runner's)
    assert done.returncode == 0, \
        errors if len(errors) <= 5000 else f"{errors[:3000]}\n[...]\n{errors[-2000:]}"
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(results) == len(lessons) + len(exercises)
    for result in results:
        exercise = exercises.get(result["path"])
        assert result["error"] is None, result  # Run All goes on past a failing check
        assert Path(result["kernel"]) == venv["python"].parent.parent, result
        if exercise is not None:  # a released exercise fails its visible test cell (on
            # stderr, which nbgrader scores 0): not written yet, or (03, which starts from the
            # buggy code to fix) with the bug's own failures; of an exercise in steps, each
            # step's visible cell
            visible = [exercise.grade_id(group) for group in exercise.visible_groups]
            assert list(result["failed"]) == visible, result
            expected = "checks failed" if exercise.starter else "not written yet"
            assert all(expected in result["failed"][cell] for cell in visible), result


# --- the builder's refusals ---------------------------------------------------------------------

def test_it_refuses_a_folder_that_is_not_a_student_build(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    refused = run([PACKLAB, "student-build", tmp_path], cwd=ROOT)
    assert refused.returncode == 2 and "not a student install" in " ".join(refused.stdout.split())
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_it_replaces_a_previous_build_and_keeps_the_learners_work(tmp_path):
    folder = tmp_path / "again"
    student.build(folder)
    (folder / "autograder" / "stale.py").write_text("left from an older build")
    (folder / "workspace").mkdir()
    (folder / "workspace" / "mine.ipynb").write_text("{}")
    student.build(folder)
    assert not (folder / "autograder" / "stale.py").exists()
    assert (folder / "workspace" / "mine.ipynb").read_text() == "{}"


def test_it_refuses_when_the_learners_code_would_import_something_hidden(monkeypatch):
    monkeypatch.setattr(student, "ROOTS", (*student.ROOTS, "autograder.checks.gallery"))
    with pytest.raises(student.BuildRefused, match="autograder.checks.gallery"):
        student.plan()


def test_it_never_copies_what_gitignore_lists_or_a_forbidden_folder():
    for path, why in ((Path("gradebook.db"), ".gitignore"), (Path("tests/conftest.py"),
                                                                 "never holds")):
        plan = student.Plan(copies={path: ROOT / path})
        with pytest.raises(student.BuildRefused, match=why):
            student._refuse_forbidden(plan)
