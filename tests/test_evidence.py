"""packlab.packing.evidence: the evidence packer, the DATA block, the budget, get_doc, the
widget."""

from __future__ import annotations

import copy

import pytest

from autograder.checks.reference.evidence import decisions, pack_evidence
from packlab.packing import evidence as teaching
from packlab.packing.evidence import (
    DOCUMENTS,
    GET_DOC_TOOL,
    SKIPPED,
    TRUNCATED,
    WHOLE,
    by_score,
    data_block,
    evidence_budget,
    example_chunks,
    get_doc,
)
from packlab.packing.tokens import count_tokens
from packlab.views.evidence import evidence_slider, read_packing


def chunk(key, length, score):
    return {"id": key, "text": key[0] * length, "score": score}


def test_whole_cut_and_skip_with_the_walk_going_on():
    chunks = [chunk("menu", 60, 0.1), chunk("faq", 100, 0.9), chunk("runbook", 200, 0.7)]
    assert pack_evidence(chunks, 190) == [
        {"id": "faq", "text": "f" * 100, "truncated": False},
        {"id": "runbook", "text": "r" * 90, "truncated": True},
    ]
    assert pack_evidence(chunks, 170) == [
        {"id": "faq", "text": "f" * 100, "truncated": False},
        {"id": "menu", "text": "m" * 60, "truncated": False},
    ]


def test_min_span_is_inclusive_and_defaults_to_80():
    chunks = [chunk("faq", 120, 0.9), chunk("runbook", 200, 0.8)]
    assert pack_evidence(chunks, 200)[-1] == {"id": "runbook", "text": "r" * 80, "truncated": True}
    assert pack_evidence(chunks, 199) == pack_evidence(chunks, 199, 80) == pack_evidence(
        chunks, 120, 80)


def test_min_span_zero_never_sends_an_empty_text():
    chunks = [chunk("faq", 100, 0.9), chunk("policy", 50, 0.5)]
    assert pack_evidence(chunks, 103, 0)[-1]["text"] == "ppp"
    assert [item["id"] for item in pack_evidence(chunks, 100, 0)] == ["faq"]
    assert pack_evidence(chunks, 0, 0) == []


def test_the_lessons_packer_also_sends_each_score():
    chunks = example_chunks()
    for limit in (0, 100, 430, 720, 760, 5000):
        for span in (0, 1, 80):
            ours = teaching.pack_evidence(chunks, limit, span)
            scores = {chunk["id"]: chunk["score"] for chunk in chunks}
            assert [item.pop("score") for item in ours] == [scores[item["id"]] for item in ours]
            assert ours == pack_evidence(chunks, limit, span)


def test_ties_keep_input_order_and_the_input_is_untouched():
    chunks = [chunk("a", 10, 0.5), chunk("b", 10, 0.5), chunk("c", 10, 0.9)]
    before = copy.deepcopy(chunks)
    assert [item["id"] for item in pack_evidence(chunks, 100)] == ["c", "a", "b"]
    assert [c["id"] for c in by_score(chunks)] == ["c", "a", "b"]
    assert chunks == before


def test_decisions_record_the_room_at_each_turn():
    walk = decisions(example_chunks(), 720)
    assert [d.status for d in walk] == [WHOLE, WHOLE] + [SKIPPED] * 4 + [WHOLE, SKIPPED]
    assert [d.room for d in walk][:3] == [720, 308, 77]
    assert sum(d.kept for d in walk) == 704
    assert decisions(example_chunks(), 760)[2].status == TRUNCATED


def test_example_chunks_come_out_of_score_order():
    chunks = example_chunks()
    assert len(chunks) == 8
    assert chunks != by_score(chunks)
    assert all(DOCUMENTS[c["id"]].startswith(c["text"]) for c in chunks)


def test_data_block_keeps_ids_marks_cuts_and_costs_tokens():
    packed = pack_evidence(example_chunks(), 500)
    block = data_block(packed)
    lines = block.splitlines()
    assert lines[0] == "=== DATA [policy/warranty] ==="
    assert "=== DATA [policy/refunds] (truncated) ===" in lines
    assert lines[-1] == "=== END DATA ==="
    assert count_tokens(block) > sum(count_tokens(item["text"]) for item in packed)
    assert "END DATA" in data_block([])


def test_evidence_budget_is_what_the_window_leaves():
    assert evidence_budget(2048, 97, 1200, 500) == 251
    assert evidence_budget(1000, 300, 900, 100) == 0
    with pytest.raises(ValueError, match="history"):
        evidence_budget(1000, 10, -5, 100)


def test_get_doc_reads_whole_documents_and_names_the_known_ids():
    assert get_doc("policy/warranty") == DOCUMENTS["policy/warranty"]
    assert get_doc("x", {"x": "whole text"}) == "whole text"
    with pytest.raises(KeyError, match="policy/refunds"):
        get_doc("policy/nope")
    assert GET_DOC_TOOL["function"]["name"] == "get_doc"
    assert GET_DOC_TOOL["function"]["parameters"]["required"] == ["id"]


def test_read_packing_describes_any_packer_and_refuses_nonsense():
    chunks = example_chunks()
    assert read_packing(chunks, 760, pack_evidence(chunks, 760)) == decisions(chunks, 760)
    with pytest.raises(ValueError, match="not chunks"):
        read_packing(chunks, 100, [{"id": "nope", "text": "x"}])
    with pytest.raises(ValueError, match="not a list"):
        read_packing(chunks, 100, None)


def test_the_slider_follows_its_controls():
    view = evidence_slider()
    assert (view.count(WHOLE), view.count(TRUNCATED), view.used) == (3, 0, 704)
    view.limit.value = 760
    assert (view.count(TRUNCATED), view.used) == (1, 760)
    view.min_span.value = 0
    view.limit.value = 430
    assert view.packed[-1] == {"id": "policy/refunds", "text": view.packed[-1]["text"],
                               "truncated": True, "score": 0.84}
    assert len(view.packed[-1]["text"]) == 18
    assert "18 of 231" in view.table.value
    assert f"{count_tokens(data_block(view.packed))} tokens" in view.summary.value


def test_the_slider_survives_a_broken_packer():
    def broken(chunks, limit, min_span):
        if limit > 100:
            raise KeyError("score")
        return []

    view = evidence_slider(packer=broken, limit=500)
    assert view.error == "KeyError: 'score'" and "⚠" in view.table.value
    view.limit.value = 50
    assert view.error is None and view.count(SKIPPED) == 8
