"""The course's `assemble_turn` (packlab.packing.conversation), its classic mistakes, lesson 10's
helpers and its widget, headless."""

from __future__ import annotations

import copy

import pytest
from test_widgets import pixels, whole_figure

from packlab.packing.conversation import (
    MISTAKES,
    RULES,
    RequiredTooBig,
    agent_turns,
    assemble_turn,
    assemble_with,
    edges_first,
    history_units,
    holes,
    orphans,
    required_tokens,
    shared_prefix,
    total_tokens,
    turn_args,
    volatile_first,
)
from packlab.packing.tokens import count_tokens
from packlab.views.conversation import TurnView, turn_state, turn_view

SYS, TOOLS, ASK = {"id": "sys", "tokens": 50}, [{"id": "lookup", "tokens": 30}], {"id": "ask",
                                                                                  "tokens": 20}


def msg(part_id, role, tokens, call=None):
    made = {"id": part_id, "role": role, "tokens": tokens}
    if call:
        made["call_id"] = call
    return made


def chunk(part_id, tokens, score):
    return {"id": part_id, "tokens": tokens, "score": score}


def test_the_task_example():
    history = [msg("user-1", "user", 10), msg("assistant-1", "assistant", 80),
               msg("user-2", "user", 30)]
    evidence = [chunk("doc-a", 20, 0.5), chunk("doc-b", 90, 0.9), chunk("doc-c", 10, 0.7)]
    assert assemble_turn(SYS, TOOLS, history, evidence, ASK, 170) == {
        "order": ["sys", "lookup", "user-2", "doc-a", "doc-c", "ask"],
        "dropped": [{"id": "user-1", "reason": "history-cut"},
                    {"id": "assistant-1", "reason": "history-over-budget"},
                    {"id": "doc-b", "reason": "evidence-too-large"}],
        "used": 160,
    }


def test_the_lesson_lists_drops_in_the_exercises_order():
    """Issue 36: the dropped history oldest first, then the evidence in input order, as
    exercise 10 asks (the walks meet them newest first and best first)."""
    from autograder.checks.reference.conversation import assemble_turn as exercise_10

    history = [msg("user-1", "user", 10), msg("call-1", "assistant", 25, "c1"),
               msg("result-1", "tool", 40, "c1"), msg("user-2", "user", 15)]
    evidence = [chunk("doc-a", 30, 0.2), chunk("doc-b", 30, 0.9), chunk("doc-c", 80, 0.5)]
    ours = assemble_turn(SYS, TOOLS, history, evidence, ASK, 160)
    theirs = exercise_10(SYS, TOOLS, history, evidence, ASK, 160)
    assert [d["id"] for d in ours["dropped"]] == ["user-1", "call-1", "result-1", "doc-a",
                                                  "doc-c"]
    assert ours == theirs


def test_required_parts_that_do_not_fit_raise_naming_the_shortfall():
    with pytest.raises(RequiredTooBig) as caught:
        assemble_turn(SYS, [{"id": "lookup", "tokens": 300}], [], [], ASK, 200)
    assert isinstance(caught.value, ValueError)
    assert caught.value.mentions == ("370", "200", "170")
    assert "370 tokens" in str(caught.value) and "170 tokens short" in str(caught.value)


def test_required_parts_exactly_on_the_budget_send_nothing_else():
    history = [msg("user-1", "user", 10), msg("assistant-1", "assistant", 10)]
    result = assemble_turn(SYS, TOOLS, history, [chunk("doc", 5, 1.0)], ASK, 100)
    assert result["order"] == ["sys", "lookup", "ask"] and result["used"] == 100
    assert [d["reason"] for d in result["dropped"]] == [
        "history-cut", "history-over-budget", "evidence-too-large"]


def test_a_pair_is_one_unit_kept_or_dropped_whole():
    history = [msg("user-1", "user", 10), msg("call-1", "assistant", 40, "c1"),
               msg("result-1", "tool", 30, "c1"), msg("user-2", "user", 20)]
    assert history_units(history) == [[0], [1, 2], [3]]
    assert history_units(history, pairs=False) == [[0], [1], [2], [3]]
    kept = assemble_turn(SYS, TOOLS, history, [], ASK, 200)
    assert kept["order"] == ["sys", "lookup", "user-1", "call-1", "result-1", "user-2", "ask"]
    dropped = assemble_turn(SYS, TOOLS, history, [], ASK, 170)
    assert dropped["order"] == ["sys", "lookup", "user-2", "ask"]
    split = assemble_with(SYS, TOOLS, history, [], ASK, 170, MISTAKES["splits-pairs"])
    assert split["order"] == ["sys", "lookup", "result-1", "user-2", "ask"]


def test_evidence_is_skip_and_continue_by_score_and_placed_edges_first():
    evidence = [chunk("a", 10, 0.3), chunk("b", 10, 0.9), chunk("c", 10, 0.5), chunk("d", 10, 0.7),
                chunk("e", 10, 0.1), chunk("big", 500, 1.0)]
    result = assemble_turn(SYS, TOOLS, [], evidence, ASK, 200)
    assert result["order"] == ["sys", "lookup", "d", "a", "e", "c", "b", "ask"]
    assert result["dropped"] == [{"id": "big", "reason": "evidence-too-large"}]
    assert edges_first([1, 2, 3, 4, 5]) == [2, 4, 5, 3, 1]
    assert edges_first([]) == [] and edges_first([1]) == [1]


