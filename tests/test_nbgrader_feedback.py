"""nbgrader's own feedback never shows the hidden tests (upstream #917), but keeps our messages.

The parity class (tests/parity_class.py, shared with tests/test_nbgrader_agrees.py) hands
02-greedy-pack in to real nbgrader in a throwaway course directory, among others the `break`
mutant, a correct answer under another name (so the hidden cells raise NameError) and the
reference answer; `nbgrader autograde` and `nbgrader generate_feedback` run with the course's
nbgrader_config.py. The feedback pages must hold no hidden test code, no traceback into the
grader, and still the learner's messages and the score.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys

import pytest
from conftest import COURSE
from parity_class import BREAKER, FEEDBACK, RENAMER

from autograder.glue.feedback import NOTE, hide_regions
from packlab.manifest import ROOT

EXERCISE = COURSE.exercise(FEEDBACK)
SUITE_FILE = ROOT / "autograder" / "checks" / "suites" / f"{EXERCISE.suite}.py"
TAG = re.compile(r"<[^>]+>")


def text_of(page: str) -> str:
    """What a reader of the HTML sees (tags gone, entities decoded): code is split in spans."""
    return html.unescape(TAG.sub("", page))


def suite_code_lines() -> list[str]:
    """Lines of the test suite that are code (not prose the messages may quote)."""
    lines = []
    for line in SUITE_FILE.read_text().splitlines():
        line = line.strip()
        if len(line) >= 20 and not line.startswith("#") and '"' not in line and "'" not in line:
            lines.append(line)
    assert len(lines) > 20, "the suite should have plenty of code lines to look for"
    return lines


def test_hide_regions_keeps_the_rest():
    source = ("# Hidden tests: edge cases.\n### BEGIN HIDDEN TESTS\nsecret()\n"
              "### END HIDDEN TESTS\nx = 1")
    assert hide_regions(source) == (f"# Hidden tests: edge cases.\n{NOTE}\nx = 1", True)
    assert hide_regions("a = 1\n    # BEGIN HIDDEN TESTS\n    b()") == (f"a = 1\n    {NOTE}", True)
    assert hide_regions("plain()") == ("plain()", False)


@pytest.mark.slow
@pytest.mark.xdist_group("parity")  # the parity class's course: one worker builds it
def test_feedback_hides_hidden_tests_and_keeps_messages(parity):
    assert parity.feedback.returncode == 0, \
        f"nbgrader generate_feedback failed:\n{parity.feedback.stderr[-4000:]}"
    assert parity.exercises[FEEDBACK].partial_credit == COURSE.exercise(FEEDBACK).partial_credit
    course_dir = parity.course_dir
    class_ = {"breaker": BREAKER, "renamer": RENAMER, "reference": "reference"}  # role -> id

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", course_id="packlab") as gb:
        totals = {role: gb.find_submission(EXERCISE.name, student).score
                  for role, student in class_.items()}
    assert totals["breaker"] < EXERCISE.max_score == totals["reference"]

    code_lines = suite_code_lines()
    pages = {}
    for role, student in class_.items():
        page = (course_dir / "feedback" / student / EXERCISE.name / f"{EXERCISE.name}.html")
        pages[role] = text_of(page.read_text(encoding="utf-8"))
    for student, text in pages.items():
        assert "BEGIN HIDDEN TESTS" not in text, student
        assert "END HIDDEN TESTS" not in text, student
        for group in ("edge-cases", "properties"):
            assert f'run_tests("{EXERCISE.name}", pack, "{group}")' not in text, student
            assert f'"{group}")' not in text, student
        leaked = [line for line in code_lines if line in text]
        assert not leaked, f"{student}: the suite's code is in the feedback: {leaked[:5]}"
        assert "autograder/" not in text and "showtraceback was disabled" not in text, student
        assert NOTE in text, student
        assert f"Score: {totals[student]:.1f} / {EXERCISE.max_score:.1f}" in text, student

    breaker = pages["breaker"]
    assert "the call:" in breaker and "came back:" in breaker and "expected:" in breaker
    # the misconception, in the learner's words, its code set as code (no raw backticks)
    assert "no break" in breaker and "no `break`" not in breaker
    assert "03-the-early-stop-trap" in breaker
    # The visible test cell is public: its code stays.
    assert f'run_tests("{EXERCISE.name}", pack, "visible")' in breaker
    assert "NameError: name 'pack' is not defined" in pages["renamer"]


def course_config():
    """The course's nbgrader_config.py as nbgrader loads it."""
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()


@pytest.mark.parametrize(("converter", "after", "added"), [
    ("generate_assignment.GenerateAssignment", "ClearSolutions",
     "autograder.glue.release.UseStarterCode"),
    ("generate_feedback.GenerateFeedback", "GetGrades",
     "autograder.glue.feedback.HideHiddenTests"),
])
def test_each_chain_is_nbgraders_default_with_one_step_of_packlab(converter, after, added):
    """nbgrader_config.py writes GenerateAssignment's and GenerateFeedback's preprocessors out by
    name (so reading it imports nothing): nbgrader's installed default, in its order, with
    packlab's one step right after ``after``."""
    from traitlets.utils.importstring import import_item

    converter_class = import_item(f"nbgrader.converters.{converter}")
    defaults = list(converter_class.class_traits()["preprocessors"].default())
    chain = course_config()[converter_class.__name__].preprocessors
    assert [import_item(name) for name in chain if name != added] == defaults, chain
    assert chain[chain.index(added) - 1].endswith(f".{after}"), chain
    assert import_item(added)  # packlab's step is where the name says


def test_reading_the_course_config_loads_no_nbgrader():
    """`packlab grade` reads nbgrader_config.py for the exchange it may name: a second of CPU
    when the file imported nbgrader's converters."""
    code = ("import sys; from traitlets.config.loader import PyFileConfigLoader; "
            f"PyFileConfigLoader('nbgrader_config.py', path={str(ROOT)!r}).load_config(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('nbgrader', 'nbconvert')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    assert loaded.strip() == "[]", loaded
