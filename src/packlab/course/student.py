"""The student install: a folder with what learners use and nothing the instructor keeps back.

`packlab student-build DIR` writes it from an allow-list, all of it in this module: the course
manifest, the lessons, the released exercises, and the Python modules that the learner commands
(`packlab lab`, `check`, `hint`, `progress`), the notebooks and their test cells import: the import
closure of `ROOTS`, of `packlab.course.cli` as the student install runs it (its learner commands;
the presenter's and instructor's modules are imported only outside that install), of every lesson's
and exercise's code cells and of each exercise's suite. Nothing else is copied: not solutions/, not
the hidden test groups (autograder/checks/hidden/), not the reference answers the suites judge by
(autograder/checks/reference/: the visible checks read the answers recorded for their calls,
`autograder.checks.recorded`, and `packlab.packing` holds teaching versions), not the mutant or
attack galleries, not the grader's instructor-only modules, not the presenter's notebook with its
speaker notes. `NEVER` is a tripwire on top: a closure that reaches any of it stops the build.

The folder keeps the checkout's layout (src/packlab, autograder/, course.toml at the top), so
`manifest.ROOT` finds the course once it is installed with `pip install -e DIR`. Its course.toml
says `[build] student = true` (`manifest.Course.student_install`).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from packlab.course import predictions, quiz
from packlab.manifest import ROOT, STUDENT_MARKER, Course, load

# Where the import closure starts, besides the learner commands and the notebooks (the
# Assignments tab's server extension: Jupyter imports it by name in a learner's server).
ROOTS = ("packlab.course.check", "packlab.course.assignments_tab")
# Modules and packages that must never reach a student (a closure that needs one stops the build).
NEVER = ("autograder.checks.hidden", "autograder.checks.reference", "autograder.checks.mutants",
         "autograder.checks.attacks",
         "autograder.checks.gallery",
         "autograder.cohort.classroom", "autograder.glue.release", "packlab.course.notes",
         "packlab.course.workshop", "packlab.course.student", "packlab.course.cli.instructor",
         "packlab.course.cli.presenter", "packlab.course.cli.author", "packlab.course.authoring",
         "packlab.course.cli.hub", "packlab.course.hub")
# Top-level folders that are never copied, whatever the lists above say.
NEVER_FOLDERS = (".git", "solutions", "tests", "benchmarks", "workshop", "book")
# Dependencies only the instructor's commands use (similarity, grading on a cluster).
INSTRUCTOR_DEPENDENCIES = ("copydetect", "distributed")
SKIPPED = ("__pycache__", ".ipynb_checkpoints")
CLI = "packlab.course.cli"

README = """# {title} — student install

{tagline}

This is the learners' copy of the course: the lessons, the exercises as released, their visible
checks and hints. The reference answers and the hidden tests that grade your work are not part
of it; they run when your instructor grades the notebook you hand in.

    packlab lab              # the course in JupyterLab, in your own copies
    packlab check NOTEBOOK   # an exercise's visible checks, on your saved notebook
    packlab hint 02          # the next hint for exercise 02
    packlab progress         # which of your exercises pass

Installed with `pip install -e <this folder>` (the course is read from here, so leave it where
it was installed). Built by `packlab student-build` from the instructor's checkout: do not edit.
"""


class BuildRefused(Exception):
    """The student install cannot be written; the message says why in plain words."""


@dataclass
class Plan:
    """What the student install holds: files copied from the checkout, and files written."""

    copies: dict[Path, Path] = field(default_factory=dict)  # in the build -> in the checkout
    texts: dict[Path, str] = field(default_factory=dict)  # in the build -> its text
    modules: tuple[str, ...] = ()

    @property
    def paths(self) -> list[Path]:
        return sorted([*self.copies, *self.texts])


# --- the import closure -----------------------------------------------------------------------

@cache
def _pyproject() -> dict:
    """The checkout's pyproject.toml, read."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _package_dirs() -> dict[str, Path]:
    """Each top-level package and its folder, as the checkout's pyproject.toml maps them."""
    return {name: ROOT / folder
            for name, folder in _pyproject()["tool"]["setuptools"]["package-dir"].items()}


