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
from packlab.packing.examples import big_first_parts, chat_parts
from packlab.packing.packers import greedy, report, stop_at_first_miss
from packlab.packing.tokens import (
    REPLY_PRIMING,
    chat_breakdown,
    chat_tokens,
    count_tokens,
    estimate_tokens,
)

LESSONS = {lesson.slug[:2]: lesson for lesson in COURSE.lessons if lesson.slug[:2] <= "05"}
REVEAL = "%%reveal"
QUESTION = re.compile(r"\*\*What will|\b(find|answer),? before you open|answer in the cell|"
                      r"the cell under the widget asks", re.I)


def cells(number: str) -> list[nbformat.NotebookNode]:
    return nbformat.read(LESSONS[number].path, as_version=4).cells


def prose(number: str) -> str:
    """A lesson's markdown and the explanations its predict questions open after a prediction
    (predictions.toml), whitespace collapsed (so a phrase may span a line break)."""
    from packlab.course.predictions import questions

    notes = [q.explain for key, q in questions().items() if key.startswith(number)]
    return " ".join(" ".join([c.source for c in cells(number) if c.cell_type == "markdown"]
                             + notes).split())


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
    exec(conversation.split("for row")[0], namespace)  # the list of messages only
    messages = namespace["conversation"]
    contents = sum(count_tokens(m["content"]) for m in messages)
    primer = REPLY_PRIMING
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


def test_l02_asks_about_the_slider_before_answering():
    notebook = cells("02")
    asked = next(c for c in notebook if c.source.startswith("## 5. Slide the budget"))
    for answer in ("153", "427", "428", "most important parts", "fewer parts at"):
        assert answer not in asked.source, f"the slider question answers itself: {answer!r}"
    assert "try 150 and 300." in prose("02")  # section 3 no longer sends the learner to 428


def test_l02_slider_answers_are_true():
    """The folded answer: every stretch where the warranty is skipped while later parts get in
    (lesson 01's 17 is one), and at 428 all five small parts are skipped, not four."""
    from test_answers_folded import fewer_parts_for_more_budget, warranty_skipped_stretches

    stretches = warranty_skipped_stretches()
    assert stretches == [(17, 28), (46, 58), (76, 87), (105, 135), (153, 427)]
    said = ", ".join(f"{a} to {b}" for a, b in stretches[:-1]) + f" and {stretches[-1][0]} to"
    assert f"At {said} {stretches[-1][1]}" in prose("02")
    at = {b: pack_state(chat_parts(), greedy, b) for b in (427, 428)}
    after = [p["id"] for p in chat_parts()[4:]]
    assert len(after) == 5 and set(after) <= set(at[428].skipped)
    assert "so all five are skipped" in prose("02")
    assert (len(at[427].taken), len(at[428].taken)) == (8, 4)
    assert "At 427 eight parts are kept, at 428 four" in prose("02")
    assert 152 - sum(p["tokens"] for p in chat_parts()[:3]) == 16  # "leave 16 tokens"
    assert min(p["tokens"] for p in chat_parts()[4:]) > 16
    drops = [b for b, _, _ in fewer_parts_for_more_budget()]
    assert drops == [59, 193, 428, 485]
    assert "The same happens at 59, 193 and 485" in prose("02")


def test_l01_slider_answers_are_true():
    from test_answers_folded import _l01_slider

    first, both, warranty = _l01_slider().numbers
    assert pack_state(chat_parts(), greedy, first).taken == ("turn-previous",)
    text = prose("01")
    assert f"`turn-previous`, at {first} tokens" in text
    assert f"`system` costs 59 and `turn-latest` 29: **{both}**" in text
    assert f"**{warranty}**: 59 + 29 + 48 for the three parts before it, plus its own 292" in text
    assert warranty == 59 + 29 + 48 + 292


def test_l03_says_where_the_packers_agree_truly():
    """Lesson 03 once said the packers agree only below 12 tokens or from 660 up; 128 of the 206
    budgets where they agree lie in between."""
    from test_answers_folded import agreeing_stretches

    parts = big_first_parts()
    total = sum(p["tokens"] for p in parts)
    agree = [b for b in range(total + 1) if greedy(parts, b) == stop_at_first_miss(parts, b)]
    differ = sorted(set(range(total + 1)) - set(agree))
    middle = agreeing_stretches()
    inside = sum(b - a + 1 for a, b in middle)
    assert (len(agree), len(differ), inside, len(middle)) == (206, 520, 128, 7)
    assert (differ[0], differ[-1]) == (12, 659)
    text = prose("03")
    assert "They agree only when" not in text
    assert f"At {len(differ)} of the {total + 1} budgets" in text
    assert f"At the other {len(agree)} the two agree" in text
    said = ", ".join(f"{a} to {b}" for a, b in middle[:-1]) + f" and {middle[-1][0]} to"
    assert f"They agree at {inside} budgets in seven stretches: {said} {middle[-1][1]}" in text
    assert "the smallest part after it needs 12 more" in text
    assert min(p["tokens"] for p in parts[2:]) == 12 and parts[0]["tokens"] == 60
    assert stop_at_first_miss(parts, 50).taken == () and greedy(parts, 50).taken


def test_l05_cites_the_cookbook_revision_that_has_the_0301_rule():
    """The rule for gpt-3.5-turbo-0301 (4 per message, -1 for a name) is gone from the cookbook
    revision the lesson cites for today's rule; the older revision that has it is cited beside
    it (openai/openai-cookbook 06d9feb5, read when this test was written)."""
    text = prose("05")
    old = ("https://github.com/openai/openai-cookbook/blob/06d9feb5e21e6fdc85f3ddce7731e05892758cd7/"
           "examples/How_to_count_tokens_with_tiktoken.ipynb")
    assert f"[earlier version]({old})" in text
    assert "(`gpt-3.5-turbo-0301`) 4 per message and −1 for a `name`" in text


def test_l05_framing_has_one_meaning_in_the_code():
    """chat_breakdown's framing is the prose's: role (and name) included; the reply primer is
    no message's row."""
    messages = [{"role": "user", "name": "ada", "content": "Hi"}]
    rows = chat_breakdown(messages)
    assert [set(row) for row in rows] == [{"role", "content", "framing"}]
    assert rows[0]["framing"] == 3 + count_tokens("user") + count_tokens("ada") + 1
    assert rows[0]["content"] + rows[0]["framing"] + REPLY_PRIMING == chat_tokens(messages)
    assert 'row["text"]' not in code("05") and "primer[" not in code("05")


def test_quiz_04s_budget_option_is_checked_against_the_lesson():
    option = next(o for o in questions()["04-what-used-counts"].options
                  if o.text == "The budget: the packer fills it")
    why = " ".join(option.why.split())
    agent = [{"id": i, "tokens": t} for i, t in
             [("system", 120), ("tool-log", 300), ("turn-latest", 40), ("memory", 90)]]
    assert report(agent, 250, greedy)["used"] == 250 and "`used` is 250, the budget" in why
    at_400 = report(chat_parts(), 400, greedy)["used"]
    assert f"at 400 uses {at_400} and leaves {400 - at_400} unused" in why
    assert not option.right


# ---- the prose budget of lessons 01-05 (the course-wide limits: test_lesson_words.py) --------

def test_lessons_01_to_05_fit_their_share_of_the_words():
    counts = {n: WORDS.prose_words(nbformat.read(lesson.path, as_version=4))
              for n, lesson in LESSONS.items()}
    assert max(counts.values()) <= 1_900 and sum(counts.values()) <= 7_900, counts
