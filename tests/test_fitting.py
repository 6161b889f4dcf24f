"""The course's `fit` (packlab.packing.fitting), its classic mistakes, and lesson 06's widget,
headless."""

from __future__ import annotations

import math
import warnings

import nbformat
import pytest

from autograder.checks.reference.fitting import fit as reference_fit
from packlab.manifest import ROOT
from packlab.packing.fitting import (
    MISTAKES,
    RULES,
    FitError,
    InvalidInput,
    RequiredDoesNotFit,
    fit,
    fit_with,
    outcome,
)
from packlab.packing.tokens import count_tokens
from packlab.views.fitview import FitView, agent_request, fit_state, fit_view


def item(item_id, tokens, priority=0, **extra):
    return {"id": item_id, "tokens": tokens, "priority": priority, **extra}


def test_greedy_by_priority_and_listed_in_input_order():
    items = [item("history", 30, 10), item("system", 40, 100), item("chunk-a", 25, 50),
             item("chunk-b", 25, 50), item("latest", 20, 90)]
    assert fit(items, 100) == {"included": ["system", "chunk-a", "latest"],
                               "excluded": ["history", "chunk-b"],
                               "tokens_used": 85, "tokens_remaining": 15}


def test_skip_and_continue_exact_fit_and_zero_tokens():
    items = [item("sys", 40, 100), item("big", 100, 80), item("note", 30, 50),
             item("flag", 0, 1), item("memo", 30, 10)]
    assert fit(items, 100)["included"] == ["sys", "note", "flag", "memo"]
    assert fit(items, 100)["tokens_remaining"] == 0


def test_reserve_is_held_back_once():
    items = [item("sys", 50, 100), item("doc", 40, 50), item("note", 30, 10)]
    assert fit(items, 130, 40) == {"included": ["sys", "doc"], "excluded": ["note"],
                                   "tokens_used": 90, "tokens_remaining": 0}
    assert fit([], 100, 10)["tokens_remaining"] == 90


def test_required_is_not_promoted_and_the_error_names_the_shortfall():
    items = [item("guide", 70, 60), item("policy", 50, 20, required=True)]
    with pytest.raises(RequiredDoesNotFit) as caught:
        fit(items, 110, 10)
    message = str(caught.value)
    for words in ("'policy'", "needs 50", "only 30", "20 short", "budget 110", "reserve 10"):
        assert words in message
    assert isinstance(caught.value, ValueError)
    assert caught.value.mentions == ("policy", "50", "30", "20", "110", "10")


def test_a_required_item_that_fits_at_its_turn_is_included():
    items = [item("guide", 40, 60), item("policy", 50, 20, required=True)]
    assert fit(items, 100)["included"] == ["guide", "policy"]


def test_pairs_go_in_whole_at_their_first_members_turn():
    items = [item("sys", 60, 100), item("call", 20, 80, pair_id="p"),
             item("result", 50, 80, pair_id="p"), item("note", 10, 10)]
    assert fit(items, 100)["included"] == ["sys", "note"]
    assert fit(items, 130)["included"] == ["sys", "call", "result"]
    spread = [item("call", 30, 50, pair_id="x"), item("doc", 40, 50), item("note", 10, 50),
              item("result", 30, 50, pair_id="x")]
    assert fit(spread, 70)["included"] == ["call", "note", "result"]


def test_a_required_pair_that_does_not_fit_names_the_group():
    items = [item("system", 200, 100, required=True),
             item("call", 30, 90, required=True, pair_id="turn-7"),
             item("result", 400, 90, required=True, pair_id="turn-7")]
    with pytest.raises(RequiredDoesNotFit, match="pair group 'turn-7'") as caught:
        fit(items, 600, 100)
    assert caught.value.mentions == ("turn-7", "430", "300", "130", "600", "100")


@pytest.mark.parametrize("items,budget,reserve,culprit", [
    ([item("doc", 10), item("doc", 20)], 100, 0, "doc"),
    ([item("doc", math.nan)], 100, 0, "doc"),
    ([item("doc", -1)], 100, 0, "doc"),
    ([item("doc", math.inf)], 100, 0, "doc"),
    ([item("doc", "many")], 100, 0, "doc"),
    ([item("doc", True)], 100, 0, "doc"),
    ([item("doc", 5, math.inf)], 100, 0, "doc"),
    ([item("doc", 5, "high")], 100, 0, "doc"),
    ([{"id": "doc", "content": 42}], 100, 0, "doc"),
    ([item("a", 5, 80, pair_id="p"), item("b", 5, 40, pair_id="p")], 100, 0, "p"),
    ([item("a", 5, 80, pair_id="p", required=True), item("b", 5, 80, pair_id="p")], 100, 0,
     "p"),
    ([], 0, 0, "budget"),
    ([], math.nan, 0, "budget"),
    ([], True, 0, "budget"),
    ([], 100, -1, "reserve"),
    ([], 100, 100, "reserve"),
    ([], 100, math.inf, "reserve"),
])
def test_input_that_cannot_be_trusted_is_refused_by_name(items, budget, reserve, culprit):
    with pytest.raises(InvalidInput) as caught:
        fit(items, budget, reserve)
    assert isinstance(caught.value, ValueError)
    assert caught.value.mentions == (culprit,)
    assert culprit in str(caught.value)


