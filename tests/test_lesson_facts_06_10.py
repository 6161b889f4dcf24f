"""Lessons 06 to 10 say what is true, say it once, and build on the lessons before them.

Text checks, one per finding of the second fact-check (issue 20): each failed on the lessons as
they were and names the fact it guards. The numbers quoted here are what the lessons' cells print.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE

from packlab.course import quiz

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
LESSON = {lesson.slug[:2]: lesson.path for lesson in COURSE.lessons}
PART = [key for key in sorted(LESSON) if "06" <= key <= "10"]
QUIZZES = tomllib.loads(Path(quiz.__file__).with_name(quiz.QUIZZES).read_text(encoding="utf-8"))


def markdown(number: str) -> list[str]:
    """The lesson's markdown cells, as written."""
    notebook = nbformat.read(LESSON[number], as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]


def prose(number: str) -> str:
    """The lesson's markdown, fenced code left out, line breaks as spaces."""
    return " ".join(" ".join(FENCE.sub("", text).split()) for text in markdown(number))


def quiz_text(quiz_id: str) -> str:
    entry = QUIZZES[quiz_id]
    parts = [entry["question"]] + [o["text"] + " " + o["why"] for o in entry["options"]]
    return " ".join(" ".join(parts).split())


def cell_with(number: str, needle: str) -> str:
    (found,) = [text for text in markdown(number) if needle in text]
    return " ".join(found.split())


# --- wrong or misleading facts -------------------------------------------------------------

def test_l07_the_warranty_chunk_loses_to_the_145_tokens_walked_before_it():
    text = prose("07")
    assert "309 tokens of everything else" not in text
    assert "145 tokens together, and 145 + 292 = 437 is more than 400" in text


def test_l09_lucene_dropped_the_k1_factor_in_version_8_and_elasticsearch_keeps_it():
    text = cell_with("09", "### Lucene's defaults")
    assert "since Lucene 8" in text
    assert "Elasticsearch keeps the factor" in text and "LegacyBM25Similarity" in text
    # Lucene deprecated the class and dropped it; Elasticsearch keeps a copy in its own code.
    assert "Lucene's `LegacyBM25Similarity`" not in text
    assert ("github.com/elastic/elasticsearch/blob/f41bfb936cd35b2b356621cb43b95c440560799e/server/"
            "src/main/java/org/elasticsearch/lucene/similarity/LegacyBM25Similarity.java") in text
    assert "which Solr and Elasticsearch score with" not in text


def test_l10_a_users_name_breaks_sharing_across_users_not_every_turn():
    text = cell_with("10", "At 500, turn 2")
    assert "no two users share a cached prefix" in text
    assert "a user's name inside the system prompt would break the prefix on every turn" not in text


def test_l10_provider_facts_are_dated_and_linked_and_state_no_unsourced_minimum():
    """OpenAI's guide gives one minimum, 1,024 tokens, for every model; Anthropic's lists one per
    model (both read in December 2026). Nothing else about either is stated without a source."""
    text = cell_with("10", "## 8. A stable prefix")
    assert "As of December 2026" in text
    assert "developers.openai.com/api/docs/guides/prompt-caching" in text
    assert "platform.claude.com/docs/en/build-with-claude/prompt-caching" in text
    assert "OpenAI's caches prompts of 1,024 tokens or more" in text
    assert "Anthropic's lists a minimum per model" in text
    assert "differs by model" not in text
    for unsourced in ("2,048", "128 tokens", "four breakpoints", "five minutes"):
        assert unsourced not in prose("10"), unsourced
    tools = cell_with("10", "tool-use pricing")
    assert "December 2026" in tools and "159 to 530" not in tools


def test_l10_the_history_framing_says_the_reply_primer_is_left_out():
    text = cell_with("10", "215 tokens, not 187")
    assert "reply primer is left out" in text


def test_quiz_10_cites_no_unlinked_issue():
    text = quiz_text("10-history-cut")
    assert "khive" not in text and "#94" not in text and "#33245" not in text


# --- one definition of framing, one placement rule -----------------------------------------

def test_framing_includes_the_role_and_the_primer_is_counted_apart():
    l06 = cell_with("06", "653 tokens, not 610")
    assert "43 tokens of framing" not in l06
    assert "40 tokens of framing" in l06 and "3-token reply primer, counted once per request" in l06
    assert "plus its role name" in cell_with("10", "215 tokens, not 187")


