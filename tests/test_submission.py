"""The grader reads a student's cells the way IPython does: magics become `get_ipython()` calls,
and Python that merely starts a line with `%` or `!` (a continuation line) is left alone."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, with_answer

from autograder.run import submission
from autograder.run.engine import grade_notebook
from packlab.course.cli import main as packlab

EXERCISE = COURSE.exercise("02")

# An honest answer to exercise 02 as the `black` formatter lays it out: the wrapped condition goes
# on with a line that starts with `!=`, the %-formatted message with a line that starts with `%`.
BLACK_ANSWER = '''\
def pack(parts: list[dict], budget: int) -> list[str]:
    """Return the ids of the parts that fit, in input order."""
    if (
        len([part for part in parts if "id" in part and part.get("tokens", -1) >= 0])
        != len(parts)
        or budget < 0
    ):
        raise ValueError(
            "each part needs an id and 0 or more tokens, and the budget %r must be 0 or more"
            % (budget,)
        )
    used = 0
    kept = []
    for part in parts:
        if used + part["tokens"] <= budget:
            kept.append(part["id"])
            used += part["tokens"]
    return kept'''

# The same answer wrapped by hand, continuation lines aligned with the opening bracket.
ALIGNED_ANSWER = '''\
def pack(parts, budget):
    if budget < 0:
        raise ValueError("the budget %r must be 0 or more (there are %d parts)"
                         % (budget, len(parts)))
    if (len({part["id"] for part in parts})
            != len(parts)):
        raise ValueError("two parts have the same id")
    kept, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            kept.append(part["id"])
            used += part["tokens"]
    return kept'''


def notebook_with(tmp_path: Path, answer: str, *added: str) -> Path:
    """Exercise 02 as released, with this answer and the student's own cells after it."""
    notebook = with_answer(EXERCISE, answer)
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in added]
    path = tmp_path / f"{EXERCISE.name}.ipynb"
    nbformat.write(notebook, path)
    return path


def read(tmp_path: Path, answer: str, *added: str) -> list[str]:
    """The student's cells as the grader will run them."""
    return submission.read(notebook_with(tmp_path, answer, *added), EXERCISE).cells


@pytest.mark.parametrize("answer", [BLACK_ANSWER, ALIGNED_ANSWER], ids=["black", "aligned"])
def test_continuation_lines_starting_with_percent_or_bang_are_left_as_written(tmp_path, answer):
    cells = read(tmp_path, answer)
    assert cells[0].rstrip("\n") == answer
    compile(cells[0], "<answer>", "exec")


def test_a_percent_format_continued_in_brackets_survives(tmp_path):
    answer = '''\
def pack(parts, budget, reserve=0):
    if reserve >= budget:
        raise ValueError("reserve %r must be smaller than the budget %r"
                         % (reserve, budget))
    return [part["id"] for part in parts]'''
    cells = read(tmp_path, answer)
    assert "                         % (reserve, budget))" in cells[0].splitlines()
    assert "pass" not in cells[0]


def test_a_black_wrapped_condition_starting_with_not_equal_survives(tmp_path):
    answer = '''\
def pack(parts, budget):
    if (
        len({part["id"] for part in parts if isinstance(part.get("id"), str)})
        != len(parts)
    ):
        raise ValueError("every part needs its own id")
    return []'''
    cells = read(tmp_path, answer)
    assert "        != len(parts)" in cells[0].splitlines()
    compile(cells[0], "<answer>", "exec")


