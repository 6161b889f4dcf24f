"""Issue 36 item 4: every exercise's slider shows the learner's function beside the lesson's at
the same slider values, names the difference in words and marks it in the picture.

Each exercise's slider is built here as the released notebook builds it: its answer cell (the
solution's, a gallery mutant's or the starter's) run, then its last cell, whose view is checked.
"""

from __future__ import annotations

import ast
import html
import re

import nbformat
import pytest
from conftest import COURSE, EXERCISES

from autograder.checks import gallery
from packlab.views.compare import BesideView, Side, difference, differing

# The exercises whose notebook ends with a slider, and the typical wrong answer of each: the
# lesson's break-instead-of-continue, which every one of them can make.
WRONG = {"02": "pack/break_at_first_miss", "03": "pack/break_at_first_miss",
         "04": "pack_report/break_at_first_miss", "06": "fit/break_at_first_miss",
         "07": "drop_reasons/break_at_first_miss", "08": "pack_evidence/break_at_first_miss",
         "09": "score_and_pack/break_at_first_miss",
         "10": "assemble_turn/evidence_before_history"}
SLIDERS = [COURSE.exercise(number) for number in WRONG]


def cell(exercise, grade_id: str, released: bool = False) -> str:
    path = exercise.release if released else exercise.source
    notebook = nbformat.read(path, as_version=4)
    return next(c.source for c in notebook.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def slider_of(exercise, answer: str | None) -> BesideView:
    """The exercise's last cell's view, run after ``answer`` (None: no answer cell run)."""
    scope: dict = {}
    if answer is not None:
        exec(answer, scope)  # noqa: S102 - the course's own solutions and gallery
    return shown_by(cell(exercise, "try-it"), scope)


def shown_by(source: str, scope: dict):
    """What a cell shows, as a kernel shows it: the value of its last statement."""
    module = ast.parse(source)
    last = ast.Expression(module.body.pop().value)
    exec(compile(module, "<cell>", "exec"), scope)  # noqa: S102 - the course's own notebook
    return eval(compile(last, "<cell>", "eval"), scope)  # noqa: S307


def solution(exercise) -> str:
    return cell(exercise, exercise.grade_id("answer"))


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_every_exercise_slider_is_the_comparison():
    """Every exercise notebook that ends with a view shows it beside the lesson's."""
    with_view = []
    for exercise in EXERCISES:
        notebook = nbformat.read(exercise.source, as_version=4)
        ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in notebook.cells]
        if "try-it" in ids:
            last = cell(exercise, "try-it").strip().splitlines()[-1]
            if last.startswith("print("):  # 05: a table against the real tokenizer
                continue
            with_view.append(exercise.name[:2])
            assert "_beside(" in cell(exercise, "try-it"), exercise.name
    assert with_view == list(WRONG)


@pytest.mark.parametrize("exercise", SLIDERS, ids=lambda e: e.name)
def test_the_right_answer_matches_the_lesson_at_every_value(exercise):
    view = slider_of(exercise, solution(exercise))
    axis = view.slider.description
    assert view.difference is None
    text = plain(view.summary.value)
    assert "yours keeps the same" in text or "the same as the lesson's" in text
    assert re.search(rf"Yours matches the lesson's at every {axis} from \d+ to \d+", text), text
    assert "≠" not in view.plot.title.get_text()
    assert not [t for t in view.plot.labels if t.get_text().startswith("≠")]


