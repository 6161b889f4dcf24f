"""Predict, commit, then see (issue 36): a predict question's answer opens only after the learner
commits a prediction; the verdict says whether it matched and why; the prediction is kept.

The browser tests (test_browser_lab.py, test_browser_book.py) drive the same in JupyterLab and
in the built book; test_room.py counts predictions on a real hub's chart.
"""

from __future__ import annotations

import base64
import html
import json
import re

import nbformat
import pytest
from conftest import COURSE
from rich.console import Console
from test_answers_folded import Answer, before, says_number

from packlab.course import predictions
from packlab.course.predict import Prediction, form_html, sealed
from packlab.course.predictions import find, normal, questions

REVEAL_ID = re.compile(r"^%%reveal +(\S+)")
OUTPUT = "<pre>the cell printed 4242</pre>"


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch):
    """Each test keeps its predictions in a state folder of its own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PACKLAB_PRESENTER", raising=False)
    return tmp_path / "state"


def asked() -> dict[str, tuple]:
    """Every ``%%reveal ID`` cell of the lessons: question id -> (lesson number, cell index)."""
    found = {}
    for lesson in COURSE.lessons:
        for index, cell in enumerate(nbformat.read(lesson.path, as_version=4).cells):
            match = cell.cell_type == "code" and REVEAL_ID.match(cell.source)
            if match:
                assert match[1] not in found, f"{match[1]} is asked twice"
                found[match[1]] = (lesson.slug[:2], index)
    return found


def test_every_question_is_asked_once_by_its_lesson_and_every_ask_is_sound():
    found = asked()
    assert set(found) == set(questions()), "a question of predictions.toml is never asked"
    for key, (lesson, _) in found.items():
        assert key.startswith(lesson), f"{key} is asked in lesson {lesson}"
        for ask in find(key).asks:
            assert ask.matches(ask.answer), f"{key}: {ask.prompt!r} rejects its own answer"


@pytest.mark.parametrize(("kind", "given", "answer"), [
    ("number", "1,425", "1425"), ("number", " 1 425 ", "1425"), ("number", "428.0", "428"),
    ("text", "['sys', 'small']", "sys small"), ("text", "`Chunk-Small-1`", "chunk-small-1"),
    ("choice", "None of them", "None of them")])
def test_an_answer_matches_in_any_of_its_usual_forms(kind, given, answer):
    assert normal(kind, given) == normal(kind, answer)


@pytest.mark.parametrize(("kind", "given"), [("number", "14250"), ("number", "about 1425"),
                                             ("number", ""), ("text", "small sys"),
                                             ("text", "sys")])
def test_another_answer_does_not_match(kind, given):
    ask = predictions.Ask("?", kind, "1425" if kind == "number" else "sys small", "why")
    assert not ask.matches(given)


def test_nothing_opens_before_a_commit_and_the_verdict_says_why(state):
    question = find("01-coding-assistant")
    view = Prediction(question, OUTPUT)
    assert view.answer == "" and view.verdict == ""
    view.show_answer()  # a learner's session has no presenter's button: nothing opens
    assert view.answer == ""
    view.given = ["1425", ""]
    view.commits += 1
    assert "Answer every part first" in view.verdict and view.answer == ""
    assert predictions.recorded() == {}
    view.given = ["1,425", "<script>600</script>"]
    view.commits += 1
    assert view.committed and "✓ Matches." in view.verdict and "✗ Does not match." in view.verdict
    assert "<script>" not in view.verdict and "&lt;script&gt;600" in view.verdict
    assert "the answer is <code>575</code>" in view.verdict
    assert OUTPUT in view.answer and "1,425" in view.answer  # the explanation, then the output
    assert predictions.recorded() == {"01-coding-assistant": {
        "right": False, "given": ["1,425", "<script>600</script>"]}}
    view.given = ["1425", "575"]  # a second commit changes nothing: the first counts
    view.commits += 1
    assert predictions.recorded()["01-coding-assistant"]["right"] is False
    assert predictions.tally("01") == (1, 0, 2)


def test_a_presenter_opens_an_answer_without_a_prediction(monkeypatch):
    monkeypatch.setenv("PACKLAB_PRESENTER", "1")
    view = Prediction(find("02-two-budgets"), OUTPUT)
    assert view.presenter
    view.opens += 1
    assert OUTPUT in view.answer and not view.committed and predictions.recorded() == {}


def test_the_page_holds_the_answer_only_sealed():
    """The static form (the book, the slides) and the widget's state before a commit say
    nothing of the answer; the sealed attribute unseals to the verdicts' data and the answer."""
    for question in questions().values():
        view = Prediction(question, OUTPUT)
        # Its references to other widgets are random hex ids: one held "4242" in a fresh
        # clone's run. They say nothing of the answer, so they are left out of the search.
        state_before = re.sub(r"IPY_MODEL_[0-9a-f]+", "IPY_MODEL_",
                              json.dumps(view.get_state()))
        page = form_html(question, OUTPUT)
        for text in (state_before, re.sub(r"data-packlab-sealed='[^']*'", "", page)):
            assert OUTPUT not in text and "4242" not in text
            for ask in question.asks:
                assert ask.why not in text
        data = json.loads(base64.b64decode(sealed(question, OUTPUT)))
        assert data["answer"].endswith(OUTPUT)
        assert [a["answer"] for a in data["asks"]] == [a.answer for a in question.asks]


