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
from packlab.course.predictions import questions

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
LESSON = {lesson.slug[:2]: lesson.path for lesson in COURSE.lessons}
PART = [key for key in sorted(LESSON) if "06" <= key <= "10"]
QUIZZES = tomllib.loads(Path(quiz.__file__).with_name(quiz.QUIZZES).read_text(encoding="utf-8"))


def markdown(number: str) -> list[str]:
    """The lesson's markdown cells, as written, then the explanations its predict questions open
    after a prediction (predictions.toml)."""
    notebook = nbformat.read(LESSON[number], as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "markdown"] + [
        notes(key) for key in questions() if key.startswith(number)]


def notes(question_id: str) -> str:
    """What a predict question says once the learner has committed: the explanation, and each
    part's prompt and why."""
    question = questions()[question_id]
    return "\n\n".join([question.explain] + [f"{a.prompt} {a.why}" for a in question.asks])


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


# --- issue 29: every fact recomputed, no answer before its question, one place per idea -------

def code_of(number: str, needle: str) -> str:
    (found,) = [cell.source for cell in nbformat.read(LESSON[number], as_version=4).cells
                if cell.cell_type == "code" and needle in cell.source]
    return found


def run_cells(number: str, *needles: str) -> dict:
    """Run the lesson's import cell and the code cells holding ``needles``, magics left out."""
    names: dict = {}
    for needle in ("from packlab", *needles):
        source = "\n".join(line for line in code_of(number, needle).splitlines()
                           if not line.startswith("%"))
        exec(compile(source, f"lesson {number}", "exec"), names)  # noqa: S102 - our own lesson
    return names


def numbers(text: str) -> set[int]:
    """The whole numbers written in ``text`` ("1,024" is one; "0.75" and "l08" hold none)."""
    found = re.findall(r"(?<![\w.])\d+(?:,\d{3})*(?!\w|\.\d)", text)
    return {int(n.replace(",", "")) for n in found}


def before(number: str, needle: str) -> str:
    """Every cell of the lesson (markdown and code) above the first markdown cell holding needle."""
    cells = nbformat.read(LESSON[number], as_version=4).cells
    stop = next(i for i, cell in enumerate(cells)
                if cell.cell_type == "markdown" and needle in cell.source)
    return " ".join(" ".join(cell.source.split()) for cell in cells[:stop])


def l07_request() -> list[dict]:
    return run_cells("07", "prompt_order = [")["request"]


def reachable(value: int, slider) -> bool:
    return slider.min <= value <= slider.max and (value - slider.min) % slider.step == 0


def test_l07_predict_states_its_rule_only_in_the_answer():
    """The lead of section 3 said the part can be over-budget in one request and included in
    another: the answer to the predict that followed it. Now only the Why says it, and the three
    calls really give over-budget, over-budget, included."""
    from packlab.packing.reasons import pack_with_reasons

    lead = cell_with("07", "one part, three requests")
    for answer in ("included in another", "room left", "**whole** budget"):
        assert answer not in lead, answer
    assert "is `over-budget` in one request and included in another" in cell_with(
        "07", "A packer that compared with what is")
    by_id = {part["id"]: part for part in l07_request()}
    warranty = by_id["chunk-warranty"]
    calls = [list(by_id.values()), [by_id["system"], warranty], [warranty]]
    reports = [pack_with_reasons(parts, 300) for parts in calls]
    reasons = [{d["id"]: d["reason"] for d in report["dropped"]}.get("chunk-warranty")
               for report in reports]
    assert reasons == ["over-budget", "over-budget", None]
    assert "chunk-warranty" in reports[2]["included"]


def test_l07_slider_notes_name_budgets_the_slider_shows_and_are_true():
    """The slider once moved in steps of about 6, so the exact budget the question asks for was
    not on it (issue 36): the lesson's view now stops at every budget, and every budget the notes
    name is one of its options and says what is there."""
    from packlab.packing.reasons import pack_with_reasons
    from packlab.views.reasons import drop_reasons_view

    request = l07_request()
    assert "drop_reasons_view(request, budgets=range(sum(part[\"tokens\"] for part in request)" \
        " + 1))" in "\n".join(c.source for c in nbformat.read(LESSON["07"], 4).cells)
    options = set(drop_reasons_view(request, budgets=range(
        sum(part["tokens"] for part in request) + 1)).curve.slider.options)
    notes = questions()["07-slide-it-yourself"].explain
    sizes = {part["tokens"] for part in request} | {145}  # token counts, not slider budgets
    named = numbers(notes) - sizes - {1, 2, 3}  # 1. and 2. number the notes; section 3
    assert named == {291, 436, 437}
    assert named | {292, 58, 59} <= options, sorted(named - options)

    def reason(part_id: str, budget: int) -> str | None:
        report = pack_with_reasons(request, budget)
        return {d["id"]: d["reason"] for d in report["dropped"]}.get(part_id)

    assert [reason("chunk-warranty", b) for b in (291, 292, 436, 437)] == [
        "single-chunk-too-large", "over-budget", "over-budget", None]
    assert (reason("system", 58), reason("system", 59)) == ("single-chunk-too-large", None)
    never_over = [part["id"] for part in request if all(
        reason(part["id"], budget) != "over-budget" for budget in range(602))]
    assert never_over == ["system"]


