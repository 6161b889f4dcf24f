"""Predict, then reveal, in lessons 06 to 10: a question never contains or follows its answer.

Every predict-the-output cell starts with ``%%reveal ID`` (its output and explanation open only
after the learner commits a prediction, issue 36) and carries no ``hide-output`` tag; the lesson
loads the magic in its first code cell; no folded explanation follows it; and each widget's
"things to try" asks, the learner slides, and a ``%%reveal ID`` cell right after the widget takes
the answers. The slow test reads each lesson as executed (once per test session) up to its last
predict cell and checks that no number the answer prints appears in the question before it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, executed
from folds import sealed_answer

from packlab.course.predictions import questions

LESSONS = [lesson.path for lesson in COURSE.lessons if "06" <= lesson.slug[:2] <= "10"]
LOAD = "%load_ext packlab.course.reveal"
WIDGET = re.compile(r"^\w+_(view|slider)\(", re.M)
NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])")  # two digits or more: 607, 1,314, 0.254


def cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def is_reveal(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith("%%reveal")


def numbers(text: str) -> set[str]:
    return {match.rstrip(".,") for match in NUMBER.findall(text)}


def question_before(notebook_cells: list, index: int) -> str:
    """The markdown a learner reads between the section's heading and the cell at ``index``."""
    texts = []
    for cell in reversed(notebook_cells[:index]):
        if cell.cell_type == "markdown":
            texts.append(cell.source)
            if re.search(r"^#{2,3} ", cell.source, re.M):
                break
    return "\n".join(texts)


def after(notebook_cells: list, index: int) -> str:
    following = notebook_cells[index + 1] if index + 1 < len(notebook_cells) else None
    return following.source if following is not None and following.cell_type == "markdown" else ""


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_predict_cell_uses_reveal_and_its_explanation_comes_after(path):
    notebook_cells = cells(path)
    code = [cell for cell in notebook_cells if cell.cell_type == "code"]
    assert code[0].source.splitlines()[0] == LOAD
    assert not [cell.id for cell in code if "hide-output" in cell.metadata.get("tags", [])]
    reveals = [i for i, cell in enumerate(notebook_cells) if is_reveal(cell)]
    assert reveals, "no %%reveal predict cell"
    for index in reveals:
        question = question_before(notebook_cells, index)
        assert "?" in question, f"cell {notebook_cells[index].id}: no question before it"
        assert "<details" not in question and "```\n{" not in question
        assert notebook_cells[index].source.split("\n")[0].split()[1] in questions()
        assert "<details" not in after(notebook_cells, index)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_widget_answers_wait_behind_a_prediction_after_the_widget(path):
    notebook_cells = cells(path)
    widgets = [i for i, cell in enumerate(notebook_cells)
               if cell.cell_type == "code" and WIDGET.search(cell.source)]
    asked = [i for i in widgets if "?" in notebook_cells[i - 1].source]
    assert asked, "no widget asks the learner anything"
    for index in asked:
        reveal = notebook_cells[index + 1]
        assert is_reveal(reveal), f"{reveal.id}: no prediction right after the widget"
        question = questions()[reveal.source.split("\n")[0].split()[1]]
        answers = question.explain + " ".join(ask.answer for ask in question.asks)
        given_away = numbers(answers) & numbers(notebook_cells[index - 1].source)
        assert not given_away, f"the questions before the widget state {given_away}"


def to_last_reveal(folder: Path, path: Path) -> list[nbformat.NotebookNode]:
    """The lesson's cells, executed (once this session, by conftest.executed_lessons), up to and
    including its last predict cell."""
    notebook = executed(folder, next(lesson for lesson in COURSE.lessons if lesson.path == path))
    last = max(i for i, cell in enumerate(notebook.cells) if is_reveal(cell))
    return notebook.cells[:last + 1]


@pytest.mark.slow
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_answer_is_folded_and_no_question_states_it(executed_lessons, path):
    notebook_cells = to_last_reveal(executed_lessons, path)
    for index, cell in enumerate(notebook_cells):
        if not is_reveal(cell):
            continue
        (output,) = cell.outputs
        assert output.data["text/plain"].startswith("Prediction: ")
        assert "packlab-reveal" not in output.data["text/html"]  # only sealed in the form
        folded = sealed_answer(cell)
        answer = html.unescape(re.sub(r"<[^>]+>", "", folded.split("</summary>", 1)[1]))
        assert "Error" not in answer, answer
        question = question_before(notebook_cells, index)
        stated = (numbers(answer) - numbers(cell.source)) & numbers(question)
        assert not stated, f"cell {cell.id}: the question states {stated} of its answer"
        lines = [line.strip() for line in answer.splitlines() if len(line.strip()) > 12]
        assert not [line for line in lines if line in question], cell.id
