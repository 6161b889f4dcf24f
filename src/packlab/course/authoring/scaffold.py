"""`packlab new-exercise`: every file an exercise of the course's own kind needs, from a few
answers (its name, function, signature, lesson and points).

It writes the reference answer, the visible suite with its table of misconceptions, the hidden
edge cases and properties, the solution notebook (its grade_ids made from the function's name, as
course.toml's readers expect) and the exercise's entry in course.toml, inserted after the last
exercise so the file's comments stay. Each Python file says at its top what to fill in; `packlab
author check NAME` then says what is still missing.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from packlab.manifest import Course, Exercise

TEMPLATES = Path(__file__).parent / "templates"
GROUPS = ("visible", "edge-cases", "properties")
NAME = re.compile(r"^\d\d[a-z]?-[a-z0-9]+(-[a-z0-9]+)*$")
FILL_IN = "FILL IN"
GROUP_WORDS = {"edge-cases": "Edge cases", "properties": "Properties"}


@dataclass(frozen=True)
class Answers:
    """What the author says of the new exercise."""

    name: str  # "11-trim-history": its number first, then words joined by dashes
    function: str  # "trim_history"
    signature: str  # "trim_history(turns: list[dict], budget: int) -> list[dict]"
    points: dict[str, int]  # {"visible": 1, "edge-cases": 2, "properties": 2}
    lesson: str | None = None  # the slug of the lesson it goes with, if any
    title: str = ""
    teaches: str = f"{FILL_IN}: what the exercise teaches, in one sentence."
    leaves_out: str = f"{FILL_IN}: what it leaves out, and where that is taught."
    raises: bool = False  # must it also raise ValueError for input it refuses?
    hints: tuple[str, ...] = field(default=(
        f"{FILL_IN}: a first hint that asks the learner a question?",
        f"{FILL_IN}: a second hint, closer to the answer.",
        f"{FILL_IN}: a last hint that all but gives the answer.",
    ))

    @property
    def suite(self) -> str:
        """The suite's module name: the function's."""
        return self.function

    @property
    def heading(self) -> str:
        return self.title or f"Write `{self.function}`"


def problems(answers: Answers, course: Course, root: Path) -> list[str]:
    """What is wrong with the answers, in words (nothing is written while any is)."""
    found = []
    if not NAME.match(answers.name):
        found.append(f"the name {answers.name!r} must be the exercise's number and words joined "
                     "by dashes, like 11-trim-history")
    if not answers.function.isidentifier():
        found.append(f"the function {answers.function!r} is not a Python name")
    try:
        tree = ast.parse(f"def {answers.signature}:\n    pass").body[0]
        if not isinstance(tree, ast.FunctionDef) or tree.name != answers.function:
            found.append(f"the signature must start with {answers.function}(")
    except SyntaxError:
        found.append(f"the signature {answers.signature!r} is not a Python function signature, "
                     f"like {answers.function}(parts: list[dict], budget: int) -> list[str]")
    slugs = [lesson.slug for lesson in course.lessons]
    if answers.lesson is not None and answers.lesson not in slugs:
        found.append(f"there is no lesson {answers.lesson!r}; the lessons are {', '.join(slugs)}")
    if list(answers.points) != list(GROUPS) or any(
            type(p) is not int or p < 0 for p in answers.points.values()):
        found.append("the points are three whole numbers, for the visible tests, the edge cases "
                     "and the properties, like 1,2,2")
    if any(e.name == answers.name or e.name[:2] == answers.name[:2] for e in course.exercises):
        found.append(f"an exercise numbered {answers.name[:2]} is in course.toml already: "
                     "choose another number")
    taken = [path for path in paths(answers, root).values() if path.exists()]
    found += [f"{path.relative_to(root)} exists already: nothing was overwritten" for path in taken]
    return found


def paths(answers: Answers, root: Path) -> dict[str, Path]:
    """Where each generated file goes."""
    checks = root / "autograder" / "checks"
    return {
        "reference": checks / "reference" / f"{answers.suite}.py",
        "suite": checks / "suites" / f"{answers.suite}.py",
        "hidden": checks / "hidden" / f"{answers.suite}.py",
        "notebook": root / "solutions" / answers.name / f"{answers.name}.ipynb",
    }


TOKEN_WORDS = ("budget", "token", "reserve")  # a whole-number argument so named is in tokens


def counts(signature: str) -> dict[int, str]:
    """The whole-number parameters of ``signature`` that count things rather than tokens (by
    position): annotated ``int`` and not named for a budget, tokens or a reserve."""
    tree = ast.parse(f"def {signature}:\n    pass").body[0]
    params = tree.args.args if isinstance(tree, ast.FunctionDef) else []
    return {position: arg.arg for position, arg in enumerate(params)
            if isinstance(arg.annotation, ast.Name) and arg.annotation.id == "int"
            and not any(word in arg.arg.lower() for word in TOKEN_WORDS)}


def _python(template: str, answers: Answers) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined,
                      keep_trailing_newline=True, autoescape=False)  # noqa: S701 - Python, not HTML
    counted = counts(answers.signature)
    return env.get_template(template).render(
        name=answers.name, function=answers.function, signature=answers.signature,
        suite=answers.suite, lesson=answers.lesson or "", raises=answers.raises,
        counts=repr(tuple(counted)), count_names=", ".join(counted.values()))


def _points_sentence(points: dict[str, int]) -> str:
    total = sum(points.values())
    return (f"{total} points: {points['visible']} for the visible tests below, "
            f"{points['edge-cases']} for hidden edge cases and {points['properties']} for hidden "
            "properties checked on generated inputs.")


def intro(answers: Answers, course: Course) -> str:
    """The notebook's first cell: what the exercise teaches and leaves out, as course.toml says."""
    lines = [f"# Exercise {answers.name[:2]}: {answers.heading}", ""]
    if answers.lesson:
        lesson = course.lesson(answers.lesson)
        lines += [f"*Goes with lesson {lesson.slug[:2]}, [{lesson.title}]"
                  f"(../../lessons/{lesson.slug}.ipynb).*", ""]
    lines += [f"**What it teaches.** {answers.teaches}", "",
              f"**What it leaves out.** {answers.leaves_out}", "",
              f"**How it is graded.** {_points_sentence(answers.points)}"]
    return "\n".join(lines)


