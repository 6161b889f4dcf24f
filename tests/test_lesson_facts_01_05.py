"""Lessons 01-05 say true things, teach each thing once, and never answer a question before the
learner asks for the answer (issue 20).

Fast: the numbers are computed with packlab itself (no kernel); the notebooks' own run is in
tests/test_notebooks_run.py.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from conftest import COURSE
from test_lesson_words import WORDS

from packlab.course.quiz import questions
from packlab.packing.curves import pack_state
from packlab.packing.examples import chat_parts
from packlab.packing.packers import greedy, report
from packlab.packing.tokens import chat_breakdown, chat_tokens, count_tokens, estimate_tokens

LESSONS = {lesson.slug[:2]: lesson for lesson in COURSE.lessons if lesson.slug[:2] <= "05"}
REVEAL = "%%reveal"
QUESTION = re.compile(r"\*\*What will|\b(find|answer),? before you open", re.I)


def cells(number: str) -> list[nbformat.NotebookNode]:
    return nbformat.read(LESSONS[number].path, as_version=4).cells


def prose(number: str) -> str:
    """A lesson's markdown, whitespace collapsed (so a phrase may span a line break)."""
    return " ".join(" ".join(c.source for c in cells(number) if c.cell_type == "markdown").split())


def code(number: str) -> str:
    return "\n".join(c.source for c in cells(number) if c.cell_type == "code")


def unused(budget: int) -> int:
    return budget - pack_state(chat_parts(), greedy, budget).used


# ---- wrong or misleading sentences -----------------------------------------------------------

def test_l02_names_the_unused_tokens_not_the_used_ones():
    text = prose("02")
    assert "unused (277 and 309)" not in text
    assert f"Greedy leaves {unused(300)} and {unused(400)} tokens unused" in text
    assert f"(it uses {300 - unused(300)} and {400 - unused(400)})" in text


def test_l05_counts_the_role_as_framing_and_the_reply_primer_apart():
    conversation = next(c.source for c in cells("05") if "conversation = [" in c.source)
    namespace: dict = {}
    exec(conversation.split("*rows")[0], namespace)  # the list of messages only
    messages = namespace["conversation"]
    contents = sum(count_tokens(m["content"]) for m in messages)
    primer = chat_breakdown(messages)[-1]["framing"]
    framing = chat_tokens(messages) - contents - primer
    text = prose("05")
    assert "the roles (1 token each" not in text  # roles were once counted apart from framing
    assert "every token the chat format adds around its content, the role name included" in text
    assert f"add up to {contents} tokens; the request costs {chat_tokens(messages)}" in text
    assert (f"The other {chat_tokens(messages) - contents} are {framing} of framing" in text
            and f"the {primer}-token reply primer" in text)


def test_quiz_04_uses_lesson_04s_own_example():
    shown = " ".join(o.why for o in questions()["04-what-used-counts"].options)
    parts = [{"id": i, "tokens": t} for i, t in
             [("system", 120), ("tool-log", 300), ("turn-latest", 40), ("memory", 90)]]
    assert '{"id": "tool-log", "tokens": 300}' in code("04")
    looked_at = sum(p["tokens"] for p in parts)
    assert report(parts, 250, greedy)["used"] == 250
    assert f"gives {looked_at}" in shown and "250 - 300 = -50, while 250" in " ".join(shown.split())
    assert "huge 80" not in shown


# ---- one course: assumptions stated once, examples not reused --------------------------------

@pytest.mark.parametrize("number", sorted(LESSONS))
def test_each_lesson_states_in_one_line_what_it_assumes(number):
    """One italic sentence, as lessons 06-10 have it: "*Assumes lessons 01–03: ….*"."""
    first = cells(number)[0].source
    said = [p for p in first.split("\n\n") if p.startswith("*Assumes")]
    assert len(said) == 1, f"lesson {number}: no *Assumes …* line in its first cell"
    assert said[0].endswith(".*") and said[0].count(".") == 1, said[0]
    assert said[0].startswith("*Assumes no earlier lesson" if number == "01" else "*Assumes lesson")


def test_l04_does_not_retell_lesson_01():
    opening = " ".join(c.source for c in cells("04")[:6] if c.cell_type == "markdown")
    for told in ("fails loudly", "nearly* fits", "a small camping shop", "six weeks after"):
        assert told not in opening, f"lesson 04 retells lesson 01: {told!r}"


