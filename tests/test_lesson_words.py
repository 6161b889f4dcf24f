"""The lessons' prose stays within the course's word limits (issue 20).

Every lesson in the manifest is held to the same limits, read from their one place,
benchmarks/lesson_words.py, which also counts the words the same way for the README's table.
"""

from __future__ import annotations

import importlib.util

import nbformat
import pytest
from conftest import COURSE

from packlab.manifest import ROOT


def _lesson_words():
    """benchmarks/lesson_words.py, loaded as a module (benchmarks/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("lesson_words",
                                                  ROOT / "benchmarks" / "lesson_words.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WORDS = _lesson_words()


def words(lesson) -> int:
    return WORDS.prose_words(nbformat.read(lesson.path, as_version=4))


@pytest.mark.parametrize("lesson", COURSE.lessons, ids=lambda lesson: lesson.slug)
def test_no_lesson_has_more_prose_than_the_limit(lesson):
    assert words(lesson) <= WORDS.PER_LESSON, (
        f"{lesson.slug}: {words(lesson)} words of prose, the limit is {WORDS.PER_LESSON}")


def test_the_course_has_at_most_the_total_words_of_prose():
    total = sum(words(lesson) for lesson in COURSE.lessons)
    assert total <= WORDS.TOTAL, f"{total} words of prose, the limit is {WORDS.TOTAL}"


def test_a_markdown_fence_is_not_prose():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Two words\n\n```python\nprint('not prose')\n```"),
        nbformat.v4.new_code_cell("# code is not prose either")])
    assert WORDS.prose_words(notebook) == 2
