"""Predict, then reveal: a cell's answer stays folded until the learner asks for it.

A lesson loads it once (``%load_ext packlab.course.reveal``); a predict-the-output cell then
starts with ``%%reveal``. The cell runs as usual, but what it prints (and the value of its last
line) is shown inside a closed ``<details>`` box: "Run All", a reopened notebook, the book and
the slides all show the question's code and a "Show the answer" button, never the answer itself.
"""

from __future__ import annotations

import ast
import html
import traceback

from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
from IPython.utils.capture import capture_output

SUMMARY = "Show the answer"
FOLDED = "(answer folded: open it in the notebook or the book)"


class Answer:
    """What a predict cell printed, shown folded: HTML for pages, a placeholder as plain text."""

    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self) -> str:
        body = html.escape(self.text) or "<i>(nothing printed)</i>"
        return (f'<details class="packlab-reveal"><summary>{SUMMARY}</summary>'
                f'<pre>{body}</pre></details>')

    def __repr__(self) -> str:
        return FOLDED


def run(source: str, namespace: dict) -> str:
    """Run ``source`` in ``namespace`` and return what it printed, then its last value's repr,
    or the error it raised, the way a learner would see it on one line."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    with capture_output(display=False) as captured:
        try:
            exec(compile(tree, "<predict>", "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), "<predict>", "eval"),
                         namespace) if last else None
        except Exception as error:  # the answer may be "it raises": show it like Python does
            print(traceback.format_exception_only(error)[-1].rstrip())
            value = None
    text = captured.stdout
    if value is not None:
        text += repr(value) + "\n"
    return text


def reveal(line: str, cell: str) -> None:
    """The ``%%reveal`` cell magic: run the cell, show its output folded."""
    shell = InteractiveShell.instance()
    display(Answer(run(cell, shell.user_ns)))


def load_ipython_extension(shell: InteractiveShell) -> None:
    shell.register_magic_function(reveal, magic_kind="cell", magic_name="reveal")