def test_l07_points_back_to_lesson_02_for_fewer_parts_at_a_bigger_budget():
    """"More budget can keep fewer parts" is taught in lesson 02: L07 points back to it once and
    no longer asks for it (its answer, 4 kept at 450 and 7 at 300, was printed above the
    question)."""
    text = prose("07")
    assert "That the smaller budget keeps more parts is lesson 02's point" in text
    for taught_again in ("4 of 9", "7 of 9", "keeps *fewer* parts", "only four are kept"):
        assert taught_again not in text, taught_again
    assert "fewer" not in cell_with("07", "## 8. Slide it yourself")


def test_l07_uniform_curve_is_a_pointer_to_lesson_04_with_four_rows():
    from packlab.packing.examples import docs_corpus
    from packlab.packing.reasons import drop_curve_artifact

    rank = {"reference": 3, "guides": 2, "notes": 1, "units": 0}
    docs = [{**doc, "priority": rank[doc["id"].split("/")[0]]} for doc in docs_corpus(30)]
    curve = drop_curve_artifact(docs)["curve"]
    assert len(curve) == 4 and [point["kept"] for point in curve] == [22, 14, 7, 3]
    assert "Kept: 30" not in prose("07")
    assert "the counts are lesson 04's arithmetic again" in prose("07")
    assert "30 course notes of 20 to 45 tokens" not in prose("07")


def test_sort_stability_is_taught_in_l06_and_pointed_back_to_after():
    assert "Python's `sorted` is *stable*" in prose("06")
    for number in ("07", "08"):
        text = prose(number)
        assert "`sorted(..., reverse=True)` is stable" not in text, number
        assert "esson 06's stable sort" in text, number


def test_the_larkspur_bot_is_lesson_01s():
    assert "Larkspur Outdoor" in " ".join(markdown("01"))
    assert "support bot from lesson 01" in cell_with("06", "## 1. An agent's request")
    assert "request from lesson 01" in cell_with("07", "## 1. The support bot's request")
    assert "(lessons 01 and 06)" in cell_with("10", "## 1. One turn")


def test_l08_assumes_only_what_it_uses():
    """L08 assumed lesson 07's drop reasons and never used one."""
    first = markdown("08")[0]
    assert "lessons 02–06" in first and "reasons" not in first
    for reason in ("over-budget", "single-chunk-too-large"):
        assert reason not in prose("08")


def test_l08_states_the_at_least_1_cut_condition_of_exercise_08():
    from packlab.packing.evidence import pack_evidence

    assert "(80 here) and at least 1;" in cell_with("08", "## 3. Whole, cut or skipped")
    assert "(and at least 1)" in cell_with("08", "## Your turn: exercise 08")
    chunks = [{"id": "a", "text": "a" * 100, "score": 0.9}, {"id": "b", "text": "b" * 50,
                                                            "score": 0.5}]
    assert [item["id"] for item in pack_evidence(chunks, 100, min_span=0)] == ["a"]


def test_l08_slider_question_is_answered_only_in_its_notes():
    """Q2 asked for a limit where a chunk is skipped and a smaller one goes in: the walk printed at
    720 in section 3. It now asks for the limit where that skip turns into a cut, found nowhere
    above the notes, and the notes' 723 is recomputed."""
    from packlab.packing.evidence import decisions, example_chunks
    from packlab.views.evidence import evidence_slider

    chunks = example_chunks()
    cut = next(limit for limit in range(721, 2000) if any(
        step.id == "guide/spare-poles" and step.status == "truncated"
        for step in decisions(chunks, limit, 80)))
    status = {limit: {step.id: step.status for step in decisions(chunks, limit, 80)}
              for limit in (720, cut)}
    assert cut == 723 and status[720]["guide/spare-poles"] == "skipped"
    assert status[720]["store/opening-hours"] == "whole"
    assert status[cut]["store/opening-hours"] == "skipped"
    notes = questions()["08-slide-the-limit"].explain
    assert "- 723: 80 characters are left" in notes
    assert "723" not in before("08", "## 6.")
    assert "skipped** and a smaller, lower-scored one" not in prose("08")
    slider = evidence_slider(chunks, limit=720, min_span=80).children[0]
    assert reachable(723, slider)


def test_l09_says_what_is_true_of_the_two_idfs_below_half():
    """The forms never agree in value: below half the items both are positive, and Lucene's is
    always ln(1 + e^classic), the larger."""
    import math

    from packlab.packing.relevance import classic_idf, lucene_idf

    for n in range(1, 5):  # fewer than half of N = 10
        classic, lucene = classic_idf(10, n), lucene_idf(10, n)
        assert 0 < classic < lucene and math.isclose(lucene, math.log1p(math.exp(classic)))
    text = cell_with("09", "[rank_bm25](")
    assert "where the forms agree" not in text
    assert "both IDFs are positive, yet never equal" in text