@pytest.mark.parametrize(("cell", "python"), [
    ("%time x = 1", "get_ipython().run_line_magic('time', 'x = 1')\n"),
    ("!ls", "get_ipython().system('ls')\n"),
    ("files = !ls", "files = get_ipython().getoutput('ls')\n"),
    ("if True:\n    %matplotlib inline\n    y = 2",
     "if True:\n    get_ipython().run_line_magic('matplotlib', 'inline')\n    y = 2\n"),
    ("%%time\nx = 1\ny = x % 2",
     "get_ipython().run_cell_magic('time', '', 'x = 1\\ny = x % 2\\n')\n"),
    ("pack?", "get_ipython().run_line_magic('pinfo', 'pack')\n"),
], ids=["line-magic", "shell", "shell-assign", "indented-magic", "cell-magic", "help"])
def test_ipython_syntax_becomes_get_ipython_calls(tmp_path, cell, python):
    cells = read(tmp_path, BLACK_ANSWER, cell)
    assert cells[1] == python
    compile(cells[1], "<cell>", "exec")


@pytest.mark.parametrize("cell", [
    'def pack(parts, budget:\n    return [p["id"] for p in parts if p["tokens"] % 2]',
    "if True:\n        x = 1\n    %time y = 2",  # IPython's own reader raises IndentationError
], ids=["syntax-error", "ipython-cannot-read"])
def test_a_cell_with_a_syntax_error_is_passed_on_as_written(tmp_path, cell):
    cells = read(tmp_path, BLACK_ANSWER, cell)
    assert cells[1].rstrip("\n") == cell
    with pytest.raises(SyntaxError):
        compile(cells[1], "<cell>", "exec")


def test_plain_python_cells_are_untouched_and_ipython_is_not_imported(tmp_path):
    path = notebook_with(tmp_path, "def pack(parts, budget):\n    return []", "x = 1")
    script = ("import sys, autograder.run.submission as s\n"
              "from packlab.manifest import load\n"
              f"cells = s.read({str(path)!r}, load().exercise('02')).cells\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'IPython'))\n"
              "print(cells[1] == 'x = 1')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert out.split("\n")[:2] == ["[]", "True"]


def test_a_notebook_full_of_magics_cannot_stall_the_reader(tmp_path):
    # Read as IPython reads it, without a bound, this cell takes over a minute: IPython tokenizes
    # the whole cell again for each of its 499 magics. Past the budget it is left as written.
    hostile = "%time x = 1\n" * 499 + "y = 1\n" * 10_000
    start = time.perf_counter()
    cells = read(tmp_path, BLACK_ANSWER, hostile, "%time z = 1")
    assert time.perf_counter() - start < 30
    assert cells[1:] == [hostile, "%time z = 1"]  # the budget is the whole notebook's
    # ... and the next notebook has a budget of its own.
    assert read(tmp_path, BLACK_ANSWER, "%time z = 1")[1].startswith("get_ipython()")


def test_a_black_formatted_honest_answer_gets_full_marks(tmp_path):
    path = notebook_with(tmp_path, BLACK_ANSWER, "%matplotlib inline\n!ls", "%%time\nx = 1")
    result = grade_notebook(path, EXERCISE, "student")
    assert result.error is None
    assert not any("syntax" in note.lower() for note in result.notes), result.notes
    assert result.score == EXERCISE.max_score, result.to_dict()


def test_packlab_check_passes_a_black_formatted_honest_answer(tmp_path, capsys):
    path = notebook_with(tmp_path, BLACK_ANSWER)
    assert packlab(["check", str(path)]) == 0, capsys.readouterr().out
    assert "syntax" not in capsys.readouterr().out.lower()


def test_an_answer_under_capture_with_a_shell_line_gets_full_marks(tmp_path):
    """``%%capture`` runs its cell, and IPython reads that cell's ``!pip`` line too."""
    answer = "%%capture\n!pip install --quiet nothing-needed\n" + BLACK_ANSWER
    cells = read(tmp_path, answer)
    assert "get_ipython().system(" in cells[0] and "!pip" not in cells[0]
    result = grade_notebook(notebook_with(tmp_path, answer), EXERCISE, "student")
    assert not any("syntax" in note.lower() for note in result.notes), result.notes
    assert result.score == EXERCISE.max_score, result.to_dict()
