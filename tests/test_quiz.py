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

from packlab.course.quiz import (
    RIGHT,
    WRONG,
    MultipleChoice,
    Question,
    every_quiz_explanation,
    inline,
    questions,
    quiz,
    shuffled,
)

QUIZ_CALL = re.compile(r'^quiz\("([^"]+)"\)$')
VERDICT = re.compile(r"^(right|wrong|correct|no|not quite|not here|yes)\b", re.I)
LESSONS = [lesson.path for lesson in COURSE.lessons]
OPENING = 40  # characters of an explanation: enough to give it away, short enough to find


def plain(text: str) -> str:
    """Text as a reader sees it, for comparing: HTML tags gone and entities decoded, Markdown's
    backticks and stars gone, spaces collapsed, case folded."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text))  # markdown rendered: tags dropped
    return " ".join(re.sub(r"[`*]", "", text).split()).casefold()


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
    assert view.feedback == ""
    for option in view.question.options:
        view.pick(option.text)
        assert view.check() is option.right
        shown = view.feedback
        assert (RIGHT if option.right else WRONG) in shown
        assert shown.count("Right") == (1 if option.right else 0) + option.why.count("Right")
        assert plain(option.why) in plain(shown)


def test_check_without_a_pick_asks_for_one():
    view = quiz("02-skip-or-stop")
    assert view.check() is None and "Pick an option" in view.feedback


def test_the_static_rendering_shows_the_question_and_options_only():
    for quiz_id, question in questions().items():
        bundle = quiz(quiz_id)._repr_mimebundle_()
        rendering = bundle["text/html"] + bundle["text/plain"]
        assert not leaked(rendering), quiz_id
        assert "Right" not in rendering and "Not quite" not in rendering
        assert "<details" not in rendering
        assert all(inline(option.text) in bundle["text/html"] for option in question.options)
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


# --- issue 20: shuffled per learner, markdown, the verdict announced -----------------------------

def right_place(question, key: str) -> int:
    return [option.right for option in shuffled(question, key)].index(True)


def test_options_are_shuffled_per_learner_and_stable_across_runs(tmp_path, monkeypatch):
    """The right answer was option 1 in 5 of 10 quizzes for everyone. Now each learner gets an
    order of their own, the same at every run, and across learners the right answer's place is
    spread over every position."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "me"))
    first = [o.text for o in quiz("02-skip-or-stop").options]
    assert [o.text for o in quiz("02-skip-or-stop").options] == first, "not stable"
    assert (tmp_path / "me" / "packlab" / "learner-key").is_file()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "someone-else"))
    orders = {tuple(o.text for o in quiz("02-skip-or-stop").options) for _ in range(2)}
    assert len(orders) == 1
    learners = [f"learner-{n}" for n in range(400)]
    for question in questions().values():
        places = [right_place(question, key) for key in learners]
        share = [places.count(place) / len(places) for place in range(len(question.options))]
        assert min(share) > 0.5 / len(question.options), (question.id, share)
        assert sorted(o.text for o in shuffled(question, "x")) == sorted(
            o.text for o in question.options)
    one_learner = [right_place(question, "learner-7") for question in questions().values()]
    assert one_learner.count(0) < 5, one_learner


def test_quiz_text_and_feedback_are_markdown():
    """Backticks showed as typed ("Delete the `else: break` branch"): now they are code."""
    with_code = [q for q in questions().values()
                 if any("`" in o.text or "`" in o.why for o in q.options)]
    assert with_code, "no quiz option with code in it: this test would check nothing"
    for question in with_code:
        view = MultipleChoice(question, key="k")
        for shown, option in zip(view.options_html, view.options, strict=True):
            assert "`" not in shown, shown
            if "`" in option.text:
                assert "<code>" in shown
        for option in view.options:
            view.pick(option.text)
            view.check()
            assert "`" not in view.feedback and ("<code>" in view.feedback) == ("`" in option.why)
    hostile = MultipleChoice(Question("x", "Is <script>alert(1)</script> *fine*?",
                                      questions()["02-skip-or-stop"].options), key="k")
    assert "<script>" not in hostile.question_html and "<em>fine</em>" in hostile.question_html


# --- issue 29: quizzes 07, 08 and 10, each claim recomputed --------------------------------------

def option_text(quiz_id: str) -> str:
    """A quiz's question, options and explanations, spaces collapsed."""
    question = questions()[quiz_id]
    parts = [question.question] + [o.text + " " + o.why for o in question.options]
    return " ".join(" ".join(parts).split())


def test_quiz_10_asks_about_a_turn_the_lesson_does_not_show_and_its_answer_is_right():
    """Quiz 10 asked about L10's own walk (63 tokens left, user-2), which section 4 answers."""
    from packlab.packing.conversation import assemble_turn

    text = option_text("10-history-cut")
    assert "63 tokens" not in text and "user-2" not in text
    lesson_10 = next(path for path in LESSONS if path.name.startswith("10-"))
    lesson = "\n".join(cell.source for cell in nbformat.read(lesson_10, as_version=4).cells)
    assert "user-5" not in lesson and "assistant-4" not in lesson
    history = [{"id": "call-3", "role": "assistant", "tokens": 10, "call_id": "c3"},
               {"id": "result-3", "role": "tool", "tokens": 15, "call_id": "c3"},
               {"id": "user-4", "role": "user", "tokens": 12},
               {"id": "assistant-4", "role": "assistant", "tokens": 70},
               {"id": "user-5", "role": "user", "tokens": 30}]
    got = assemble_turn({"id": "sys", "tokens": 50}, [], history, [], {"id": "ask", "tokens": 10},
                        150)  # 150 - 60 required = 90 for the history
    assert got["order"] == ["sys", "user-5", "ask"]
    assert {d["id"]: d["reason"] for d in got["dropped"]} == {
        "assistant-4": "history-over-budget", "user-4": "history-cut",
        "call-3": "history-cut", "result-3": "history-cut"}
    right = [o for o in questions()["10-history-cut"].options if o.right]
    assert right[0].text.startswith("Only user-5")
    assert "assemble_turn raises a ValueError" not in text


def test_quiz_07_counts_a_part_the_size_of_the_budget_as_fitting():
    from packlab.packing.reasons import pack_with_reasons

    assert pack_with_reasons([{"id": "manual-chapter-3", "tokens": 850, "priority": 1}],
                             850)["included"] == ["manual-chapter-3"]
    text = option_text("07-too-large-to-fit")
    assert "above 850" not in text and "a budget of at least 850 tokens" in text


def test_quiz_08_distractor_is_a_plausible_misreading_and_its_claim_holds():
    """"Remove an earlier, lower-scored chunk" contradicted itself in a best-first walk; the new
    wrong option reads min_span as a length to cut to, and the packer sends nothing instead."""
    from packlab.packing.evidence import pack_evidence

    text = option_text("08-less-than-min-span")
    assert "Remove an earlier, lower-scored chunk" not in text
    assert "Cut it to 80 characters, min_span" in text
    chunks = [{"id": "faq", "text": "f" * 60, "score": 0.95},
              {"id": "policy", "text": "p" * 300, "score": 0.91}]
    sent = pack_evidence(chunks, 100, min_span=80)
    assert [(item["id"], len(item["text"])) for item in sent] == [("faq", 60)]