@pytest.mark.parametrize("bad", [lambda text: math.nan, lambda text: -1,
                                 lambda text: math.inf, lambda text: "many"])
def test_a_tokenizer_returning_nonsense_is_refused(bad):
    with pytest.raises(InvalidInput, match="'doc'"):
        fit([{"id": "doc", "content": "some text"}], 100, 0, bad)


def test_counting_tokens_then_tokenizer_then_estimate_with_one_warning():
    items = [{"id": "given", "tokens": 4, "content": "far more than four words are here"},
             {"id": "counted", "content": "2 + 2 = 4"}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit(items, 100, 0, count_tokens)["tokens_used"] == 4 + 7
    estimated = [{"id": "a", "content": "2 + 2 = 4"}, {"id": "b", "content": "thirteen char"}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert reference_fit(estimated, 100)["tokens_used"] == 3 + 4
    assert len(caught) == 1 and caught[0].category is UserWarning
    assert "'a', 'b'" in str(caught[0].message)


def test_the_lessons_fit_estimates_without_the_warning_exercise_06_grades():
    estimated = [{"id": "a", "content": "2 + 2 = 4"}, {"id": "b", "content": "thirteen char"}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit(estimated, 100)["tokens_used"] == 3 + 4


def test_lesson_06_quotes_the_warning_the_exercise_asks_for():
    notes = [{"id": "order", "content": "LO-48213 arrived 02/04"},
             {"id": "greeting", "content": "Hello there!"}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reference_fit(notes, budget=100)
    lesson = nbformat.read(ROOT / "lessons" / "06-fit-priority-required-pairs.ipynb", 4)
    quoted = next(cell.source for cell in lesson.cells if "```text\nfit: no tokenizer" in
                  cell.source).split("```text\n")[1].split("\n```")[0]
    assert " ".join(quoted.split()) == str(caught[0].message)


def test_fit_leaves_the_items_alone():
    items = [item("b", 10, 1), item("a", 20, 9, pair_id="p"), item("c", 5, 9, pair_id="p")]
    before = [dict(i) for i in items]
    fit(items, 30)
    assert items == before


def test_every_mistake_differs_from_fit_somewhere():
    """Each classic mistake is a real mistake: on the agent request or a small case it differs."""
    request = agent_request()
    cases = [(request, 700, 150), (request, 250, 100),
             ([item("a", 50, 20), item("b", 50, 20), item("c", 50, 20)], 120, 0),
             ([item("guide", 70, 60), item("policy", 50, 20, required=True)], 110, 10),
             ([item("sys", 40), item("big", 100), item("note", 30)], 100, 0),
             ([item("sys", 10, 1), item("latest", 10, 9)], 100, 0)]
    for name, rules in MISTAKES.items():
        assert rules != RULES
        assert any(not _same(outcome(*case), outcome(*case, rules=rules)) for case in cases), name


def _same(a, b) -> bool:
    if isinstance(a, FitError) or isinstance(b, FitError):
        return type(a) is type(b) and str(a) == str(b)
    return a == b


def test_fit_with_default_rules_is_fit():
    request = agent_request()
    assert fit_with(request, 700, 150) == fit(request, 700, 150)


def test_agent_request_is_counted_by_the_real_tokenizer():
    request = agent_request()
    assert all(i["tokens"] == count_tokens(i["content"]) for i in request)
    assert [i["id"] for i in request if i.get("required")] == ["system", "turn-latest"]
    assert [i["id"] for i in request if i.get("pair_id")] == ["tool-call", "tool-result"]


def test_fit_state_keeps_errors_as_one_line():
    request = agent_request()
    state = fit_state(request, 200, 150)
    assert state.error.startswith("RequiredDoesNotFit: required item 'system'")

    def broken(items, budget, reserve):
        return None

    assert "did not return a dict" in fit_state(request, 700, 150, broken).error


def test_the_view_follows_its_sliders():
    view = fit_view()
    assert isinstance(view, FitView)
    assert view.state.remaining == 3 and view.state.excluded == ["memory", "chunk-tent-care"]
    first_picture = view.image.value
    view.reserve.value = 0
    assert view.state.excluded == [] and view.state.remaining == 90
    assert view.image.value != first_picture
    assert "remaining</b> 90" in view.summary.value
    view.reserve.value = 607
    assert view.state.error and "turn-latest" in view.state.error
    assert "turn-latest" in view.summary.value and "1 short" in view.summary.value
    view.budget.value = 800
    assert view.state.error is None


def test_the_view_takes_a_learners_fit():
    def everything(items, budget, reserve=0, tokenizer=None):
        ids = [i["id"] for i in items]
        return {"included": ids, "excluded": [], "tokens_used": 0, "tokens_remaining": 0}

    view = fit_view(fit=everything)
    assert view.state.included == [i["id"] for i in agent_request()]

    def crashes(items, budget, reserve=0, tokenizer=None):
        raise KeyError("tokens")

    view = fit_view(fit=crashes)
    assert view.state.error == "KeyError: 'tokens'"
