"""nbgrader's own feedback never shows the hidden tests (upstream #917), but keeps our messages.

In a throwaway course directory: nbgrader releases 02-greedy-pack, three students submit (the
`break` mutant, a correct answer under another name — so the hidden cells raise NameError — and
the reference answer), then `nbgrader autograde` and `nbgrader generate_feedback` run with the
course's nbgrader_config.py. The feedback pages must hold no hidden test code, no traceback into
the grader, and still the learner's messages and the score.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import COURSE, submit, with_answer

from autograder.checks import gallery
from autograder.glue.feedback import NOTE, hide_regions
from packlab.course.release import NBGRADER, nbgrader_env
from packlab.manifest import ROOT

EXERCISE = COURSE.exercise("02-greedy-pack")
SUITE_FILE = ROOT / "autograder" / "checks" / "suites" / f"{EXERCISE.suite}.py"
RENAMED = '''def packer(parts, budget):
    chosen, used = [], 0
    for part in parts:
        if used + part["tokens"] <= budget:
            chosen.append(part["id"])
            used += part["tokens"]
    return chosen
'''
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
def test_feedback_hides_hidden_tests_and_keeps_messages(tmp_path, released_greedy_pack):
    course_dir = tmp_path / "course"
    shutil.copytree(released_greedy_pack, course_dir)  # nbgrader released 02-greedy-pack alone

    class_ = {
        "breaker": with_answer(EXERCISE, gallery.load("pack/break_at_first_miss").code),
        "renamer": with_answer(EXERCISE, RENAMED),
        "reference": with_answer(EXERCISE, None),
    }
    for student, notebook in class_.items():
        submit(course_dir / "submitted", student, EXERCISE, notebook)

    for step in (["autograde", EXERCISE.name, "--force", "--Autograde.create_student=True"],
                 ["generate_feedback", EXERCISE.name, "--force"]):
        done = subprocess.run([str(NBGRADER), *step], cwd=course_dir, env=nbgrader_env(),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"nbgrader {step[0]} failed:\n{done.stderr[-4000:]}"

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", course_id="packlab") as gb:
        totals = {s: gb.find_submission(EXERCISE.name, s).score for s in class_}
    assert totals["breaker"] < EXERCISE.max_score == totals["reference"]

    code_lines = suite_code_lines()
    pages = {}
    for student in class_:
        page = (course_dir / "feedback" / student / EXERCISE.name / f"{EXERCISE.name}.html")
        pages[student] = text_of(page.read_text(encoding="utf-8"))
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


def test_feedback_preprocessor_is_registered():
    """nbgrader_config.py puts HideHiddenTests into GenerateFeedback, after GetGrades."""
    from nbgrader.converters.generate_feedback import GenerateFeedback
    from nbgrader.preprocessors import GetGrades
    from traitlets.config import Config

    namespace = {"get_config": Config}
    exec(compile((ROOT / "nbgrader_config.py").read_text(), "nbgrader_config.py", "exec"),
         namespace)
    chain = namespace["c"].GenerateFeedback.preprocessors
    defaults = list(GenerateFeedback.class_traits()["preprocessors"].default())
    assert chain[:1] == [GetGrades] and chain[1] == "autograder.glue.feedback.HideHiddenTests"
    assert [p for p in chain if p != "autograder.glue.feedback.HideHiddenTests"] == defaults
    assert Path(ROOT / "autograder" / "glue" / "feedback.py").is_file()
