"""The course map, generated from course.toml: every lesson with its exercises (none, one or
several), then the exercises that go with no lesson. The README's block between the two markers,
the book's intro and the start page all show this one table (`packlab course-map` rewrites the
README's block; a test keeps the committed one current)."""

from __future__ import annotations

import ast
from pathlib import Path

from packlab.manifest import ROOT, Course, Exercise, Lesson

START = "<!-- course-map:start -->"
END = "<!-- course-map:end -->"
README = ROOT / "README.md"
HEADER = ("| # | Lesson | Exercise (graded) | You write |", "|---|---|---|---|")
NONE = "—"


class MapError(ValueError):
    """The README has no place for the course map."""


def short_signature(signature: str) -> str:
    """The signature without its parameters' types: ``pack(parts, budget) -> list[str]``."""
    try:
        tree = ast.parse(f"def {signature}:\n    pass").body[0]
    except SyntaxError:
        return signature
    assert isinstance(tree, ast.FunctionDef)
    for arg in (*tree.args.posonlyargs, *tree.args.args, *tree.args.kwonlyargs):
        arg.annotation = None
    text = ast.unparse(tree).splitlines()[0].removeprefix("def ").rstrip(":")
    return text


def _cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _lesson_cell(lesson: Lesson) -> str:
    return f"[{_cell(lesson.title)}](lessons/{lesson.slug}.ipynb)"


def _exercise_cells(exercise: Exercise) -> str:
    link = f"[{exercise.name}](exercises/{exercise.name}/{exercise.name}.ipynb)"
    steps = f" in {len(exercise.steps)} steps" if exercise.steps else ""
    return f"{link} | `{_cell(short_signature(exercise.signature))}`{steps}"


def rows(course: Course) -> list[str]:
    """The table's rows: a lesson's first exercise beside it, its others below it."""
    lines = []
    for lesson in course.lessons:
        exercises = course.exercises_of(lesson.slug)
        if not exercises:
            lines.append(f"| {lesson.slug[:2]} | {_lesson_cell(lesson)} | {NONE} | |")
        for position, exercise in enumerate(exercises):
            left = f"{lesson.slug[:2]} | {_lesson_cell(lesson)}" if position == 0 else " | "
            lines.append(f"| {left} | {_exercise_cells(exercise)} |")
    for exercise in course.unattached:
        lines.append(f"| {exercise.name[:2]} | {NONE} (no lesson) | {_exercise_cells(exercise)} |")
    return lines


def table(course: Course) -> str:
    """The course map as a Markdown table."""
    return "\n".join([*HEADER, *rows(course)]) + "\n"


def block(course: Course) -> str:
    """The README's block: the markers and the table between them."""
    return f"{START}\n{table(course)}{END}"


def _span(text: str, readme: Path) -> tuple[int, int]:
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start or text.count(START) != 1 or text.count(END) != 1:
        raise MapError(f"{readme.name} needs one line {START} and, after it, one line {END}: "
                       "the course map is written between them.")
    return start, end + len(END)


def current(course: Course, readme: Path = README) -> bool:
    """Whether the README's block is the map of ``course``."""
    text = readme.read_text(encoding="utf-8")
    start, end = _span(text, readme)
    return text[start:end] == block(course)


def write(course: Course, readme: Path = README) -> bool:
    """Write the map into the README's block; whether it changed."""
    text = readme.read_text(encoding="utf-8")
    start, end = _span(text, readme)
    new = text[:start] + block(course) + text[end:]
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text