@pytest.mark.parametrize("exercise", SLIDERS, ids=lambda e: e.name)
def test_a_typical_wrong_answer_is_named_where_it_differs(exercise):
    view = slider_of(exercise, gallery.load(WRONG[exercise.name[:2]]).code)
    overall = plain(view.summary.value).split("Yours differs from the lesson's at ")[1]
    count, first = re.match(r"(\d+) of \d+ \w+s.*?; the first: At \w+ (\d+)", overall).groups()
    assert int(count) > 0
    view.slider.value = int(first)  # slide to the first budget (or limit) where they differ
    said = view.difference
    assert said and said in plain(view.summary.value)
    assert said.startswith(f"At {view.slider.description} {first}")
    assert "only the lesson's" in said
    marked = [t.get_text() for t in view.plot.labels if t.get_text().startswith("≠")]
    named = said.split("only the lesson's ")[1].split(" ", 1)[1].rstrip(".").split(", ")
    ids = [label.split()[1] for label in marked]
    assert set(named) <= set(ids)
    assert ids == named or view.comparison.ordered  # a turn marks parts sent out of order too
    assert "differ" in view.plot.title.get_text()


def test_exercise_03s_buggy_starter_shows_what_the_break_loses():
    """03 ships the early-`break` packer: its slider names what the lesson's keeps after it."""
    exercise = COURSE.exercise("03")
    view = slider_of(exercise, cell(exercise, exercise.grade_id("answer"), released=True))
    view.slider.value = 300
    assert view.difference == ("At budget 300, only the lesson's keeps tool-order-lookup, "
                               "chunk-shipping, chunk-tent-care, turn-previous.")
    assert "used 136 of 300 tokens" in plain(view.summary.value)


def raises(*args):
    raise ValueError("no budget left\nsecond line")


def returns_none(*args):
    return None


def hostile(*args):
    return ["<img src=x onerror=alert(1)>"]


@pytest.mark.parametrize("exercise", SLIDERS, ids=lambda e: e.name)
@pytest.mark.parametrize(("function", "words"), [
    (None, "there is no {name} to compare yet: run the cell that defines it"),
    (raises, "raised ValueError: no budget left"),
    (returns_none, "returned None"),
    (hostile, "<img src=x onerror=alert(1)>"),
])
def test_a_missing_or_broken_function_is_named_in_one_line(exercise, function, words):
    name = exercise.function
    scope = {} if function is None else {name: function}
    view = shown_by(cell(exercise, "try-it"), scope)
    text = plain(view.summary.value)
    assert words.format(name=name) in text
    assert view.yours.error and not view.lesson.error
    assert re.search(rf"Yours fails at {view.slider.description} \d+", text), text
    assert "Traceback" not in text and "second line" not in text
    assert "<img" not in view.summary.value  # the learner's output is escaped
    assert view.lesson.kept and set(view.lesson.kept) <= differing(view.yours, view.lesson)


def test_the_difference_names_each_side_and_amount():
    yours = Side({"a": 10, "b": 5, "c": 3})
    lesson = Side({"a": 10, "b": 8, "d": 4})
    assert difference("at limit 40", yours, lesson, "sends", "characters") == (
        "At limit 40, only yours sends c; only the lesson's sends d; yours sends 5 characters "
        "of b, the lesson's 8.")
    assert differing(yours, lesson) == {"b", "c", "d"}
    assert difference("at budget 3", yours, Side(dict(yours.kept)), "keeps", "tokens") is None
    refused = Side(error="the lesson's fit raised ValueError: too small")
    assert difference("at budget 3", Side(error="your fit raised ValueError: x"), refused,
                      "includes", "tokens") is None  # both refuse: not a difference
    assert difference("at budget 3", yours, refused, "includes", "tokens") == (
        "At budget 3, yours includes a, b, c, but the lesson's refuses: the lesson's fit raised "
        "ValueError: too small.")


def test_the_view_has_a_static_rendering_and_accessible_names():
    exercise = COURSE.exercise("02")
    view = slider_of(exercise, gallery.load(WRONG["02"]).code)
    bundle = view._repr_mimebundle_()
    page = bundle["text/html"]
    assert 'alt="Yours beside the lesson&#x27;s at budget' in page
    assert "only the lesson&#x27;s keeps" in page and 'aria-live="polite"' in page
    assert bundle["text/plain"].startswith("BesideView: At budget")
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert any("disagree" in getattr(child, "alt", "") for child in view.children)
