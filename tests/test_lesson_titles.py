"""Every lesson's title reads the same way: "Lesson 03 · The early-stop trap: ...".

The words come from course.toml (the one list of lessons); the notebook's first heading may set
names in code font. The book's sidebar shows these headings (tests/test_browser_book.py).
"""

from __future__ import annotations

import nbformat
import pytest

from packlab.manifest import load

LESSONS = load().lessons


def heading(title: str, number: str) -> str:
    """A lesson's title as the course shows it: the one form, from the manifest's words."""
    return f"Lesson {number} · {title}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_the_first_heading_is_the_lessons_title_in_the_one_form(lesson):
    first = nbformat.read(lesson.path, as_version=4).cells[0]
    line = first.source.splitlines()[0]
    assert first.cell_type == "markdown" and line.startswith("# "), line
    shown = line.removeprefix("# ").replace("`", "")  # what a reader sees, code font aside
    assert shown == heading(lesson.title, lesson.slug[:2]), (
        f"{lesson.path.name} starts with {line!r}; course.toml's title in the one form is "
        f"{heading(lesson.title, lesson.slug[:2])!r}")