def test_progress_counts_predictions_made_and_right(tmp_path):
    from packlab.course.progress import predictions_table

    Prediction(find("02-two-budgets"), OUTPUT).given = []
    for key, given in (("02-two-budgets", ["sys small", "sys huge"]),
                       ("01-coding-assistant", ["1425", "0"])):
        view = Prediction(find(key), OUTPUT)
        view.given = given
        view.commits += 1
    console = Console(width=100, record=True)
    console.print(predictions_table())
    text = console.export_text()
    assert re.search(r"01\s*│\s*1 of 2\s*│\s*0", text), text
    assert re.search(r"02\s*│\s*1 of 2\s*│\s*1", text), text
    total = len(questions())
    assert re.search(rf"all\s*│\s*2 of {total}\s*│\s*1", text), text


# ---- issue 36 item 2: nothing answered before it is asked --------------------------------------

# The six questions once answerable from the page, and the primed one: (question, ask index).
ONCE_ANSWERED = [("01-slide-the-budget", 2), ("03-slide-it-yourself", 0),
                 ("02-slide-the-budget", 0)]


def question_cell(key: str) -> tuple[str, int]:
    """The lesson and the index of the markdown cell that asks question ``key``."""
    lesson, index = asked()[key]
    notebook_cells = nbformat.read(next(one.path for one in COURSE.lessons
                                        if one.slug.startswith(lesson)), as_version=4).cells
    return lesson, max(i for i in range(index) if notebook_cells[i].cell_type == "markdown")


def meaning(ask: predictions.Ask) -> Answer:
    """An ask's expected answer, to be looked for by meaning (test_answers_folded's way)."""
    if ask.kind == "number":
        return Answer(numbers=(int(float(ask.answer)),))
    if ask.kind == "text":
        return Answer(runs=(tuple(ask.answer.split()),))
    return Answer()


