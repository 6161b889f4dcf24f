"""packlab.packing.relevance: BM25 checked against an independent implementation (rank_bm25), the
signals, the packing rules of exercise 09, and the lesson's view driven headless."""

from __future__ import annotations

import math
import random

import pytest

from packlab.packing.relevance import (
    ERROR_WORDS,
    bm25_scores,
    classic_idf,
    has_error_signal,
    incident_items,
    lucene_idf,
    ranking,
    score_and_pack,
    score_items,
    score_table,
    words,
)
from packlab.packing.tokens import count_tokens
from packlab.views.relevance import relevance_view

rank_bm25 = pytest.importorskip("rank_bm25")

# Every word is in at most 3 of the 8 documents: fewer than half, so the classic IDF stays positive
# and rank_bm25's epsilon floor never applies.
CORPUS = [
    "deploy failed during the migration step",
    "cache warmed quickly after the restart",
    "migration 0042 adds an index to orders",
    "health check returned 503 twice during deploy",
    "tax rules change for EU orders in release 4.2",
    "payment retries move to a queue",
    "rollback plan: redeploy the previous image",
    "deploy deploy deploy waves and health checks explained at length in this runbook text",
]
QUERIES = ["deploy", "migration", "orders", "health", "deploy migration", "queue retries 503",
           "index orders tax", "rollback image previous"]


def reference_for(corpus: list[str]) -> rank_bm25.BM25Okapi:
    return rank_bm25.BM25Okapi([words(text) for text in corpus], k1=1.5, b=0.75)


def test_words_lowercases_and_splits_on_everything_but_letters_and_digits():
    assert words("Deploy-failed: ROLLBACK.") == ["deploy", "failed", "rollback"]
    assert words("0042_add_index, 02:14") == ["0042", "add", "index", "02", "14"]
    assert words("") == [] and words("?!") == []


def test_no_term_of_the_test_corpus_is_in_half_the_documents():
    docs = [set(words(text)) for text in CORPUS]
    for term in set().union(*docs):
        assert sum(term in doc for doc in docs) < len(docs) / 2


def test_idf_matches_rank_bm25_through_the_exact_relation_between_the_two_forms():
    """Lucene's IDF is ln(1 + e^classic): check ours against rank_bm25's own IDF table."""
    bm = reference_for(CORPUS)
    for term, their_idf in bm.idf.items():
        containing = sum(term in words(text) for text in CORPUS)
        assert their_idf == pytest.approx(classic_idf(len(CORPUS), containing))
        assert lucene_idf(len(CORPUS), containing) == pytest.approx(math.log1p(math.exp(their_idf)))


@pytest.mark.parametrize("query", QUERIES)
def test_bm25_equals_rank_bm25_with_lucene_idf_swapped_in(query):
    """rank_bm25 computes the tf and length parts; only the IDF factor differs, word by word."""
    bm = reference_for(CORPUS)
    expected = [0.0] * len(CORPUS)
    for term in dict.fromkeys(words(query)):
        if term not in bm.idf:
            continue
        containing = sum(term in words(text) for text in CORPUS)
        per_doc = bm.get_scores([term])
        for i, score in enumerate(per_doc):
            expected[i] += score / bm.idf[term] * lucene_idf(len(CORPUS), containing)
    assert bm25_scores(CORPUS, query) == pytest.approx(expected)


@pytest.mark.parametrize("query", ["deploy", "migration", "orders", "health", "index", "503"])
def test_single_word_rankings_agree_with_rank_bm25(query):
    """For one word both IDFs are positive constants here, so the rankings must be identical."""
    ours = bm25_scores(CORPUS, query)
    theirs = reference_for(CORPUS).get_scores(words(query))
    order = sorted(range(len(CORPUS)), key=lambda i: (-ours[i], i))
    assert order == sorted(range(len(CORPUS)), key=lambda i: (-theirs[i], i))


def test_classic_form_matches_rank_bm25_exactly_where_no_floor_applies():
    bm = reference_for(CORPUS)
    for query in QUERIES:
        assert bm25_scores(CORPUS, query, idf=classic_idf) == pytest.approx(
            bm.get_scores(list(dict.fromkeys(words(query)))))


def test_where_the_forms_differ_lucene_stays_positive_and_rank_bm25_floors():
    corpus = ["deploy deploy deploy", "deploy notes for the tax rules", "deploy cache warmed"]
    assert classic_idf(3, 3) < 0 < lucene_idf(3, 3)
    ours = bm25_scores(corpus, "deploy")
    assert all(score > 0 for score in ours) and ours[0] == max(ours)
    assert all(score < 0 for score in bm25_scores(corpus, "deploy", idf=classic_idf))
    bm = reference_for(corpus)
    assert bm.idf["deploy"] > 0  # rank_bm25 replaced the negative IDF by its epsilon floor
    assert bm.idf["deploy"] != pytest.approx(lucene_idf(3, 3))


def test_lucene_idf_is_never_negative():
    for n_docs in range(1, 30):
        for containing in range(0, n_docs + 1):
            assert lucene_idf(n_docs, containing) > 0