def module_file(name: str) -> Path | None:
    """The source file of a packlab or autograder module (a package's __init__.py)."""
    top, *rest = name.split(".")
    folder = _package_dirs().get(top)
    if folder is None:
        return None
    base = folder.joinpath(*rest)
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _imported(nodes: Iterable[ast.AST], package: str) -> set[str]:
    """Every module an import statement among ``nodes`` may name (``from a import b``: a, a.b)."""
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _learner_walk(node: ast.AST) -> Iterable[ast.AST]:
    """`ast.walk`, leaving out what runs only outside the student install."""
    yield node
    for child in ast.iter_child_nodes(node):
        if _instructor_only(child):
            yield from (n for item in child.orelse for n in _learner_walk(item))
        else:
            yield from _learner_walk(child)


def _instructor_only(node: ast.AST) -> bool:
    """True for `if not student_install:` (the name cli.parser gives the manifest's marker)."""
    return (isinstance(node, ast.If) and isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not) and isinstance(node.test.operand, ast.Name)
            and node.test.operand.id == "student_install")


def closure(roots: Iterable[str]) -> tuple[str, ...]:
    """The packlab and autograder modules that ``roots`` import, directly or not, with their
    packages; in the command's parser only what runs in the student install."""
    tops = tuple(_package_dirs())
    todo, seen = list(roots), set()
    while todo:
        name = todo.pop()
        if name in seen or name.split(".")[0] not in tops:
            continue
        path = module_file(name)
        if path is None:
            continue  # `from package import function`: not a module
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:end]) for end in range(1, len(parts))]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        nodes = _learner_walk(tree) if name == CLI else ast.walk(tree)
        todo += sorted(_imported(nodes, package))
    return tuple(sorted(seen))


def notebook_imports(paths: Iterable[Path]) -> set[str]:
    """Every module the code cells of these notebooks import (read as IPython reads them)."""
    import nbformat
    from IPython.core.inputtransformer2 import TransformerManager

    reader = TransformerManager()
    found = set()
    for path in paths:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                tree = ast.parse(reader.transform_cell(cell.source), filename=str(path))
                found |= _imported(ast.walk(tree), "") | _extensions(tree)
    return found


def _extensions(tree: ast.AST) -> set[str]:
    """The modules a cell loads as IPython extensions (``%load_ext packlab.course.reveal``)."""
    return {node.args[1].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run_line_magic" and len(node.args) == 2
            and all(isinstance(arg, ast.Constant) for arg in node.args)
            and node.args[0].value == "load_ext"}


def student_modules(course: Course) -> tuple[str, ...]:
    """Every module the student install holds; refuses when one of them must stay out."""
    suites = {f"autograder.checks.suites.{exercise.suite}" for exercise in course.exercises}
    roots = [CLI, *ROOTS, *sorted(suites), *sorted(notebook_imports(_notebooks(course)))]
    modules = closure(roots)
    leaks = [m for m in modules if any(m == n or m.startswith(f"{n}.") for n in NEVER)]
    if leaks:
        raise BuildRefused(f"the code of the learner commands and notebooks imports "
                           f"{', '.join(leaks)}, which must not "
                           "reach students: change that import, then build again.")
    return modules


def _notebooks(course: Course) -> list[Path]:
    """The lessons and the released exercises."""
    return [lesson.path for lesson in course.lessons] + [e.release for e in course.exercises]


# --- the files --------------------------------------------------------------------------------

def pyproject(packages: list[str]) -> str:
    """The student install's pyproject.toml: the instructor's runtime dependencies minus the
    instructor-only ones, the same command, and exactly the packages in the folder."""
    config = _pyproject()
    project, setup = config["project"], config["tool"]["setuptools"]
    dependencies = [d for d in project["dependencies"]
                    if re.match(r"[A-Za-z0-9._-]+", d).group().lower()
                    not in INSTRUCTOR_DEPENDENCIES]
    text = json.dumps  # a JSON string, or list of strings, is a TOML one too
    folders = ", ".join(f"{text(k)} = {text(v)}" for k, v in setup["package-dir"].items())
    return "\n".join([
        "# Written by `packlab student-build`: the learners' install of the course.",
        "[build-system]", f"requires = {text(config['build-system']['requires'])}",
        f"build-backend = {text(config['build-system']['build-backend'])}", "",
        "[project]", f"name = {text(project['name'])}", f"version = {text(project['version'])}",
        f"description = {text(project['description'] + ' (student install)')}",
        'readme = "README.md"', f"requires-python = {text(project['requires-python'])}",
        f"dependencies = {text(dependencies)}", "",
        "[project.scripts]", *(f"{k} = {text(v)}" for k, v in project["scripts"].items()), "",
        "[tool.setuptools]", f"package-dir = {{ {folders} }}", f"packages = {text(packages)}",
        "", "[tool.setuptools.package-data]",
        *(f"{text(name)} = {text(patterns)}" for name, patterns in _package_data(packages).items()),
        "",
    ])


