"""packlab.packing.reasons: packing with drop reasons, refusal, the drop-curve artifact and its
view."""

from __future__ import annotations

import json

import pytest

from packlab.packing.curves import fraction_budgets
from packlab.packing.examples import chat_parts, docs_corpus
from packlab.packing.packers import greedy, report
from packlab.packing.reasons import (
    OVER_BUDGET,
    TOO_LARGE,
    PackingRefused,
    artifact_json,
    drop_curve_artifact,
    included_ids,
    pack_or_raise,
    pack_with_reasons,
    priority_order,
)
from packlab.views.reasons import drop_reasons_view


def ranked(*rows):
    return [{"id": key, "tokens": tokens, "priority": priority} for key, tokens, priority in rows]


def support_request():
    priority = {"system": 100, "turn-latest": 90, "tool-order-lookup": 80, "chunk-warranty": 70,
                "chunk-refunds": 60, "turn-previous": 40, "chunk-shipping": 30,
                "chunk-tent-care": 20, "memory-customer": 10}
    return [{**part, "priority": priority[part["id"]]} for part in chat_parts()]


def test_reasons_are_judged_against_the_whole_budget():
    parts = ranked(("sys", 60, 9), ("doc", 80, 5), ("big", 101, 1))
    assert pack_with_reasons(parts, 100) == {
        "included": ["sys"],
        "dropped": [{"id": "doc", "reason": OVER_BUDGET}, {"id": "big", "reason": TOO_LARGE}],
        "used": 60,
    }
    assert pack_with_reasons(parts[1:2], 100)["included"] == ["doc"]  # same budget, no neighbour


def test_a_part_exactly_the_budget_is_not_too_large():
    assert pack_with_reasons(ranked(("doc", 100, 1)), 100)["included"] == ["doc"]
    behind = pack_with_reasons(ranked(("sys", 1, 9), ("doc", 100, 1)), 100)
    assert behind["dropped"] == [{"id": "doc", "reason": OVER_BUDGET}]


def test_priority_decides_who_goes_first_and_ties_keep_input_order():
    parts = ranked(("b", 40, 5), ("low", 40, 1), ("c", 40, 5), ("a", 40, 5), ("top", 40, 9))
    assert priority_order(parts) == [4, 0, 2, 3, 1]
    assert pack_with_reasons(parts, 120)["included"] == ["b", "c", "top"]


def test_zero_budget_and_empty_list():
    parts = ranked(("note", 0, 1), ("sys", 5, 9))
    assert pack_with_reasons(parts, 0) == {
        "included": ["note"], "dropped": [{"id": "sys", "reason": TOO_LARGE}], "used": 0}


def test_an_empty_list_gives_the_empty_report_as_exercise_07_asks():
    """Issue 36: the lesson's function behaves as the exercise's spec says."""
    from autograder.checks.reference.reasons import pack_with_reasons as exercise_07

    empty = {"included": [], "dropped": [], "used": 0}
    assert pack_with_reasons([], 10) == empty == exercise_07([], 10)
    assert pack_or_raise([], 0) == empty


def test_equal_priorities_pack_like_lesson_04():
    parts = [{**part, "priority": 0} for part in docs_corpus(30)]
    for budget in (0, 100, 478, 957):
        ours = pack_with_reasons(parts, budget)
        expected = report(parts, budget, greedy)
        assert ours["included"] == expected["included"]
        assert [drop["id"] for drop in ours["dropped"]] == expected["dropped"]
        assert ours["used"] == expected["used"]


def test_the_input_is_left_alone():
    parts = ranked(("memo", 40, 1), ("doc", 90, 5), ("sys", 30, 9))
    before = [dict(part) for part in parts]
    pack_with_reasons(parts, 80)
    assert parts == before


def test_pack_or_raise_refuses_naming_every_drop():
    parts = ranked(("sys", 60, 9), ("doc", 80, 5), ("big", 101, 1))
    with pytest.raises(PackingRefused) as caught:
        pack_or_raise(parts, 100)
    message = str(caught.value)
    assert "2 of 3 parts" in message and "budget of 100" in message
    assert "doc (80 tokens, over-budget)" in message
    assert "big (101 tokens, single-chunk-too-large)" in message
    assert caught.value.report == pack_with_reasons(parts, 100)
    assert isinstance(caught.value, ValueError)


def test_pack_or_raise_returns_the_report_when_nothing_is_dropped():
    parts = ranked(("sys", 60, 9), ("doc", 40, 5))
    assert pack_or_raise(parts, 100) == pack_with_reasons(parts, 100)


def test_drop_curve_artifact_lists_the_lost_and_why():
    parts = support_request()
    artifact = drop_curve_artifact(parts, (0.75, 0.5, 0.25, 0.10), policy="my rule")
    assert artifact["policy"] == "my rule"
    assert (artifact["parts"], artifact["total_tokens"]) == (9, 601)
    points = artifact["curve"]
    assert [p["budget"] for p in points] == fraction_budgets(parts) == [450, 300, 150, 60]
    for point in points:
        result = pack_with_reasons(parts, point["budget"])
        assert point["lost"] == result["dropped"]
        assert (point["kept"], point["used"]) == (len(result["included"]), result["used"])
    warranty = [next(d["reason"] for d in p["lost"] if d["id"] == "chunk-warranty")
                for p in points[1:]]
    assert warranty == [OVER_BUDGET, TOO_LARGE, TOO_LARGE]
    assert "chunk-warranty" not in [d["id"] for d in points[0]["lost"]]


def test_artifact_json_round_trips_with_one_line_per_lost_part():
    artifact = drop_curve_artifact(support_request())
    text = artifact_json(artifact)
    assert json.loads(text) == artifact
    assert '{"id": "chunk-warranty", "reason": "single-chunk-too-large"}' in text


def test_the_view_follows_the_slider_and_names_reasons():
    parts = support_request()
    view = drop_reasons_view(parts)
    assert view.curve.slider.options == tuple(sorted(view.curve.slider.options))
    for budget in (291, 297, 0, 601):
        view.curve.slider.value = budget
        assert view.report == pack_with_reasons(parts, budget)
        assert view.curve.state.budget == budget
        assert list(view.curve.state.lost) == [d["id"] for d in view.report["dropped"]]
        assert f"at budget {budget}" in view.reasons.value
    view.curve.slider.value = 291
    assert "single-chunk-too-large</b> (1): chunk-warranty" in view.reasons.value
    view.curve.slider.value = 297
    assert TOO_LARGE not in view.reasons.value and "chunk-warranty" in view.reasons.value
    view.curve.slider.value = 601
    assert "<i>nothing</i>" in view.reasons.value


def test_the_view_takes_chosen_budgets_and_refuses_none():
    view = drop_reasons_view(support_request(), budgets=[300, 100, 300])
    assert view.curve.slider.options == (100, 300)
    with pytest.raises(ValueError):
        drop_reasons_view(support_request(), budgets=[])


def test_included_ids_is_a_plain_packer():
    parts = support_request()
    assert included_ids(parts, 400) == pack_with_reasons(parts, 400)["included"]
