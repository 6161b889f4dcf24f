"""What a learner's screen shows of a lesson's folded answers, in JupyterLab and in the book.

A lesson folds every answer in a ``<details>`` box: a ``%%reveal`` cell's output
(``details.packlab-reveal``) and the markdown that explains it (``<details><summary>Why``).
``folds(page, root)`` reads, inside the element ``root``, every box (open or not, and whether
anything in it but its summary can be seen), and the sentences hidden in the closed boxes that
can be read anyway in the prose of ``root``: its text without the code cells and without the
elements the page does not show (a closed box's contents, the editor behind a rendered
markdown cell).
tests/test_browser_lab.py and tests/test_browser_book.py share it.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from packlab.course.reveal import SUMMARY

MIN_SENTENCE = 24  # characters: a shorter piece ("Why", "budget 400") may well be said twice

FOLDS = f"""([root, code]) => {{
    const top = document.querySelector(root);
    if (!top) return null;
    const inside = (box) => [...box.childNodes].filter(node => node.nodeName !== 'SUMMARY');
    const seen = (node) => {{
        if (node.nodeType === Node.ELEMENT_NODE) return node.checkVisibility();
        if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) return false;
        const range = document.createRange();
        range.selectNodeContents(node);
        return range.getClientRects().length > 0;
    }};
    const boxes = [...top.querySelectorAll('details')];
    // The page's readable prose: a copy without what is not shown (a closed box's contents, and
    // what the page hides otherwise, such as the editor behind a rendered markdown cell) and
    // without code cells (an earlier output may print the same line for another question).
    const mark = 'data-packlab-unseen';
    const unseen = [...top.querySelectorAll('*')].filter(e => !e.checkVisibility());
    for (const element of unseen) element.setAttribute(mark, '');
    const copy = top.cloneNode(true);
    for (const element of unseen) element.removeAttribute(mark);
    for (const element of copy.querySelectorAll(`[${{mark}}]`)) element.remove();
    for (const element of copy.querySelectorAll(code)) element.remove();
    for (const box of copy.querySelectorAll('details:not([open])'))
        for (const node of inside(box)) node.remove();
    const flat = (text) => text.split(/\\s+/).join(' ').trim();
    const outside = flat(copy.textContent);
    const hidden = boxes.filter(box => !box.open)
        .flatMap(box => inside(box).map(node => node.textContent)).join('\\n')
        .split(/\\n|(?<=[.!?])\\s/).map(flat).filter(s => s.length >= {MIN_SENTENCE});
    const summary = (box) => flat(box.querySelector('summary')
                                  ? box.querySelector('summary').textContent : '');
    return {{
        boxes: boxes.map(box => ({{
            open: box.open,
            // a %%reveal output (JupyterLab may drop the class of an untrusted output)
            reveal: box.classList.contains('packlab-reveal') || summary(box) === '{SUMMARY}',
            summary: summary(box),
            shown: inside(box).some(seen),
        }})),
        leaked: [...new Set(hidden.filter(sentence => outside.includes(sentence)))],
    }};
}}"""


@dataclass(frozen=True)
class Expected:
    """How many folds a lesson has: its plain ``%%reveal`` cells, its markdown ``<details>``
    boxes, and its ``%%reveal ID`` predict questions (whose answers open only after a committed
    prediction, issue 36)."""

    reveals: int
    markdown: int
    predictions: int = 0


def expected(path: Path) -> Expected:
    cells = nbformat.read(path, as_version=4).cells
    return Expected(
        reveals=sum(c.cell_type == "code" and c.source.split("\n")[0].strip() == "%%reveal"
                    for c in cells),
        predictions=sum(c.cell_type == "code" and c.source.startswith("%%reveal ")
                        and bool(c.source.split("\n")[0].split()[1:]) for c in cells),
        markdown=sum(len(re.findall(r"<details\b", c.source)) for c in cells
                     if c.cell_type == "markdown"))


def folds(page, root: str, code: str) -> dict:
    """The folds inside ``root``; ``code`` selects the code cells, left out of the prose."""
    found = page.evaluate(FOLDS, [root, code])
    assert found is not None, f"nothing on the page matches {root!r}"
    return found


def problems(found: dict, want: Expected, ran: bool) -> list[str]:
    """What is wrong with a page's folds: a box open or showing its answer, a hidden sentence
    readable outside its box, or fewer folds than the lesson has (``ran``: its reveal cells'
    outputs are on the page)."""
    wrong = [f"open or showing: {box}" for box in found["boxes"] if box["open"] or box["shown"]]
    wrong += [f"readable outside its fold: {sentence!r}" for sentence in found["leaked"]]
    reveals = sum(box["reveal"] for box in found["boxes"])
    markdown = sum(not box["reveal"] for box in found["boxes"])
    if reveals != (want.reveals if ran else 0):
        wrong.append(f"{reveals} folded outputs, expected {want.reveals if ran else 0}")
    if markdown < want.markdown:
        wrong.append(f"{markdown} folded explanations, expected {want.markdown}")
    return wrong


SEALED = re.compile(r"data-packlab-sealed='([A-Za-z0-9+/=]+)'")


def sealed_answer(cell) -> str:
    """What an executed ``%%reveal ID`` cell opens after a committed prediction, as HTML: the
    explanation, then the cell's output (read from the seal its static page carries)."""
    (output,) = cell.outputs
    found = SEALED.search(output.data["text/html"])
    assert found, f"{cell.id}: no sealed prediction form in its output"
    return json.loads(base64.b64decode(found[1]))["answer"]
