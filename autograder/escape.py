"""Showing text a student controls without letting it act: on a terminal, in CSV, in markdown.

Everything a student controls is hostile: folder names (the student id, the assignment, the
notebook), messages, what their code printed. Before such text reaches an output it goes through
the function for that output, so it is shown literally and never interpreted:

- `for_terminal`: for rich's console — markup is escaped, control characters are made visible;
- `for_csv`: for a spreadsheet cell — no cell can start a formula (OWASP "CSV injection"), and
  no control character is written raw;
- `for_markdown`: for summary.md — inline text or a table cell, never markup or a new line;
- `cut`: any of it, bounded in size, saying how much was cut.

HTML pages use `html.escape` (autograder/cohort/report.py), and `for_html` for the course's
own messages, whose `code` spans become <code>. Each function is pure: text in, text out.
"""

from __future__ import annotations

import html
import re

from rich.markup import escape as _rich_escape

# C0 and C1 control characters and DEL, plus the invisible characters that reorder or break
# lines when shown (bidi marks, embeddings, overrides and isolates; line/paragraph separators).
_INVISIBLE = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_CONTROL = re.compile(rf"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")
_CONTROL_KEEPING_LINES = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}]")
# What a spreadsheet reads as the start of a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# What means something in (GitHub-flavoured) markdown, inline or in a table cell.
_MARKDOWN = re.compile(r"[\\`*_\[\]|~]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, keep_lines: bool = True) -> str:
    """``text`` with every control character written out as an escape: ESC as ``\\x1b``, a
    carriage return as ``\\r``.

    Newlines and tabs are kept when ``keep_lines``. A lone surrogate (what Python makes of
    bytes in a file name that are not UTF-8) is written as ``\\udcff``, so the result can
    always be encoded as UTF-8.
    """
    text = str(text).encode("utf-8", "backslashreplace").decode("utf-8")
    return (_CONTROL_KEEPING_LINES if keep_lines else _CONTROL).sub(_shown, text)


def for_terminal(text: object) -> str:
    """``text`` to print through rich: shown literally, never as markup or terminal control.

    ``[bold red]x[/]`` prints as written (and an unbalanced ``[/]`` cannot raise rich's
    MarkupError); ESC, BEL, carriage returns and other control characters are shown as
    ``\\x1b``-style escapes; newlines and tabs are kept. The course's own markup goes around
    the result: ``f"[red]✗[/] {for_terminal(name)}"`` (a final backslash is doubled, as
    `rich.markup.escape` does, so that it cannot escape the course's markup after it).
    """
    return _rich_escape(visible(text))


def for_csv(value: object) -> object:
    """A grades.csv cell that no spreadsheet runs as a formula; numbers (and None) unchanged.

    A string starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a
    leading ``'``, which spreadsheets show as text: ``=2+5`` is written ``'=2+5``. Control
    characters other than newline and tab are written out as in `visible` (so ``cat
    grades.csv`` cannot drive the terminal). The csv module does the quoting of commas,
    quotes and newlines.
    """
    if not isinstance(value, str):
        return value
    return ("'" if value.startswith(FORMULA_STARTS) else "") + visible(value)


def for_markdown(text: object) -> str:
    """``text`` as inline markdown or a table cell: shown literally, on one line.

    Backslashes, backticks, ``*``, ``_``, ``[``, ``]``, ``|`` and ``~`` are backslash-escaped,
    ``&``, ``<`` and ``>`` become entities (so no HTML gets in), and newlines, tabs and other
    control characters are written out (``\\n``, ``\\x1b``): the text cannot end a table row.
    """
    text = visible(text, keep_lines=False)
    text = _MARKDOWN.sub(lambda m: "\\" + m.group(), text)
    return re.sub("[&<>]", lambda m: _ENTITIES[m.group()], text)


def for_html(text: object) -> str:
    """A message for an HTML page: escaped, its markdown `code` spans (on one line) shown as
    <code>, so no backtick is left for the reader to decode."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", html.escape(str(text)))


NAME_CHARS = 1_000  # student and assignment names are folder names (≤ 255 bytes): never cut


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, and how many more were cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters were cut)"