def test_l10_cache_example_is_below_openais_minimum():
    from packlab.packing.conversation import agent_turns, assemble_turn, turn_args

    _, next_turn = agent_turns()
    sent = assemble_turn(*turn_args(next_turn, 1000))["used"]
    assert sent == 906 < 1024
    assert "at 906 tokens the request is below OpenAI's 1,024" in prose("10")


def test_l10_slider_notes_name_budgets_the_slider_shows_and_are_true():
    """The slider moved in steps of 10, so the exact budgets at which things change were not on
    it (issue 36): it now stops at every budget, and the notes name the exact ones, true; Q3 no
    longer asks about 600 and 800, the two budgets section 6 had already printed."""
    from packlab.packing.conversation import agent_turns, assemble_turn, turn_args
    from packlab.views.conversation import turn_view

    slider = turn_view(budget=400).budget
    notes = questions()["10-slide-it-yourself"].explain
    named = {n for n in numbers(notes) if n >= 100}
    assert named == {279, 297, 413, 412, 328, 337, 368, 385, 292, 758}
    assert all(reachable(n, slider) for n in named)
    question = cell_with("10", "## 9. Slide it yourself")
    assert "800" not in question

    turn, _ = agent_turns()
    sent = {b: assemble_turn(*turn_args(turn, b))["order"] for b in range(279, 900)}
    assert "call-1" not in sent[412] and {"call-1", "result-1"} <= set(sent[413])
    assert "chunk-refunds" in sent[412] and "chunk-refunds" not in sent[413]
    tent = [b for b in range(279, 471) if "chunk-tent-care" in sent[b]]
    starts = [b for b in tent if b - 1 not in tent]
    assert starts == [328, 368] and 337 not in tent and "assistant-2" in sent[337]
    assert "chunk-refunds" in sent[385] and "user-3" in sent[297] and "user-3" not in sent[296]
    assert "chunk-warranty" not in sent[757] and "chunk-warranty" in sent[758]
    history = [[i for i in sent[b] if i.startswith(("user", "assistant", "call", "result"))]
               for b in range(279, 480)]
    assert all(len(a) <= len(b) for a, b in zip(history, history[1:], strict=False))


def test_exercise_tasks_state_the_rules_their_suites_grade():
    """Exercise 07's hidden edge cases grade the empty list, and exercise 06's the pair_id in a
    required group's error: both tasks now say so, in the solution and in its release."""
    from autograder.checks.recorded import Reference

    assert Reference("reasons.pack_with_reasons")([], 100) == {"included": [], "dropped": [],
                                                               "used": 0}
    root = LESSON["07"].parent.parent
    for folder in ("solutions", "exercises"):
        task_07 = nbformat.read(root / folder / "07-drop-reasons" / "07-drop-reasons.ipynb", 4)
        assert '`{"included": [], "dropped": [], "used": 0}`' in task_07.cells[1].source, folder
        task_06 = nbformat.read(root / folder / "06-fit" / "06-fit.ipynb", 4)
        assert "names it (a group by its `pair_id`)" in "\n".join(
            cell.source for cell in task_06.cells if cell.cell_type == "markdown"), folder
        task_08 = nbformat.read(root / folder / "08-pack-evidence" / "08-pack-evidence.ipynb", 4)
        assert "**at least `min_span`** and at least 1" in task_08.cells[1].source, folder
    assert '`{"included": [], "dropped": [], "used": 0}`' in cell_with("07", "## Your turn")


def test_l06_and_l09_slider_notes_name_budgets_their_sliders_show_and_are_true():
    """The other two widgets move in steps of 1: their notes' budgets are reachable and hold."""
    from packlab.packing.fitting import fit
    from packlab.packing.relevance import incident_items, score_and_pack
    from packlab.views.fitview import agent_request, fit_view
    from packlab.views.relevance import relevance_view

    request = agent_request()
    view = fit_view(request, budget=700, reserve=150)
    assert "At reserve 607" in questions()["06-slide-it-yourself"].explain
    assert reachable(607, view.reserve) and reachable(400, view.budget)
    fit(request, budget=700, reserve=606)
    with pytest.raises(ValueError, match="turn-latest"):
        fit(request, budget=700, reserve=607)

    items, query = incident_items(), "why did the deploy fail"
    slider = relevance_view(items, query, budget=150).slider
    assert "At 60 both pinned items fit" in questions()["09-type-and-slide"].explain
    assert reachable(60, slider) and reachable(59, slider)
    assert {"system", "chat-latest"} <= set(score_and_pack(items, query, 60)["included"])
    assert "chat-latest" not in score_and_pack(items, query, 59)["included"]