def test_a_repeated_query_word_counts_once_and_unknown_words_score_zero():
    assert bm25_scores(CORPUS, "deploy deploy") == bm25_scores(CORPUS, "deploy")
    assert bm25_scores(CORPUS, "zebra") == [0.0] * len(CORPUS)
    assert bm25_scores([], "deploy") == []
    assert bm25_scores(["", ""], "deploy") == [0.0, 0.0]


def test_signals():
    items = [
        {"id": "a", "text": "Traceback (most recent call last)", "tokens": 5},
        {"id": "b", "text": "the build failed", "tokens": 5, "priority": 2},
        {"id": "c", "text": "REGRESSION in checkout", "tokens": 5, "pinned": True},
        {"id": "d", "text": "all good", "tokens": 5},
    ]
    scores = score_items(items, "")
    assert [s.recency for s in scores] == pytest.approx([0.025, 0.05, 0.075, 0.1])
    assert [s.error for s in scores] == [1.0, 0.0, 1.0, 0.0]  # "failed" is not "fail"
    assert [s.priority for s in scores] == [0, 2, 0, 0]
    assert [s.pinned for s in scores] == [False, False, True, False]
    assert [s.id for s in ranking(scores)] == ["c", "b", "a", "d"]
    assert all(has_error_signal(word.upper() + ":") for word in ERROR_WORDS)


def test_equal_scores_go_older_first_here_as_in_the_exercise():
    """Issue 36: the lesson's ranking breaks an exact tie as exercise 09 asks."""
    from autograder.checks.reference.relevance import ranking as exercise_ranking
    from autograder.checks.reference.relevance import score_and_pack as exercise_09

    tie = [{"id": "older", "text": "release notes", "tokens": 10, "priority": 0.05},
           {"id": "newer", "text": "release notes", "tokens": 10}]
    scores = score_items(tie, "deploy")
    assert scores[0].total == scores[1].total  # recency 0.05 + priority 0.05 against 0.1
    assert [s.id for s in ranking(scores)] == ["older", "newer"]
    assert [s.id for s in exercise_ranking(scores)] == ["older", "newer"]
    assert score_and_pack(tie, "deploy", 10)["included"] == ["older"]
    assert exercise_09(tie, "deploy", 10)["included"] == ["older"]


def test_pinned_first_chronological_output_and_accounting():
    items = [
        {"id": "sys", "text": "Be brief.", "tokens": 40, "pinned": True},
        {"id": "log", "text": "ERROR deploy failed", "tokens": 20},
        {"id": "ask", "text": "why did the deploy fail", "tokens": 10, "pinned": True},
        {"id": "note", "text": "deploy notes", "tokens": 15},
    ]
    assert score_and_pack(items, "why did the deploy fail", 35) == {
        "included": ["log", "ask"], "tokens_used": 30, "tokens_before": 85, "deferred_count": 2}
    assert score_and_pack(items, "deploy", 85)["included"] == ["sys", "log", "ask", "note"]
    assert score_and_pack([], "deploy", 10) == {
        "included": [], "tokens_used": 0, "tokens_before": 0, "deferred_count": 0}


def test_score_and_pack_is_deterministic_and_leaves_items_alone():
    chooser = random.Random(9)
    vocab = ["deploy", "ERROR", "cache", "the", "migration", "fail", "queue"]
    for _ in range(50):
        items = [{"id": f"i{k}", "text": " ".join(chooser.choices(vocab, k=chooser.randint(0, 6))),
                  "tokens": chooser.randint(0, 40), "pinned": chooser.random() < 0.2}
                 for k in range(chooser.randint(0, 8))]
        snapshot = [dict(item) for item in items]
        budget = chooser.randint(0, 150)
        first = score_and_pack(items, "deploy fail", budget)
        assert first == score_and_pack(items, "deploy fail", budget)
        assert items == snapshot
        assert first["tokens_used"] <= budget


def test_incident_items_are_counted_with_the_real_tokenizer():
    items = incident_items()
    assert all(item["tokens"] == count_tokens(item["text"]) for item in items)
    assert len({item["id"] for item in items}) == len(items)
    assert "pinned" in score_table(items, "why did the deploy fail", 150)


def test_view_follows_query_and_budget():
    items = incident_items()
    view = relevance_view(items, "why did the deploy fail", budget=150)
    assert view.result == score_and_pack(items, "why did the deploy fail", 150)
    before = view.image.value
    view.slider.value = 60
    assert view.result["included"] == ["system", "chat-latest"]
    view.query.value = "openssl upgrade"
    assert view.scores == score_items(items, "openssl upgrade")
    assert view.result == score_and_pack(items, "openssl upgrade", 60)
    assert view.image.value != before
    assert "deferred" in view.summary.value


def test_view_reports_a_broken_scorer_and_recovers():
    def sometimes_broken(items, query, budget):
        if budget < 50:
            raise KeyError("tokens")
        return score_and_pack(items, query, budget)

    view = relevance_view(incident_items(), budget=100, scorer=sometimes_broken)
    view.slider.value = 10
    assert view.result is None and "KeyError" in view.summary.value
    view.slider.value = 120
    assert view.error is None and "packed" in view.summary.value
