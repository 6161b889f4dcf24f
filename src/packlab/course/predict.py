"""Predict, commit, then see: a lesson's question takes the learner's answer before its own opens.

A ``%%reveal ID`` cell (see `packlab.course.reveal`) names its question in predictions.toml
(`packlab.course.predictions`). The page holds none of the answer before the learner commits: in
JupyterLab the kernel keeps it and sends the verdict, the explanation and the cell's output once
Commit is pressed (predict.js, a form labelled for screen readers, the verdict in a live region);
in the book the static rendering carries it sealed (base64, like the quizzes' seal: not a lock)
for the book's script (book/_static/packlab.js) to open on Commit. A committed prediction is kept
with the learner's progress and, on a hub that runs the room, counted on the presenter's chart.
A presenter (the demo sets `PRESENTER_VARIABLE`) gets a button that opens the answer without one.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from pathlib import Path

import anywidget
import traitlets

from packlab.course.predictions import MAX_GIVEN, Question, keep
from packlab.course.quiz import inline, markdown

PRESENTER_VARIABLE = "PACKLAB_PRESENTER"
RIGHT, WRONG = "✓ Matches.", "✗ Does not match."
COMMIT = "Commit my prediction"
PRESENT = "Presenter: open without a prediction"


def verdict_html(question: Question, given: list[str]) -> tuple[str, bool]:
    """What the learner reads after Commit: each part's verdict and why; whether all matched."""
    lines, everything = [], True
    for ask, said in zip(question.asks, given, strict=True):
        right = ask.matches(said)
        everything &= right
        word, colour = (RIGHT, "#166534") if right else (WRONG, "#9a3412")
        lines.append(f"<li><span style='color:{colour}'><b>{word}</b></span> "
                     f"{inline(ask.prompt)} You said <code>{_escape(said)}</code>; the answer "
                     f"is <code>{_escape(ask.answer)}</code>. {inline(ask.why)}</li>")
    return f"<ul class='packlab-predict-verdicts'>{''.join(lines)}</ul>", everything


def _escape(text: str) -> str:
    return html.escape(str(text), quote=True)


def sealed(question: Question, answer_html: str) -> str:
    """What the book's script needs to judge and show, in one base64 attribute value."""
    data = {"asks": [{"accepted": ask.accepted(), "kind": ask.kind, "answer": ask.answer,
                      "prompt": inline(ask.prompt), "why": inline(ask.why)}
                     for ask in question.asks],
            "answer": markdown(question.explain) + answer_html}
    return base64.b64encode(json.dumps(data).encode("utf-8")).decode("ascii")


def form_html(question: Question, answer_html: str) -> str:
    """The question's static form (the book, slides): inputs and Commit, the answer sealed."""
    name = f"packlab-predict-{question.id}"
    fields = []
    for index, ask in enumerate(question.asks):
        field_id = f"{name}-{index}"
        if ask.kind == "choice":
            radios = "".join(
                f"<label style='display:block'><input type='radio' name='{field_id}' "
                f"value='{_escape(option)}'> {inline(option)}</label>" for option in ask.options)
            fields.append(f"<fieldset class='packlab-predict-ask'><legend>{inline(ask.prompt)}"
                          f"</legend>{radios}</fieldset>")
        else:
            mode = "decimal" if ask.kind == "number" else "text"
            fields.append(f"<p class='packlab-predict-ask'><label for='{field_id}'>"
                          f"{inline(ask.prompt)}</label> <input id='{field_id}' type='text' "
                          f"inputmode='{mode}' autocomplete='off' size='24'></p>")
    return (f"<form class='packlab-predict' data-packlab-question='{question.id}' "
            f"data-packlab-sealed='{sealed(question, answer_html)}' "
            f"aria-label='Your prediction' style='margin:4px 0;padding:4px 8px;"
            f"border-left:4px solid #0072B2;background:#F2F7FB'>"
            f"<p><b>Your prediction.</b> Answer, commit, then see.</p>{''.join(fields)}"
            f"<button type='submit'>{COMMIT}</button>"
            f"<div class='packlab-predict-verdict' aria-live='polite'></div>"
            f"<div class='packlab-predict-answer' hidden></div></form>")


def unsealed(page: str) -> tuple[str, str] | None:
    """A static form's fields without Commit or seal, and the answer it seals (None when
    ``page`` holds no form)."""
    found = re.search(r"data-packlab-sealed='([A-Za-z0-9+/=]*)'", page)
    if not found:
        return None
    fields = re.sub(r"<button type='submit'>.*?</button>", "", page.replace(found[0], ""))
    return fields, json.loads(base64.b64decode(found[1]))["answer"]


def presenter() -> bool:
    return os.environ.get(PRESENTER_VARIABLE, "") not in ("", "0")


class Prediction(anywidget.AnyWidget):
    """A question's parts as fields, Commit, then the verdict and the answer (predict.js)."""

    _esm = Path(__file__).with_name("predict.js")
    asks = traitlets.List(traitlets.Dict()).tag(sync=True)  # prompt (HTML), kind, options
    given = traitlets.List(traitlets.Unicode()).tag(sync=True)
    commits = traitlets.Int(0).tag(sync=True)  # the front end counts presses of Commit
    opens = traitlets.Int(0).tag(sync=True)  # ... and of the presenter's button
    presenter = traitlets.Bool(False).tag(sync=True)
    committed = traitlets.Bool(False).tag(sync=True)
    verdict = traitlets.Unicode("").tag(sync=True)  # HTML, read out by a live region
    answer = traitlets.Unicode("").tag(sync=True)  # HTML: empty until a commit or an open

    def __init__(self, question: Question, answer_html: str):
        self.question = question
        self._answer_html = answer_html
        super().__init__(asks=[{"prompt": inline(a.prompt), "kind": a.kind,
                                "values": list(a.options),
                                "options": [inline(o) for o in a.options]}
                               for a in question.asks],
                         given=[""] * len(question.asks), presenter=presenter())
        self.observe(lambda _: self.commit(), names="commits")
        self.observe(lambda _: self.show_answer(), names="opens")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus the static form (answer sealed) for pages without a kernel."""
        found = super()._repr_mimebundle_(**kwargs)
        data = dict(found[0] if isinstance(found, tuple) else found)
        data["text/html"] = form_html(self.question, self._answer_html)
        data["text/plain"] = "Prediction: " + " | ".join(a.prompt for a in self.question.asks)
        return data

    def commit(self) -> bool | None:
        """Judge the learner's answers, keep the prediction, open the answer (None: incomplete)."""
        given = [str(text)[:MAX_GIVEN] for text in self.given][:len(self.question.asks)]
        if self.committed:
            return None
        if len(given) < len(self.question.asks) or not all(text.strip() for text in given):
            self.verdict = "<p><i>Answer every part first, then commit.</i></p>"
            return None
        self.verdict, right = verdict_html(self.question, given)
        self.committed = True
        keep(self.question.id, given, right)
        self.show_answer()
        tell_room(self.question.id, given)
        return right

    def show_answer(self) -> None:
        """Show the explanation and the cell's output (after a commit, or for a presenter)."""
        if self.committed or self.presenter:
            self.answer = markdown(self.question.explain) + self._answer_html


def tell_room(question_id: str, given: list[str]) -> str | None:
    """On a hub that runs the room, count the prediction there (no name; opt-out respected);
    the room judges it itself."""
    from packlab.course.room import report
    from packlab.manifest import load

    return report.send_prediction(load().title, question_id, given)