def addends(text: str, total: int) -> list[tuple[int, int]]:
    """Two numbers one sentence of the text states that add up to ``total`` (it gives the sum
    away, as "They cost 59 and 29" or "136 + 292 = 428" did)."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s", " ".join(text.split())):
        numbers = sorted({int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", sentence)})
        found += [(a, total - a) for a in numbers
                  if 0 < a < total - a and says_number(sentence, total - a)]
    return found


@pytest.mark.parametrize(("key", "ask"), ONCE_ANSWERED)
def test_a_rewritten_question_is_answered_nowhere_above_it(key, ask):
    """Nothing the learner read before the question (the course so far, code included) says its
    answer, and the question does not give the numbers that add up to it."""
    lesson, index = question_cell(key)
    wanted = find(key).asks[ask]
    read = before(lesson, index + 1)
    assert not meaning(wanted).found_in(read), f"{key}: {wanted.answer} is said before it is asked"
    if wanted.kind == "number":
        lesson_so_far = read[read.rindex("# Lesson "):]
        given = addends(lesson_so_far, int(wanted.answer))
        assert not given, f"{key}: the lesson adds up {given} before asking"


def test_the_meaning_check_catches_the_old_questions():
    """The old lesson 01 question gave both costs; lesson 02 once worked out 136 + 292 = 428."""
    assert addends("Both fit? (They cost 59 and 29.)", 88) == [(29, 59)]
    assert addends("136 tokens are used, and 136 + 292 is more than 400.", 428) == [(136, 292)]
    assert not addends("136 tokens are used. Its 292 more would go past 400.", 428)
    assert meaning(find("03-slide-it-yourself").asks[0]).found_in("left out: `memory-older`")


def test_lesson_02_no_longer_works_out_where_the_warranty_gets_in():
    """Lesson 02 once said "136 + 292 = 428" before asking where one token more keeps fewer
    parts; no sentence of the lesson before its section 5 adds up to 428 now."""
    lesson, index = question_cell("02-slide-the-budget")
    read = before(lesson, index)
    assert not addends(read[read.rindex("# Lesson "):], 428)


@pytest.mark.slow
@pytest.mark.parametrize("lesson", COURSE.lessons, ids=lambda one: one.slug[:2])
def test_each_expected_answer_is_what_its_cell_prints(executed_lessons, lesson):
    """predictions.toml's answers are the lesson's truth: each number and each run of ids is in
    what its executed cell prints (a choice is checked by the lesson-facts tests)."""
    from conftest import executed
    from folds import sealed_answer

    wrong = []
    for cell in executed(executed_lessons, lesson).cells:
        match = cell.cell_type == "code" and REVEAL_ID.match(cell.source)
        if not match:
            continue
        printed = sealed_answer(cell).split("</summary>", 1)[1]
        printed = html.unescape(re.sub(r"<[^>]+>", " ", printed))
        for ask in find(match[1]).asks:
            if ask.kind == "text":  # the ids in this order, whatever is printed between them
                said = re.search(r"(?<![\w-])" + r"(?![\w-]).*?(?<![\w-])".join(
                    map(re.escape, ask.answer.split())) + r"(?![\w-])", printed, re.S)
            else:
                said = ask.kind == "choice" or meaning(ask).found_in(printed)
            if not said:
                wrong.append(f"{match[1]}: {ask.answer!r} is not in what the cell prints")
    assert not wrong, "\n".join(wrong)


def test_a_slide_shows_the_fields_and_folds_the_answer_for_the_presenter():
    """Slides run no script to judge a prediction: a slide shows the question's fields and the
    answer in a closed box a presenter opens, with no seal left in the page."""
    from packlab.course.predict import PRESENT
    from packlab.course.slides import _presenter_answer

    question = find("02-two-budgets")
    cell = nbformat.v4.new_code_cell("%%reveal 02-two-budgets")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": form_html(question, OUTPUT), "text/plain": "Prediction"})]
    page = _presenter_answer(cell).outputs[0].data["text/html"]
    assert "data-packlab-sealed" not in page and "<button" not in page
    fields, box = page.split("<details", 1)
    assert question.asks[0].prompt.split("`")[0] in fields and OUTPUT not in fields
    assert f">{PRESENT}</summary>" in box and OUTPUT in box and " open" not in box.split(">")[0]


def test_the_student_install_holds_the_predictions_sealed(tmp_path, monkeypatch):
    """predictions.sealed.json (the student install's) unseals to predictions.toml's questions,
    with no answer in sight; the install's plan ships it instead of predictions.toml."""
    from packlab.course import student

    text = predictions.sealed()
    assert "turn-previous" not in text and "1425" not in text
    plan = student.plan()
    names = {path.name for path in [*plan.copies, *plan.texts]}
    assert predictions.SEALED in names and predictions.PREDICTIONS not in names
    expected = questions()
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / predictions.SEALED).write_text(text, encoding="utf-8")
    monkeypatch.setattr(predictions.resources, "files", lambda package: folder)
    predictions.questions.cache_clear()
    try:
        assert predictions.questions() == expected and len(expected) == 19
    finally:
        predictions.questions.cache_clear()
