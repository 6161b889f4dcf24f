"""Speaker notes: written once, read here, shown only to the presenter.

Two kinds of notes, one reader. The presenter's notebook keeps its notes in markdown cells tagged
``speaker-notes``, under the section they belong to. Each lesson's notes are a markdown file,
``workshop/notes/<lesson slug>.md``: what comes before its first ``## `` heading is the note for
the whole lesson (timing, the one idea, what to ask), and each ``## KEY`` section is the note of
the lesson's section whose heading starts with that key (``## 7`` for "## 7. Slide the budget",
``## Your turn``, ``## Recap``).

The room sees the presenter's notebook without its notes (`without_notes`); the presenter reads
them all on a page of their own (`notes_page`) in a second window, and every slide of every deck
carries the note of its section in reveal.js's speaker view (`section_notes`).
"""

from __future__ import annotations

import copy
import html
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt

from packlab.manifest import ROOT

TAG = "speaker-notes"
FOLDER = ROOT / "workshop" / "notes"
WHOLE = ""  # the key of the note for a whole deck (its title slide, and sections without one)

PAGE_STYLE = """
body { font-family: sans-serif; font-size: 22px; line-height: 1.45; max-width: 46em;
       margin: 1em auto; padding: 0 1em; color: #1a1a1a; background: #fffdf5; }
h1 { font-size: 1.3em; } h2 { font-size: 1.15em; border-top: 3px solid #999; padding-top: .6em; }
h3 { font-size: 1.05em; border-top: 1px solid #ccc; padding-top: .4em; }
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


def heading(cell) -> tuple[int, str] | None:
    """The level and text of a `#`/`##` heading that opens a markdown cell (None if none)."""
    if cell.cell_type != "markdown":
        return None
    first = cell.source.lstrip().split("\n", 1)[0]
    level = len(first) - len(first.lstrip("#"))
    return (level, first[level:].strip()) if level in (1, 2) and first[level:level + 1] == " " \
        else None


def section_key(title: str) -> str:
    """The key of a section heading: its number ("7", "1b"), or its words before a colon."""
    number = re.match(r"(\d+[a-z]?)\.", title)
    return number.group(1) if number else title.split(":", 1)[0].strip()


def notebook_notes(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """The speaker-notes cells of a notebook by the key of the section they are under."""
    found: dict[str, list[str]] = {}
    key = WHOLE
    for cell in notebook.cells:
        head = heading(cell)
        if head:
            key = WHOLE if head[0] == 1 else section_key(head[1])
        elif is_note(cell):
            found.setdefault(key, []).append(cell.source)
    return {key: "\n\n".join(texts) for key, texts in found.items()}


def lesson_notes(slug: str, folder: Path = FOLDER) -> dict[str, str]:
    """A lesson's notes by section key (WHOLE for the lesson's own); {} when it has none."""
    path = folder / f"{slug}.md"
    if not path.is_file():
        return {}
    found, key = {WHOLE: []}, WHOLE
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            key = line[3:].strip()
            found[key] = []
        elif not line.startswith("# ") or key != WHOLE:
            found[key].append(line)
    return {key: "\n".join(lines).strip() for key, lines in found.items()
            if "\n".join(lines).strip()}


def section_notes(notebook: nbformat.NotebookNode, by_key: Mapping[str, str]) -> list[str]:
    """For each cell of ``notebook``, the note of the section it is in (the deck's own note for
    the title and for sections without one)."""
    shown, key = [], WHOLE
    for cell in notebook.cells:
        head = heading(cell)
        if head:
            key = WHOLE if head[0] == 1 else section_key(head[1])
        shown.append(by_key.get(key) or by_key.get(WHOLE, ""))
    return shown


def _render(text: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(text)


def _presenter_part(notebook: nbformat.NotebookNode) -> list[str]:
    parts, section = [], None
    for cell in notebook.cells:
        head = heading(cell)
        section = head[1] if head else section
        if is_note(cell):
            if section:
                parts.append(f"<h2>{html.escape(section)}</h2>")
                section = None
            parts.append(_render(cell.source))
    return parts


def _lesson_part(title: str, notebook: nbformat.NotebookNode, by_key: Mapping[str, str]) -> list:
    parts = [f"<h2>{html.escape(title)}</h2>"]
    if by_key.get(WHOLE):
        parts.append(_render(by_key[WHOLE]))
    for cell in notebook.cells:
        head = heading(cell)
        if head and head[0] == 2 and by_key.get(section_key(head[1])):
            parts += [f"<h3>{html.escape(head[1])}</h3>", _render(by_key[section_key(head[1])])]
    return parts


def notes_page(notebook: nbformat.NotebookNode, title: str,
               lessons: Iterable[tuple[str, Path, str]] = ()) -> str:
    """A stand-alone HTML page of the notes: the presenter notebook's, each under the heading of
    its section, then each lesson's (``lessons``: title, notebook path, slug)."""
    parts = _presenter_part(notebook)
    for lesson_title, path, slug in lessons:
        by_key = lesson_notes(slug)
        if by_key:
            parts += _lesson_part(lesson_title, nbformat.read(path, as_version=4), by_key)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{PAGE_STYLE}</style></head>\n"
            f"<body><h1>{html.escape(title)}</h1>\n{''.join(parts)}</body></html>\n")