def _package_data(packages: Iterable[str]) -> dict[str, list[str]]:
    """The checkout's package data of the packages the student install holds (the quizzes and
    the predictions sealed: `packlab.course.quiz`, `packlab.course.predictions`)."""
    data = _pyproject()["tool"]["setuptools"].get("package-data", {})
    sealed = {quiz.QUIZZES: quiz.SEALED, predictions.PREDICTIONS: predictions.SEALED}
    return {package: [sealed.get(p, p) for p in patterns]
            for package, patterns in data.items() if package in packages}


def plan() -> Plan:
    """Everything the student install holds, from the checkout the command runs from."""
    course = load()
    result = Plan(modules=student_modules(course))
    packages = [m for m in result.modules if module_file(m).name == "__init__.py"]
    sources = [module_file(module) for module in result.modules] + _notebooks(course)
    for package, patterns in _package_data(packages).items():
        folder = module_file(package).parent
        sources += [path for pattern in patterns for path in sorted(folder.glob(pattern))
                    if path.is_file() and not set(SKIPPED) & set(path.parts)]
    result.copies = {source.relative_to(ROOT): source for source in sources}
    manifest = (ROOT / "course.toml").read_text(encoding="utf-8")
    quizzes = module_file("packlab.course.quiz").parent / quiz.SEALED
    result.texts = {
        Path("course.toml"): manifest.rstrip("\n") + "\n\n" + STUDENT_MARKER,
        Path("pyproject.toml"): pyproject(packages),
        Path("README.md"): README.format(title=course.title, tagline=course.tagline),
        quizzes.relative_to(ROOT): quiz.sealed(quiz.questions()),
        quizzes.with_name(predictions.SEALED).relative_to(ROOT): predictions.sealed(),
    }
    _refuse_forbidden(result)
    return result


def _refuse_forbidden(result: Plan) -> None:
    """Stop before writing anything that .gitignore lists or that lives in a forbidden folder."""
    forbidden = [p for p in result.paths if p.parts[0] in NEVER_FOLDERS]
    if forbidden:
        raise BuildRefused(f"{forbidden[0]} is in a folder the student install never holds.")
    names = "\0".join(str(p) for p in sorted(result.copies))
    try:
        run = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--stdin", "-z"],
                             input=names, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise BuildRefused("git is not installed, and the build needs it to leave out what "
                           ".gitignore lists: install git, then build again.") from None
    if run.returncode > 1:
        raise BuildRefused(f"{ROOT} is not a git checkout of the course, so what .gitignore "
                           "lists cannot be left out: build from a clone of the course.")
    ignored = [name for name in run.stdout.split("\0") if name]
    if ignored:
        raise BuildRefused(f"{ignored[0]} is listed in .gitignore, so it is not copied, and "
                           "the student install cannot be built without it.")


# --- writing it -------------------------------------------------------------------------------

def is_student_build(folder: Path) -> bool:
    """Whether ``folder`` holds a student install that this command wrote."""
    try:
        return load(folder / "course.toml").student_install
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _clear(folder: Path, result: Plan) -> None:
    """Make room in ``folder``: refuse a non-empty folder that is not a student install; in a
    previous one, remove what the build writes (anything else, a learner's work, stays)."""
    if folder.exists() and not folder.is_dir():
        raise BuildRefused(f"{folder} is a file, not a folder.")
    if not folder.exists() or not any(folder.iterdir()):
        return
    if not is_student_build(folder):
        raise BuildRefused(f"{folder} is not empty and is not a student install: give a new or "
                           "empty folder, or a previous student build to replace.")
    for name in sorted({path.parts[0] for path in result.paths}):
        target = folder / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()


def build(folder: Path) -> Plan:
    """Write the student install into ``folder`` (new, empty or a previous student build)."""
    result = plan()
    _clear(folder, result)
    for path, source in result.copies.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / path)
    for path, text in result.texts.items():
        (folder / path).write_text(text, encoding="utf-8")
    return result