def _refuses(answers: Answers) -> str:
    return ", and which input it refuses with a ValueError" if answers.raises else ""


def notebook(answers: Answers, course: Course) -> nbformat.NotebookNode:
    """The solution notebook, its grade_ids made as `Exercise.grade_id` makes them."""
    grade_id = Exercise(name=answers.name, function=answers.function, signature="", suite="",
                        points={}, teaches="", leaves_out="", hints=()).grade_id
    key = answers.name[:2] if not any(e.name[:2] == answers.name[:2]
                                      for e in course.exercises) else answers.name

    def text(cell_id: str, source: str) -> nbformat.NotebookNode:
        return nbformat.v4.new_markdown_cell(source, metadata={"nbgrader": {
            "grade": False, "grade_id": cell_id, "locked": True, "schema_version": 3,
            "solution": False}})

    def code(cell_id: str, source: str, points: int | None = None,
             solution: bool = False) -> nbformat.NotebookNode:
        meta = {"grade": points is not None, "grade_id": cell_id, "locked": not solution,
                "schema_version": 3, "solution": solution}
        if points is not None:
            meta["points"] = points
        return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})

    call = f'run_tests("{answers.name}", {answers.function}, '
    cells = [
        text("intro", intro(answers, course)),
        text("task", f"## Your task\n\n{FILL_IN}: what to write, with one example call and its "
             f"answer{_refuses(answers)}.\n\n```python\n{answers.signature}\n```"),
        code(grade_id("answer"), f"def {answers.signature}:\n    \"\"\"{FILL_IN}: what it "
             "returns, in one line.\"\"\"\n    ### BEGIN SOLUTION\n    raise "
             f"NotImplementedError(\"{FILL_IN}: the model answer\")\n    ### END SOLUTION",
             solution=True),
        text("check-intro", "## Check your answer\n\nRun the cell below. It calls your function "
             "on a few examples and says, for each one, what came back and what was expected. "
             "Change your answer and run both cells again until every check passes.\n\nStuck? "
             f"In a terminal: `packlab hint {key}`; or in a cell: `from packlab.course.hints "
             f"import hint; hint(\"{key}\")`. Each call shows one more hint."),
        code(grade_id("visible"), "# Visible tests.\nfrom packlab.course.check import run_tests"
             f"\n\n{call}\"visible\")", answers.points["visible"]),
        text("hidden-intro", "## Hidden tests\n\nTwo more groups of tests decide the rest of "
             "the points. In the course's own install (`make lab`) the visible test cell above "
             "already runs them and reports every group; in a student install they run when your "
             "notebook is graded. Their code is never shown, but if one fails you get the same "
             "kind of message as above.\n\n"
             f"- **Edge cases** ({answers.points['edge-cases']} points).\n"
             f"- **Properties** ({answers.points['properties']} points): checked on generated "
             "inputs."),
    ]
    for group in GROUPS[1:]:
        cells.append(code(grade_id(group), f"# Hidden tests: {GROUP_WORDS[group].lower()}.\n"
                          f"### BEGIN HIDDEN TESTS\n{call}\"{group}\")\n### END HIDDEN TESTS",
                          answers.points[group]))
    made = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}})
    for number, cell in enumerate(made.cells):
        cell.id = f"{answers.name[:2]}-{number:02d}"
    return made


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def entry(answers: Answers) -> str:
    """The exercise's [[exercises]] entry for course.toml."""
    points = ", ".join(f"{group} = {answers.points[group]}" for group in GROUPS)
    lines = ["[[exercises]]", f"name = {_toml_string(answers.name)}"]
    if answers.lesson:
        lines.append(f"lesson = {_toml_string(answers.lesson)}")
    lines += [f"function = {_toml_string(answers.function)}",
              f"signature = {_toml_string(answers.signature)}",
              f"suite = {_toml_string(answers.suite)}",
              f"points = {{ {points} }}",
              f"teaches = {_toml_string(answers.teaches)}",
              f"leaves_out = {_toml_string(answers.leaves_out)}",
              "hints = [",
              *(f"    {_toml_string(hint)}," for hint in answers.hints),
              "]"]
    return "\n".join(lines) + "\n"


