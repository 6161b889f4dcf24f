"""Showing text a student controls without letting it act: on a terminal, in CSV, in markdown.

Everything a student controls is hostile: folder names (the student id, the assignment, the
notebook), messages, what their code printed. Before such text reaches an output it goes through
the function for that output, so it is shown literally and never interpreted:

- `for_terminal`: for rich's console — markup is escaped, control characters are made visible;
- `for_csv`: for a spreadsheet cell — nothing in it can start a formula, in any locale (below);
- `for_markdown`: for summary.md — inline text or a table cell, never markup or a new line;
- `for_html`: a name on an HTML page — entities escaped, what cannot be seen made visible;
- `message_html`: one of the course's own messages on an HTML page, its `code` spans as <code>;
- `cut`: any of it, bounded in size, saying how much was cut.

All of them show what cannot be seen (`visible`): control characters, and the characters that
print as nothing or as a plain space — zero-width spaces and joiners, the soft hyphen, the
byte-order mark, bidi controls, no-break and other unusual spaces, fillers, variation
selectors — are written as escapes (``\\xa0``), so `honest` with a no-break space after it
never reads as `honest`. HTML pages use `html.escape` for longer text (printed output, failure
texts) and `for_html` for names. Each function is pure: text in, text out.

The CSV rule (`for_csv`). A spreadsheet splits a line at its locale's separator: ``,`` in
English locales, ``;`` where the comma is the decimal mark (most of Europe), a tab when text is
pasted or a file is read as TSV; and it runs a cell that starts with ``=``, ``+``, ``-``,
``@`` (or their full-width forms) as a formula. A cell written for one locale is split
differently in another, so a text is made safe for all three at once:

1. every control character is written out as an escape, tab, carriage return and line feed
   included (``\\t``): a cell never holds a raw tab or line break;
2. the text is cut into segments at every ``,`` and ``;``; a segment that starts (after any
   spaces and double quotes) with a formula character gets an apostrophe put in front of it,
   which spreadsheets read as "this is text": ``=2+5`` is written ``'=2+5``, ``semi;=1+1;x``
   is written ``semi;'=1+1;x``, ``a, "=1"`` is written ``a,' "=1"``;
3. the csv module then quotes any cell holding a comma, a quote or a line break.

A segment that already starts with apostrophes before a formula character gets one more, so
the rule never makes two different names into the same cell (``'=x`` is written ``''=x``, and
``=x`` is written ``'=x``): a name's grades.csv cell is its one identity there, which the LMS
export and the bundles key by (`autograder.names` refuses the names `visible` would change).
"""

from __future__ import annotations

import html
import re

from rich.markup import escape as _rich_escape

# Besides C0 and C1 control characters and DEL: what prints as nothing or as a plain space.
# Every format character (Unicode category Cf: the soft hyphen, zero-width space, joiners and
# word joiner, bidi marks, embeddings, overrides and isolates, the byte-order mark, tags), every
# space but U+0020 (Zs), the line and paragraph separators (Zl, Zp), and the characters of other
# categories that show nothing: the combining grapheme joiner, Hangul and Khmer fillers,
# Mongolian and other variation selectors, the blank braille pattern.
# (tests/test_escaping.py checks this list against the categories of Python's unicodedata.)
INVISIBLE = ("\u00a0\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
             "\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800"
             "\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
             "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
             "\U000e0020-\U000e007f\U000e0100-\U000e01ef")
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{INVISIBLE}]")
_CONTROL_KEEPING_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE}]")
# What a spreadsheet reads as the start of a formula (OWASP's list, with the full-width forms).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
SEPARATORS = (",", ";", "\t")  # what a spreadsheet splits a line at, in one locale or another
# The start of a segment (of the whole text, or after a separator) that a spreadsheet could run,
# with any apostrophes before it (so that escaping stays one-to-one).
_SEGMENT_TO_QUOTE = re.compile("(?:^|(?<=[,;]))(?='*[ \"]*[=+\\-@\uff1d\uff0b\uff0d\uff20])")
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
    """A CSV cell that no spreadsheet runs as a formula, whatever its locale's separator;
    numbers (and None) unchanged.

    The rule is the module's: control and invisible characters are written out as in
    `visible`, tabs and line breaks too (so ``cat grades.csv`` cannot drive the terminal); each
    segment of the text, at its start and after every ``,`` and ``;``, that starts (after
    apostrophes, spaces and double quotes) with ``=``, ``+``, ``-`` or ``@`` gets an
    apostrophe in front: ``=2+5`` is written ``'=2+5``, ``a;@SUM(A1)`` ``a;'@SUM(A1)``. The
    csv module does the quoting of commas, quotes and newlines.
    """
    if not isinstance(value, str):
        return value
    return _SEGMENT_TO_QUOTE.sub("'", visible(value, keep_lines=False))


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
    """A name (a student's, an assignment's) for an HTML page: on one line, its entities
    escaped and every character that cannot be seen written out (``honest\\xa0``)."""
    return html.escape(visible(text, keep_lines=False))


def message_html(text: object) -> str:
    """A message of the course's for an HTML page: escaped, its markdown `code` spans (on one
    line) shown as <code>, so no backtick is left for the reader to decode."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", html.escape(str(text)))


NAME_CHARS = 1_000  # student and assignment names are folder names (≤ 255 bytes): never cut


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, and how many more were cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters were cut)"
