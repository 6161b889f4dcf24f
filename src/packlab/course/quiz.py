"""Multiple-choice checks for the lessons: every option, right or wrong, explains itself.

The questions live in quizzes.toml, next to this file, and a lesson shows one by its id:
``quiz("02-skip-or-stop")``. Neither the lesson's cell nor the page (JupyterLab's, the book's, a
slide's) holds which option is right or why: the kernel keeps that, and shows the picked
option's explanation only when the learner presses Check.

The student install holds quizzes.sealed.json instead (`sealed`): the same questions, each
option's verdict and explanation compressed and base64-encoded, so that a learner browsing the
install's files does not read an answer by accident. It is a seal, not a lock: anyone who means
to can decode it, as anyone can run `questions()` in a cell.
"""

from __future__ import annotations

import base64
import html
import json
import tomllib
import zlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import ipywidgets as widgets

from packlab.views import static

QUIZZES = "quizzes.toml"
SEALED = "quizzes.sealed.json"  # what the student install holds instead
RIGHT, WRONG = "✓ Right.", "✗ Not quite."


@dataclass(frozen=True)
class Option:
    text: str
    why: str
    right: bool = False


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    options: tuple[Option, ...]


def _question(quiz_id: str, entry: dict) -> Question:
    """One entry of quizzes.toml, checked: distinct options, exactly one of them right."""
    options = tuple(Option(**option) for option in entry["options"])
    texts = [option.text for option in options]
    if len(set(texts)) != len(texts) or sum(option.right for option in options) != 1:
        raise ValueError(f"quiz {quiz_id!r} in {QUIZZES} needs distinct options, "
                         "exactly one of them with right = true")
    return Question(quiz_id, entry["question"], options)


def _seal(option: Option) -> str:
    verdict = json.dumps({"why": option.why, "right": option.right}).encode()
    return base64.b64encode(zlib.compress(verdict, 9)).decode("ascii")


def sealed(quizzes: dict[str, Question]) -> str:
    """The text of quizzes.sealed.json: questions and options readable, verdicts sealed."""
    return json.dumps({key: {"question": q.question,
                             "options": [{"text": o.text, "sealed": _seal(o)} for o in q.options]}
                       for key, q in quizzes.items()}, indent=1, ensure_ascii=False) + "\n"


def unsealed(text: str) -> dict[str, Question]:
    """The quizzes of a quizzes.sealed.json text."""
    return {key: _question(key, {"question": entry["question"], "options": [
        {"text": o["text"], **json.loads(zlib.decompress(base64.b64decode(o["sealed"])))}
        for o in entry["options"]]}) for key, entry in json.loads(text).items()}


@cache
def questions() -> dict[str, Question]:
    """Every quiz of the course, by id: from quizzes.toml, or in the student install from
    quizzes.sealed.json."""
    folder = resources.files(__package__)
    if not (folder / QUIZZES).is_file():
        return unsealed((folder / SEALED).read_text(encoding="utf-8"))
    text = (folder / QUIZZES).read_text(encoding="utf-8")
    return {key: _question(key, entry) for key, entry in tomllib.loads(text).items()}


def every_quiz_explanation() -> list[str]:
    """Every option's explanation, right or wrong: text no page may show before Check."""
    return [option.why for question in questions().values() for option in question.options]


class MultipleChoice(widgets.VBox):
    """Radio buttons, a Check button, and the explanation of whichever option was picked."""

    def __init__(self, question: Question):
        self.question = question
        self.choice = widgets.RadioButtons(options=[o.text for o in question.options],
                                           value=None, layout=widgets.Layout(width="auto"))
        self.button = widgets.Button(description="Check", button_style="primary")
        self.feedback = widgets.HTML()
        self.button.on_click(lambda _: self.check())
        title = widgets.HTML(f"<b>{html.escape(question.question)}</b>")
        super().__init__([title, self.choice, self.button, self.feedback])

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus the question and options alone for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.multiple_choice(self))

    def check(self) -> bool | None:
        """Show the chosen option's explanation; return whether it was right (None if no pick)."""
        picked = self.choice.index
        if picked is None:
            self.feedback.value = "<i>Pick an option first.</i>"
            return None
        option = self.question.options[picked]
        verdict, colour = (RIGHT, "#166534") if option.right else (WRONG, "#b45309")
        self.feedback.value = (
            f"<p style='color:{colour}'><b>{verdict}</b> {html.escape(option.why)}</p>"
        )
        return option.right


def quiz(quiz_id: str) -> MultipleChoice:
    """The multiple-choice check called ``quiz_id`` in quizzes.toml."""
    try:
        return MultipleChoice(questions()[quiz_id])
    except KeyError:
        raise KeyError(f"no quiz {quiz_id!r} in {QUIZZES}; known: "
                       f"{', '.join(questions())}") from None