def test_evidence_reasons_compare_with_the_room_the_history_left():
    result = assemble_turn(SYS, TOOLS, [msg("user-1", "user", 30)],
                           [chunk("a", 40, 0.9), chunk("b", 30, 0.8), chunk("c", 60, 0.7)],
                           ASK, 170)
    assert result["dropped"] == [{"id": "b", "reason": "evidence-over-budget"},
                                 {"id": "c", "reason": "evidence-too-large"}]


def test_the_arguments_are_left_alone():
    turn = agent_turns()[0]
    before = copy.deepcopy(turn)
    assemble_turn(*turn_args(turn, 500))
    assert turn == before


def test_every_mistake_differs_from_the_course_somewhere():
    turn = agent_turns()[0]
    evidence = [chunk("a", 10, 0.3), chunk("b", 10, 0.9), chunk("c", 10, 0.5)]
    for key, rules in MISTAKES.items():
        differs = any(
            assemble_with(*turn_args(turn, budget), rules=rules)
            != assemble_turn(*turn_args(turn, budget)) for budget in range(279, 900, 7))
        differs = differs or assemble_with(SYS, TOOLS, [], evidence, ASK, 200, rules) != \
            assemble_turn(SYS, TOOLS, [], evidence, ASK, 200)
        assert differs, key
    assert assemble_with(*turn_args(turn, 600), rules=RULES) == assemble_turn(*turn_args(turn, 600))


def test_the_agent_turns_are_counted_by_the_real_tokenizer_and_grow_by_one_exchange():
    first, second = agent_turns()
    assert first["system"]["tokens"] == count_tokens(first["system"]["text"])
    assert required_tokens(first) == 279 and total_tokens(first) == 873
    assert [m["id"] for m in second["history"]] == [
        *(m["id"] for m in first["history"]), "user-4", "assistant-3"]


def test_the_lessons_helpers_find_holes_orphans_and_the_shared_prefix():
    first, second = agent_turns()
    holed = assemble_with(*turn_args(first, 400), rules=MISTAKES["history-with-holes"])
    assert holes(first, holed["order"]) == ["call-1", "result-1"]
    split = assemble_with(*turn_args(first, 400), rules=MISTAKES["splits-pairs"])
    assert orphans(first, split["order"]) == ["result-1"]
    a, b = assemble_turn(*turn_args(first, 1000)), assemble_turn(*turn_args(second, 1000))
    ids, tokens = shared_prefix(first, a["order"], second, b["order"])
    assert ids[-1] == "user-3" and tokens == 452
    va, vb = volatile_first(*turn_args(first, 1000)), volatile_first(*turn_args(second, 1000))
    assert shared_prefix(first, va["order"], second, vb["order"]) == ([], 0)


def test_turn_state_keeps_errors_as_one_line():
    turn = agent_turns()[0]
    assert turn_state(turn, 250).error.startswith("RequiredTooBig: the required parts need 279")
    assert "did not return a dict" in turn_state(turn, 500, lambda *args: None).error


def test_the_view_follows_its_slider():
    view = turn_view()
    assert isinstance(view, TurnView) and view.state.dropped == []
    first_picture = view.image.value
    view.budget.value = 400
    assert view.state.used == 385 and view.state.order[-1] == "user-4"
    assert view.image.value != first_picture
    assert "history-cut" in view.summary.value and "evidence-too-large" in view.summary.value
    view.budget.value = 200
    assert view.state.error and "79 tokens short" in view.summary.value


def test_the_view_takes_a_learners_function():
    def crashes(*args):
        raise KeyError("tokens")

    view = turn_view(assemble=crashes, budget=500)
    assert view.state.error == "KeyError: 'tokens'"
    holed = turn_view(assemble=lambda *a: assemble_with(*a, MISTAKES["history-with-holes"]),
                      budget=400)
    assert "call-1" in [d["id"] for d in holed.state.dropped]


def test_a_redrawn_turn_plot_paints_what_a_new_one_paints():
    """The blocks, numbers and dropped boxes are reused from budget to budget (moved, hidden,
    recoloured) and painted over kept pixels: after any walk, each frame must be, pixel for pixel,
    the frame of a view moved straight there, and what matplotlib draws of the whole figure."""
    turn = agent_turns()[1]
    view = turn_view(turn, budget=900)
    for budget in (200, 400, 1300, 250, 600, 380, 700):  # none twice: a frame kept is not redrawn
        view.budget.value = budget
        straight = turn_view(turn, budget=900)
        straight.budget.value = budget
        assert bytes(view.image.value) == bytes(straight.image.value), budget
        differ = (pixels(view.image.value) != whole_figure(view.plot)).any(axis=-1)
        assert differ.sum() <= 2, budget  # where the budget line crosses the axis (painted over it)
