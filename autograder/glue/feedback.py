"""nbgrader preprocessor for `nbgrader generate_feedback`: hidden test code never reaches a learner.

nbgrader's feedback page is the autograded notebook rendered as HTML, and autograding restores
the course's test cells with their hidden tests in them, so the page shows the hidden tests' code
(nbgrader issue #917). `HideHiddenTests` runs before the page is rendered. In every cell it
replaces each ``### BEGIN HIDDEN TESTS`` … ``### END HIDDEN TESTS`` region by a one-line note, and
in every test cell it keeps the outputs — packlab's messages: the call, what came back, what was
expected, the misconception — but shows an error as its message alone, without traceback frames
(which would quote the test cell's lines and the test suites' code). In other cells, frames from
the grader's own files are dropped.
"""

from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor

BEGIN = "BEGIN HIDDEN TESTS"  # nbgrader's delimiters (ClearHiddenTests), found anywhere in a line
END = "END HIDDEN TESTS"
NOTE = "# (The hidden tests' code is not shown; the messages below say what failed, if anything.)"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
GRADER_FILE = re.compile(r"[/\\](autograder[/\\]|packlab[/\\]course[/\\]check\.py)")


def hide_regions(source: str) -> tuple[str, bool]:
    """The source with every hidden-test region replaced by `NOTE`; and whether there was one."""
    kept, hiding, found = [], False, False
    for line in source.splitlines(keepends=True):
        if not hiding and BEGIN in line:
            hiding = found = True
            indent = line[:len(line) - len(line.lstrip())]
            kept.append(indent + NOTE + ("\n" if line.endswith("\n") else ""))
        elif hiding:
            if END in line:
                hiding = False  # an unterminated region hides everything after it
        else:
            kept.append(line)
    return "".join(kept).rstrip("\n"), found


def _is_test_cell(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution") and cell.cell_type == "code"


def message_only(output) -> None:
    """An error output shown as ``Name: message`` with no frames (the message is ours)."""
    output.traceback = [f"{output.ename}: {output.evalue}"]


def drop_grader_frames(output) -> None:
    """Keep a traceback's frames, except those in the grader's own files."""
    frames = [f for f in output.get("traceback", []) if not GRADER_FILE.search(ANSI.sub("", f))]
    output.traceback = frames or [f"{output.ename}: {output.evalue}"]


class HideHiddenTests(NbGraderPreprocessor):
    """Remove hidden test code from a notebook before nbgrader renders its feedback."""

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            cell.source, hidden = hide_regions(cell.source)
            if cell.cell_type != "code":
                continue
            test = hidden or _is_test_cell(cell)
            for output in cell.get("outputs", []):
                if output.output_type != "error":
                    continue
                if test:
                    message_only(output)
                else:
                    drop_grader_frames(output)
        return nb, resources
