"""Predict, then reveal: a cell's answer stays folded until the learner asks for it.

A lesson loads it once (``%load_ext packlab.course.reveal``); a predict-the-output cell then
starts with ``%%reveal``. The cell runs as usual, but everything it shows (what it prints, to
stdout or stderr, what it displays, and the value of its last line) is shown inside a closed
``<details>`` box: "Run All", a reopened notebook (trusted or not: JupyterLab's HTML sanitizer
keeps ``<details>``, ``<summary>`` and inline styles), the book and the slides all show the
question's code and a "Show the answer" button, never the answer itself. The button is the
box's ``<summary>``: a click, Enter or Space opens it.

``%%reveal ID`` names the cell's question in predictions.toml: then the answer opens only after
the learner commits a prediction (`packlab.course.predict`), with a verdict and the explanation.
"""

from __future__ import annotations

import ast
import base64
import html
import traceback
from dataclasses import dataclass

from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
from IPython.utils.capture import capture_output

SUMMARY = "Show the answer"
FOLDED = "(answer folded: open it in the notebook or the book)"
NOTHING = "(nothing printed)"
# Inline styles, which JupyterLab keeps on untrusted outputs too (a stylesheet it would not load);
# the book's packlab.css styles the same classes. Colours pass WCAG AA on white.
BOX_STYLE = "margin:4px 0;padding:4px 8px;border-left:4px solid #0072B2;background:#F2F7FB"
SUMMARY_STYLE = "cursor:pointer;color:#005A8C;font-weight:600"
PRE_STYLE = "margin:6px 0 2px;overflow-x:auto"  # wrapping is the page's: the book keeps tables


@dataclass(frozen=True)
class Answer:
    """What a predict cell showed, folded: HTML for pages, a placeholder as plain text.

    ``text`` is what it printed (and its last value's text); ``rich`` holds its other outputs
    (HTML, or a PNG as an ``<img>``), each as an HTML fragment.
    """

    text: str
    rich: tuple[str, ...] = ()

    def _repr_html_(self) -> str:
        body = f'<pre style="{PRE_STYLE}">{html.escape(self.text)}</pre>' if self.text else ""
        body += "".join(self.rich)
        if not body:
            body = f"<p><i>{NOTHING}</i></p>"
        return (f'<details class="packlab-reveal" style="{BOX_STYLE}">'
                f'<summary class="packlab-reveal-summary" style="{SUMMARY_STYLE}">{SUMMARY}'
                f"</summary>{body}</details>")

    def __repr__(self) -> str:
        return FOLDED

    def opened(self) -> str:
        """The output as an open box, for after the learner's prediction."""
        return self._repr_html_().replace("<details ", "<details open ", 1)


def _rich(data: dict) -> str | None:
    """One displayed output as an HTML fragment (None when it only has plain text)."""
    if "text/html" in data:
        return f"<div>{data['text/html']}</div>"
    if "image/png" in data:
        png = data["image/png"]
        if isinstance(png, bytes):
            png = base64.b64encode(png).decode("ascii")
        alt = html.escape(str(data.get("text/plain", "the answer's picture")), quote=True)
        return f'<img src="data:image/png;base64,{png}" alt="{alt}" style="max-width:100%">'
    return None


def run(source: str, namespace: dict, shell: InteractiveShell | None = None) -> Answer:
    """Run ``source`` in ``namespace`` and return everything it showed, folded: what it printed,
    what it displayed, then its last value, or the error it raised, the way a learner would see
    it on one line."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    value = None
    with capture_output() as captured:
        try:
            exec(compile(tree, "<predict>", "exec"), namespace)
            if last:
                value = eval(compile(ast.Expression(last.value), "<predict>", "eval"), namespace)
        except Exception as error:  # the answer may be "it raises": show it like Python does
            print(traceback.format_exception_only(error)[-1].rstrip())
    text = captured.stdout + captured.stderr
    rich = []
    for output in captured.outputs:
        fragment = _rich(output.data)
        if fragment is None:
            text += str(output.data.get("text/plain", "")) + "\n"
        else:
            rich.append(fragment)
    if value is not None:
        data = shell.display_formatter.format(value)[0] if shell else {"text/plain": repr(value)}
        fragment = _rich(data)
        if fragment is None:
            text += data["text/plain"] + "\n"
        else:
            rich.append(fragment)
    return Answer(text, tuple(rich))


def reveal(line: str, cell: str) -> None:
    """The ``%%reveal [ID]`` cell magic: run the cell, show its output folded; with the id of a
    predict question, behind the learner's prediction."""
    shell = InteractiveShell.instance()
    answer = run(cell, shell.user_ns, shell)
    if not line.strip():
        display(answer)
        return
    from packlab.course.predict import Prediction
    from packlab.course.predictions import find

    display(Prediction(find(line.strip()), answer.opened()))


def load_ipython_extension(shell: InteractiveShell) -> None:
    shell.register_magic_function(reveal, magic_kind="cell", magic_name="reveal")
