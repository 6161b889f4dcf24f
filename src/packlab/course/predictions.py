"""The lessons' predict questions, as data: each part's expected answer, and the learner's record.

predictions.toml, next to this file, is the one place a question's answer is written (the
``%%reveal ID`` cell names it; `packlab.course.predict` shows it). Each prediction a learner
commits is kept in their state folder, beside the quizzes' key: `packlab progress` and the start
page count them, and on a hub the room's service judges the ones it is sent with the same data.
"""

from __future__ import annotations

import base64
import json
import os
import re
import tomllib
import zlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

PREDICTIONS = "predictions.toml"
SEALED = "predictions.sealed.json"  # what the student install holds instead (as the quizzes')
KINDS = ("number", "choice", "text")
RECORD = "predictions.json"  # in the learner's state folder
MAX_GIVEN = 80  # characters of one answer kept or sent


@dataclass(frozen=True)
class Ask:
    """One part of a question: what the learner gives, and what matches."""

    prompt: str
    kind: str
    answer: str
    why: str
    options: tuple[str, ...] = ()
    accept: tuple[str, ...] = ()

    def accepted(self) -> list[str]:
        """The answers that match, normalised as `normal` normalises the learner's."""
        return [normal(self.kind, text) for text in (self.answer, *self.accept)]

    def matches(self, given: str) -> bool:
        found = normal(self.kind, given)
        return bool(found) and found in self.accepted()


@dataclass(frozen=True)
class Question:
    id: str
    asks: tuple[Ask, ...]
    explain: str

    @property
    def lesson(self) -> str:
        return self.id[:2]


def normal(kind: str, text: str) -> str:
    """A given answer as compared: a number without its grouping (``1,425`` is ``1425``), a
    text as its words in lower case (``['sys', 'small']`` is ``sys small``)."""
    text = str(text).strip()
    if kind == "number":
        text = re.sub(r"[,_\s]", "", text)
        try:
            return f"{float(text):g}"
        except ValueError:
            return ""
    if kind == "text":
        return " ".join(re.sub(r"[^a-z0-9/_-]+", " ", text.lower()).split())
    return text


def _ask(question_id: str, entry: dict) -> Ask:
    ask = Ask(prompt=entry["prompt"], kind=entry["kind"], answer=str(entry["answer"]),
              why=entry["why"], options=tuple(entry.get("options", ())),
              accept=tuple(str(a) for a in entry.get("accept", ())))
    choice = ask.kind == "choice"
    if ask.kind not in KINDS or choice != bool(ask.options) or not ask.accepted()[0]:
        raise ValueError(f"prediction {question_id!r} in {PREDICTIONS}: each part needs a kind "
                         f"({', '.join(KINDS)}), options only for a choice, and an answer")
    if ask.kind == "choice" and ask.answer not in ask.options:
        raise ValueError(f"prediction {question_id!r}: the answer {ask.answer!r} is no option")
    return ask


def sealed() -> str:
    """The text of predictions.sealed.json: predictions.toml compressed and base64-encoded, so
    that a learner browsing the student install does not read an answer by accident (a seal, not
    a lock, like the quizzes')."""
    text = (resources.files(__package__) / PREDICTIONS).read_bytes()
    return json.dumps({"predictions": base64.b64encode(zlib.compress(text, 9)).decode()}) + "\n"


def _text() -> str:
    folder = resources.files(__package__)
    if (folder / PREDICTIONS).is_file():
        return (folder / PREDICTIONS).read_text(encoding="utf-8")
    seal = json.loads((folder / SEALED).read_text(encoding="utf-8"))["predictions"]
    return zlib.decompress(base64.b64decode(seal)).decode("utf-8")


@cache
def questions() -> dict[str, Question]:
    """Every predict question of the course, by id (its first two characters: the lesson): from
    predictions.toml, or in the student install from predictions.sealed.json."""
    text = _text()
    return {key: Question(key, tuple(_ask(key, ask) for ask in entry["asks"]), entry["explain"])
            for key, entry in tomllib.loads(text).items()}


def record_file() -> Path:
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "packlab" / RECORD


def recorded() -> dict[str, dict]:
    """The learner's committed predictions: question id -> {"right": bool, "given": [...]}."""
    try:
        found = json.loads(record_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {key: value for key, value in found.items()
            if isinstance(value, dict) and isinstance(value.get("right"), bool)}


def keep(question_id: str, given: list[str], right: bool) -> None:
    """Keep a prediction with the learner's progress; the first commit of a question counts."""
    found = recorded()
    if question_id in found:
        return
    found[question_id] = {"right": right, "given": given}
    path = record_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(found, indent=1), encoding="utf-8")
    except OSError:  # a read-only home: the verdict is still shown
        pass


def tally(lesson: str | None = None) -> tuple[int, int, int]:
    """(made, right, asked): the learner's predictions, in one lesson or in all."""
    ids = [key for key in questions() if lesson is None or key.startswith(lesson)]
    found = recorded()
    made = [key for key in ids if key in found]
    return len(made), sum(found[key]["right"] for key in made), len(ids)


def find(question_id: str) -> Question:
    try:
        return questions()[question_id]
    except KeyError:
        raise KeyError(f"no prediction {question_id!r} in {PREDICTIONS}; known: "
                       f"{', '.join(questions())}") from None