def with_entry(manifest: str, new: str) -> str:
    """course.toml's text with ``new`` after the last [[exercises]] entry (and its steps): before
    the comments and the table that follow it, so every comment stays where it was."""
    lines = manifest.splitlines(keepends=True)
    last = max((i for i, line in enumerate(lines) if line.strip() == "[[exercises]]"), default=None)
    if last is None:
        return manifest.rstrip("\n") + "\n\n" + new
    end = next((i for i in range(last + 1, len(lines))  # its own [[exercises.steps]] stay
                if lines[i].startswith("[") and not lines[i].startswith(("[exercises.",
                                                                         "[[exercises."))),
               len(lines))
    while end > last + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
        end -= 1
    before = "".join(lines[:end]).rstrip("\n") + "\n\n"
    after = "".join(lines[end:])
    return before + new + ("\n" + after.lstrip("\n") if after.strip() else "")


def create(answers: Answers, course: Course, root: Path, manifest: Path) -> list[Path]:
    """Write every file of the new exercise and its course.toml entry; the paths written."""
    where = paths(answers, root)
    for kind in ("reference", "suite", "hidden"):
        where[kind].write_text(_python(f"{kind}.py.j2", answers), encoding="utf-8")
    where["notebook"].parent.mkdir(parents=True)
    nbformat.write(notebook(answers, course), where["notebook"])
    manifest.write_text(with_entry(manifest.read_text(encoding="utf-8"), entry(answers)),
                        encoding="utf-8")
    return [*where.values(), manifest]