SYS_HUGE_SMALL = re.compile(r'"tokens": 100\},\s*\{"id": "[^"]+", "tokens": 80\}')


def test_the_sys_huge_small_example_opens_lesson_02_only():
    using = [n for n in sorted(LESSONS) if SYS_HUGE_SMALL.search(code(n) + prose(n))]
    assert using == ["02"]


def test_two_plus_two_is_counted_in_lesson_01_only():
    counted = [n for n in sorted(LESSONS) if "2 + 2 = 4" in code(n) + prose(n)]
    assert counted == ["01"]


def test_l05s_predict_string_is_new_to_the_learner():
    cell = next(c.source for c in cells("05") if c.source.startswith(REVEAL))
    string = re.search(r'^s = "([^"]+)"', cell, re.M).group(1)
    assert string not in code("01") + prose("01")
    assert (len(string), estimate_tokens(string), count_tokens(string)) == (16, 4, 10)
    assert "Sixteen characters, so chars/4 says 4; the tokenizer says 10" in prose("05")


# ---- predict, then reveal --------------------------------------------------------------------

@pytest.mark.parametrize("number", sorted(LESSONS))
def test_every_predict_cell_folds_its_answer(number):
    notebook = cells(number)
    first_code = next(c for c in notebook if c.cell_type == "code")
    assert first_code.source.startswith("%load_ext packlab.course.reveal")
    assert not [c.id for c in notebook if "hide-output" in c.metadata.get("tags", [])]
    questions_asked = [i for i, c in enumerate(notebook)
                       if c.cell_type == "markdown" and QUESTION.search(c.source)]
    reveals = [c for c in notebook if c.source.startswith(REVEAL)]
    assert questions_asked and len(questions_asked) == len(reveals), (
        f"lesson {number}: {len(questions_asked)} questions, {len(reveals)} %%reveal cells")
    for i in questions_asked:
        after = notebook[i + 1:]
        reveal = next((j for j, c in enumerate(after) if c.source.startswith(REVEAL)), None)
        assert reveal is not None, f"{notebook[i].id}: a question with no %%reveal after it"
        between = [c.id for c in after[:reveal] if c.cell_type == "markdown"]
        assert not between, f"{notebook[i].id}: markdown {between} between question and reveal"
        assert "<details" not in notebook[i].source and "```\n" not in notebook[i].source


@pytest.mark.parametrize("number", sorted(LESSONS))
def test_what_follows_a_reveal_is_marked_answer(number):
    notebook = cells(number)
    for cell, after in zip(notebook, notebook[1:], strict=False):
        if cell.source.startswith(REVEAL) and after.cell_type == "markdown":
            assert after.source.startswith(("### Answer", "## ")), after.id


# Each predict question's answer as the reveal prints it: never in the lesson's markdown.
ANSWERS = {"01": ["1425 575"], "02": ["('sys', 'small')", "('sys', 'huge')"],
           "03": ["('system', 'chunk-b', 'chunk-c')"], "04": ["'used': 250"],
           "05": ["16 4 10"]}


@pytest.mark.parametrize("number", sorted(LESSONS))
def test_no_markdown_prints_a_predict_answer(number):
    shown = [c.id for c in cells(number) if c.cell_type == "markdown"
             for answer in ANSWERS[number] if answer in c.source]
    assert not shown


def test_l02_asks_about_the_slider_before_answering():
    notebook = cells("02")
    asked = next(c for c in notebook if c.source.startswith("## 5. Slide the budget"))
    for answer in ("153", "most important parts", "You will\nnot find one"):
        assert answer not in asked.source, f"the slider question answers itself: {answer!r}"
    # The answer is given after the reveal, and it is true.
    at = {b: pack_state(chat_parts(), greedy, b) for b in (152, 153, 427, 428)}
    assert "chunk-warranty" in at[153].skipped and "turn-previous" in at[153].taken
    assert "turn-previous" not in at[152].taken
    assert (len(at[427].taken), len(at[428].taken)) == (8, 4)
    assert "From 153 to 427" in prose("02")
    assert "eight parts kept at 427 and only four at 428" in prose("02")


# ---- the prose budget of lessons 01-05 (the course-wide limits: test_lesson_words.py) --------

def test_lessons_01_to_05_fit_their_share_of_the_words():
    counts = {n: WORDS.prose_words(nbformat.read(lesson.path, as_version=4))
              for n, lesson in LESSONS.items()}
    assert max(counts.values()) <= 1_900 and sum(counts.values()) <= 7_900, counts
