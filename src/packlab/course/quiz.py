"""Multiple-choice checks for the lessons: every option, right or wrong, explains itself.

The questions live in quizzes.toml, next to this file, and a lesson shows one by its id:
``quiz("02-skip-or-stop")``. Neither the lesson's cell nor the page (JupyterLab's, the book's, a
slide's) holds which option is right or why: the kernel keeps that, and shows the picked
option's explanation only when the learner presses Check.

Each learner sees the options in an order of their own, the same at every run: shuffled by a
random key made once in their state folder (next to the hints' memory) and the quiz's id. The
question, options and explanations are markdown. In JupyterLab the quiz is an anywidget
(quiz.js): a radio group named by its question, arrow keys moving between the options, and the
verdict in a live region a screen reader reads out.

The student install holds quizzes.sealed.json instead (`sealed`): the same questions, each
option's verdict and explanation compressed and base64-encoded, so that a learner browsing the
install's files does not read an answer by accident. It is a seal, not a lock: anyone who means
to can decode it, as anyone can run `questions()` in a cell.
"""

from __future__ import annotations

import base64
import getpass
import json
import os
import random
import secrets
import tomllib
import zlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import anywidget
import traitlets
from markdown_it import MarkdownIt

from packlab.views import static

QUIZZES = "quizzes.toml"
SEALED = "quizzes.sealed.json"  # what the student install holds instead
RIGHT, WRONG = "✓ Right.", "✗ Not quite."
KEY_FILE = "learner-key"  # in the learner's state folder: seeds the order of the options
_MARKDOWN = MarkdownIt("commonmark", {"html": False})  # text as written: no raw HTML


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


def markdown(text: str) -> str:
    """A question's markdown as HTML (raw HTML in it is shown as text)."""
    return _MARKDOWN.render(text).strip()


def inline(text: str) -> str:
    """An option's or an explanation's markdown as inline HTML."""
    return _MARKDOWN.renderInline(text)


def learner_key() -> str:
    """This learner's random key, made once and kept in their state folder (their user name
    when that folder cannot be written)."""
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    path = base / "packlab" / KEY_FILE
    try:
        return path.read_text(encoding="ascii").strip() or _new_key(path)
    except OSError:
        return _new_key(path)


def _new_key(path: Path) -> str:
    key = secrets.token_hex(16)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(key, encoding="ascii")
    except OSError:  # a read-only home: the user name is stable enough
        try:
            return getpass.getuser()
        except (OSError, KeyError):
            return "learner"
    return key


def shuffled(question: Question, key: str | None = None) -> tuple[Option, ...]:
    """The question's options in this learner's order (the same at every run)."""
    seed = f"{learner_key() if key is None else key}:{question.id}"
    return tuple(random.Random(seed).sample(question.options, len(question.options)))


class MultipleChoice(anywidget.AnyWidget):
    """A question, its options as a radio group, Check, and the picked option's explanation."""

    _esm = Path(__file__).with_name("quiz.js")
    question_html = traitlets.Unicode().tag(sync=True)
    options_html = traitlets.List(traitlets.Unicode()).tag(sync=True)
    picked = traitlets.Int(-1).tag(sync=True)  # the option the learner picked, as shown
    checks = traitlets.Int(0).tag(sync=True)  # the front end counts presses of Check
    feedback = traitlets.Unicode("").tag(sync=True)  # the verdict and explanation, as HTML

    def __init__(self, question: Question, key: str | None = None):
        self.question = question
        self.options = shuffled(question, key)
        super().__init__(question_html=markdown(question.question),
                         options_html=[inline(option.text) for option in self.options])
        self.observe(lambda _: self.check(), names="checks")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus the question and options alone for pages without a kernel."""
        found = super()._repr_mimebundle_(**kwargs)  # anywidget's: (data, metadata)
        data = found[0] if isinstance(found, tuple) else found
        return static.bundle(data, static.multiple_choice(self))

    def pick(self, text: str) -> None:
        """Pick the option that reads ``text`` (what a click on it does)."""
        self.picked = [option.text for option in self.options].index(text)

    def check(self) -> bool | None:
        """Show the chosen option's explanation; return whether it was right (None if no pick)."""
        if not 0 <= self.picked < len(self.options):
            self.feedback = "<p><i>Pick an option first.</i></p>"
            return None
        option = self.options[self.picked]
        verdict, colour = (RIGHT, "#166534") if option.right else (WRONG, "#9a3412")
        self.feedback = f"<p style='color:{colour}'><b>{verdict}</b> {inline(option.why)}</p>"
        return option.right


def quiz(quiz_id: str) -> MultipleChoice:
    """The multiple-choice check called ``quiz_id`` in quizzes.toml."""
    try:
        return MultipleChoice(questions()[quiz_id])
    except KeyError:
        raise KeyError(f"no quiz {quiz_id!r} in {QUIZZES}; known: "
                       f"{', '.join(questions())}") from None
