"""Speaker notes: written once, in the presenter's notebook, and shown only to the presenter.

A note is a markdown cell tagged ``speaker-notes``, under the section it belongs to. The room
sees the notebook without them (`without_notes`); the presenter reads them in a page of their
own (`notes_page`), opened in a second window, and the slides put them in reveal.js's speaker
view.
"""

from __future__ import annotations

import copy
import html

import nbformat
from markdown_it import MarkdownIt

TAG = "speaker-notes"

PAGE_STYLE = """
body { font-family: sans-serif; font-size: 22px; line-height: 1.45; max-width: 46em;
       margin: 1em auto; padding: 0 1em; color: #1a1a1a; background: #fffdf5; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; border-top: 2px solid #ccc; padding-top: .6em; }
code { background: #f0ede2; padding: 0 .2em; }
"""


def is_note(cell) -> bool:
    """True for a speaker-notes cell."""
    return cell.cell_type == "markdown" and TAG in cell.metadata.get("tags", [])


def notes(notebook: nbformat.NotebookNode) -> list[str]:
    """Every speaker note of ``notebook``, as markdown, in order."""
    return [cell.source for cell in notebook.cells if is_note(cell)]


def without_notes(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` without its speaker notes: what the room sees."""
    shown = copy.deepcopy(notebook)
    shown.cells = [cell for cell in shown.cells if not is_note(cell)]
    return shown


def _heading(cell) -> str | None:
    """The text of a `#`/`##` heading that opens a markdown cell (None if none)."""
    if cell.cell_type != "markdown":
        return None
    first = cell.source.lstrip().split("\n", 1)[0]
    return first.lstrip("#").strip() if first.startswith(("# ", "## ")) else None


def notes_page(notebook: nbformat.NotebookNode, title: str) -> str:
    """A stand-alone HTML page of the notes, each under the heading of its section."""
    render = MarkdownIt("commonmark").enable("table").render
    parts, section = [], None
    for cell in notebook.cells:
        section = _heading(cell) or section
        if is_note(cell):
            if section:
                parts.append(f"<h2>{html.escape(section)}</h2>")
                section = None
            parts.append(render(cell.source))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{PAGE_STYLE}</style></head>\n"
            f"<body><h1>{html.escape(title)}</h1>\n{''.join(parts)}</body></html>\n")
