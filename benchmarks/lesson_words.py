"""How many words of prose each lesson asks a learner to read (a script, not a test).

Prose is the text of the markdown cells, without fenced code blocks (code, printed output and
answers in ``` fences are not prose). Words are runs of characters between whitespace. A second
column counts the words of the lesson's predict questions in predictions.toml (each part's prompt,
options and why, and the explanation): read once the learner has committed a prediction.

The limits below are the course's, in one place: tests/test_lesson_words.py holds every lesson
to them, and this script marks a lesson or a total over its limit with "over".

Run: .venv/bin/python benchmarks/lesson_words.py [--rev REV]
     (--rev reads the lessons as git revision REV has them, e.g. HEAD, for a before/after table)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tomllib
from collections import Counter

import nbformat

from packlab.manifest import ROOT, load

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
PER_LESSON = 2_000  # the most words of prose one lesson may ask a learner to read (issue 20)
TOTAL = 17_000  # the most for the whole course


def prose_words(notebook: nbformat.NotebookNode) -> int:
    """Words in the notebook's markdown cells, fenced code blocks left out."""
    cells = (cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    return sum(len(FENCE.sub("", source).split()) for source in cells)


def read(path: str, rev: str | None) -> nbformat.NotebookNode:
    """The notebook at ``path`` (relative to the repo), from the work tree or from git ``rev``."""
    if rev is None:
        return nbformat.read(ROOT / path, as_version=4)
    text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    return nbformat.reads(text, as_version=4)


PREDICTIONS = "src/packlab/course/predictions.toml"


def prediction_words(rev: str | None) -> Counter:
    """Words of the predict questions, by lesson number (none before predictions.toml existed)."""
    try:
        text = (ROOT / PREDICTIONS).read_text(encoding="utf-8") if rev is None else subprocess.run(
            ["git", "show", f"{rev}:{PREDICTIONS}"], cwd=ROOT, check=True, capture_output=True,
            text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return Counter()
    found: Counter = Counter()
    for key, entry in tomllib.loads(text).items():
        texts = [entry["explain"]] + [" ".join([ask["prompt"], ask["why"], *ask.get("options", [])])
                                      for ask in entry["asks"]]
        found[key[:2]] += sum(len(t.split()) for t in texts)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rev", help="a git revision to read the lessons from")
    rev = parser.parse_args().rev
    total = 0
    predicting = prediction_words(rev)
    print(f"{'lesson':<40} {'prose':>6} {'+ after predicting':>19}")
    for lesson in load().lessons:
        path = str(lesson.path.relative_to(ROOT))
        words = prose_words(read(path, rev))
        total += words
        print(f"{lesson.slug:<40} {words:>6} {predicting[lesson.slug[:2]]:>19}"
              f"{over(words, PER_LESSON)}")
    print(f"{'total':<40} {total:>6} {sum(predicting.values()):>19}{over(total, TOTAL)}")


def over(words: int, limit: int) -> str:
    """The words "over LIMIT" when ``words`` exceeds ``limit``, else nothing."""
    return f"  over {limit:,}" if words > limit else ""


if __name__ == "__main__":
    main()