def test_the_placement_rule_is_stated_once_in_l08_and_used_after_it():
    rule = "The score decides *whether* a part gets in, not *where* it goes."
    assert sum(rule in " ".join(text.split()) for text in markdown("08")) == 1
    assert not [key for key in PART if key != "08" and rule in prose(key)]
    assert "policy is **best first**" in prose("08")
    assert "lesson 08's placement rule" in prose("09")
    assert "This lesson's policy is **edges first, best last**" in prose("10")
    assert "lesson 08's rule" in quiz_text("09-order-in-the-prompt")
    assert "for now, the order you packed in is the order you return" not in prose("08")


# --- one course: each lesson builds on the ones before -------------------------------------

@pytest.mark.parametrize("number", PART)
def test_each_lesson_says_in_one_line_what_it_assumes(number):
    first = markdown(number)[0]
    lines = [line for line in first.splitlines() if line.startswith("*Assumes")]
    assert lines, "no *Assumes …* line in the first cell"
    assert re.search(r"lessons? \d\d", first)


def test_l07_and_l09_open_on_top_of_l06():
    assert "So far the parts arrived already sorted by priority" not in prose("07")
    assert "Until now the parts arrived" not in prose("09")
    assert markdown("07")[0].count("Lesson 06's `fit`") == 1
    assert "In lessons 06 to 08" in markdown("09")[0]


def test_l07_refers_to_l04_instead_of_reteaching_it():
    text = prose("07")
    assert "Three quarters of 30 is 22.5" not in text
    assert "Lesson 04's rule of thumb, now with a tool for each side" not in text
    assert "Lesson 04 showed that with parts of about equal size" in text
    assert "Lesson 04 said to refuse when the answer will be used as fact" in text


def test_l10_refers_to_l03_and_l06_instead_of_reteaching_them():
    text = prose("10")
    assert "Lesson 03's rule for history" in text and "the orphan of lesson 06" in text
    assert "a retrieval packer that returned nothing because its first result" not in text
    assert "1b" not in text


def test_no_example_of_an_earlier_lesson_is_counted_again_and_seed_is_not_jargon():
    assert "2 + 2 = 4" not in prose("06")
    for number in ("08", "09"):
        assert not re.search(r"\bseed\b", prose(number), re.I), number


# --- questions that gave their answers away ------------------------------------------------

def test_the_widget_questions_do_not_hold_their_answers():
    assert "607" not in cell_with("06", "## 8. Slide it yourself")
    assert "292" not in cell_with("07", "## 8. Slide it yourself")
    assert "412" not in cell_with("08", "## 5. Slide the limit")
    assert "413" not in cell_with("10", "## 9. Slide it yourself")


def test_l09_asks_what_a_person_can_reason_out():
    notebook = nbformat.read(LESSON["09"], as_version=4)
    text = "\n".join(cell.source for cell in notebook.cells)
    assert "round(classic_idf(10, 10), 3)" not in text
    assert "Reason it out from the sign of each IDF" in prose("09")


# --- shorter, with nothing of substance lost -----------------------------------------------

KEPT = {  # every exercise link and every incident or source each lesson cited before the cut
    "06": ["../exercises/06-fit/06-fit.ipynb", "langchain-ai/langchain/issues/33245",
           "KillianLucas/tokentrim/issues/11", "JeremySNR/snug", "anysphere/priompt",
           "microsoft/vscode-prompt-tsx"],
    "07": ["../exercises/07-drop-reasons/07-drop-reasons.ipynb"],
    "08": ["../exercises/08-pack-evidence/08-pack-evidence.ipynb"],
    "09": ["../exercises/09-score-and-pack/09-score-and-pack.ipynb", "dorianbrown/rank_bm25",
           "BM25Similarity.java"],
    "10": ["../exercises/10-assemble-turn/10-assemble-turn.ipynb",
           "vectorize-io/hindsight/issues/3688", "langchain-ai/langchain/issues/33245",
           "how_to/trim_messages.ipynb", "long_context_reorder.py", "arxiv.org/abs/2307.03172",
           "How_to_count_tokens_with_tiktoken.ipynb", "tool-use-pricing-and-tokens"],
}


@pytest.mark.parametrize("number", PART)
def test_every_exercise_link_and_incident_is_kept(number):
    text = "\n".join(markdown(number))
    assert [link for link in KEPT[number] if link not in text] == []
