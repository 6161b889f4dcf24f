"""The lessons' quizzes: a learner commits to an option before seeing which is right, or why.

Fast: no kernel, no browser. The browser tests (test_browser_lab.py, test_browser_book.py) check
the same in JupyterLab and in the built book.
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE

from packlab.course.quiz import RIGHT, WRONG, every_quiz_explanation, questions, quiz

QUIZ_CALL = re.compile(r'^quiz\("([^"]+)"\)$')
VERDICT = re.compile(r"^(right|wrong|correct|no|not quite|not here|yes)\b", re.I)
LESSONS = [lesson.path for lesson in COURSE.lessons]
OPENING = 40  # characters of an explanation: enough to give it away, short enough to find


def plain(text: str) -> str:
    """Text as a reader sees it, for comparing: HTML entities decoded, Markdown's backticks
    and stars gone, spaces collapsed, case folded."""
    return " ".join(re.sub(r"[`*]", "", html.unescape(text)).split()).casefold()


def leaked(text: str) -> list[str]:
    """The quiz explanations whose opening ``text`` holds (compared as plain text)."""
    seen = plain(text)
    return [why for why in every_quiz_explanation() if plain(why)[:OPENING] in seen]


def _strings(source: str) -> list[str]:
    """Every string in a code cell, with implicitly joined pieces ("a " "b") read as one."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython syntax (a magic): the raw text is checked anyway
        return []
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def giveaways(path: Path) -> list[str]:
    """What a lesson's cells, as a learner reads them, give away about its quiz."""
    found = []
    for cell in nbformat.read(path, as_version=4).cells:
        texts = [cell.source, *(_strings(cell.source) if cell.cell_type == "code" else [])]
        found += [f"{cell.id}: explains {why[:50]!r}…" for text in texts for why in leaked(text)]
        if cell.cell_type == "code" and re.search(r"\banswer\s*=", cell.source):
            found.append(f"{cell.id}: holds an answer= argument")
    return sorted(set(found))


def quiz_ids(path: Path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    return [match.group(1) for cell in notebook.cells if cell.cell_type == "code"
            for match in [QUIZ_CALL.match(cell.source.strip())] if match]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_lesson_cell_gives_a_quiz_away(path):
    assert not giveaways(path)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_lesson_asks_its_own_quiz_by_id(path):
    ids = quiz_ids(path)
    assert len(ids) == 1, f"expected one quiz(...) cell, found {ids}"
    assert ids[0] in questions() and ids[0].startswith(path.stem[:3])


def test_every_quiz_is_asked_once():
    asked = sorted(quiz_id for path in LESSONS for quiz_id in quiz_ids(path))
    assert asked == sorted(questions())


def test_every_option_explains_itself_without_a_verdict():
    for question in questions().values():
        assert len(question.options) >= 3, question.id
        assert sum(option.right for option in question.options) == 1, question.id
        for option in question.options:
            assert len(option.why) > 40, (question.id, option.text)
            assert not VERDICT.match(option.why), (question.id, option.why[:40])


@pytest.mark.parametrize("quiz_id", sorted(questions()))
def test_check_says_right_once_and_explains_the_pick(quiz_id):
    view = quiz(quiz_id)
    assert view.feedback.value == ""
    for option in view.question.options:
        view.choice.value = option.text
        assert view.check() is option.right
        shown = view.feedback.value
        assert (RIGHT if option.right else WRONG) in shown
        assert shown.count("Right") == (1 if option.right else 0) + option.why.count("Right")
        assert plain(option.why) in plain(shown)


def test_check_without_a_pick_asks_for_one():
    view = quiz("02-skip-or-stop")
    assert view.check() is None and "Pick an option" in view.feedback.value


def test_the_static_rendering_shows_the_question_and_options_only():
    for quiz_id, question in questions().items():
        bundle = quiz(quiz_id)._repr_mimebundle_()
        rendering = bundle["text/html"] + bundle["text/plain"]
        assert not leaked(rendering), quiz_id
        assert "Right" not in rendering and "Not quite" not in rendering
        assert "<details" not in rendering
        assert all(html.escape(option.text) in bundle["text/html"]
                   for option in question.options)
        assert "JupyterLab" in bundle["text/html"]


def test_an_unknown_quiz_names_the_known_ones():
    with pytest.raises(KeyError, match="02-skip-or-stop"):
        quiz("02-no-such-quiz")


def test_the_sealed_quizzes_hold_every_question_and_no_answer_in_sight():
    """quizzes.sealed.json (the student install's) unseals to quizzes.toml's quizzes, while its
    text shows the questions and options but no verdict and no explanation."""
    import json
    from importlib import resources

    from packlab.course import quiz as module

    text = module.sealed(questions())
    stored = json.loads(text)
    assert list(stored) == list(questions())
    assert [o["text"] for o in stored["02-skip-or-stop"]["options"]] == \
        [o.text for o in questions()["02-skip-or-stop"].options]
    assert leaked(text) == [] and '"right"' not in text and "right = true" not in text
    folder = resources.files(module.__package__)
    assert (folder / module.QUIZZES).is_file()  # the checkout reads the TOML itself
    assert module.unsealed(text) == questions()
