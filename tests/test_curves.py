"""The one-pass drop curves of the course's own packers give exactly what calling them gives."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.checks.reference.packers import greedy as reference_greedy
from packlab.packing import curves
from packlab.packing.curves import CurvePoint, PartIndex, drop_curve, even_budgets
from packlab.packing.examples import big_first_parts, chat_parts, docs_corpus, random_parts
from packlab.packing.packers import (
    first_miss_runs,
    greedy,
    greedy_runs,
    ids_of,
    report,
    stop_at_first_miss,
)

OURS = (greedy, stop_at_first_miss)
RUNS = {greedy: greedy_runs, stop_at_first_miss: first_miss_runs}
# Each packer as a plain loop: the lessons' greedy is built on greedy_runs itself, so the loop it
# must agree with is the course's reference (autograder.checks.reference, the instructor's install).
LOOPS = {greedy: reference_greedy, stop_at_first_miss: stop_at_first_miss}


def called(packer):
    """The same packer behind a new function, so drop_curve calls and checks it at every budget."""

    def learner_copy(parts, budget):
        return packer(parts, budget)

    return learner_copy


def per_budget(parts, packer, budgets) -> list[CurvePoint]:
    """The reference: the packer's loop called at each budget, its answer checked, one point
    each."""
    return drop_curve(parts, called(LOOPS[packer]), budgets)


def as_parts(tokens: Sequence[int]) -> list[dict]:
    return [{"id": f"p{i}", "tokens": t} for i, t in enumerate(tokens)]


# Tokens with many zeros and a mix of small and large parts, so that runs, skips and blocks of
# parts too big for the room left (the finder works in blocks of 32) all happen.
token = st.one_of(st.just(0), st.integers(0, 5), st.integers(0, 60), st.sampled_from([200, 1000]))
token_lists = st.lists(token, max_size=120)


@st.composite
def parts_and_budgets(draw):
    tokens = draw(token_lists)
    total = sum(tokens)
    budget = st.one_of(
        st.integers(-3, total + 3),
        st.sampled_from([0, total, total + 1, 10**30, -1]),
    )
    budgets = draw(st.lists(budget, max_size=12))
    if budgets and draw(st.booleans()):
        budgets.append(draw(st.sampled_from(budgets)))  # a duplicate budget
    return as_parts(tokens), budgets


@pytest.mark.parametrize("packer", OURS, ids=lambda p: p.__name__)
@settings(deadline=None, max_examples=150)
@given(example=parts_and_budgets())
def test_one_pass_curve_equals_calling_the_packer(packer, example):
    parts, budgets = example
    assert drop_curve(parts, packer, budgets) == per_budget(parts, packer, budgets)


@pytest.mark.parametrize("packer", OURS, ids=lambda p: p.__name__)
@settings(deadline=None, max_examples=300)
@given(tokens=st.lists(token, max_size=300), budgets=st.lists(st.integers(-2, 3000), max_size=8))
def test_runs_are_exactly_the_packers_choice(packer, tokens, budgets):
    parts = as_parts(tokens)
    for budget, runs in zip(budgets, RUNS[packer](tokens, budgets), strict=True):
        kept = tuple(f"p{i}" for start, stop in runs for i in range(start, stop))
        assert kept == tuple(ids_of(LOOPS[packer](parts, budget)))
        assert all(start < stop for start, stop in runs)
        assert all(a[1] < b[0] for a, b in zip(runs, runs[1:], strict=False))  # separate runs


@pytest.mark.parametrize("packer", OURS, ids=lambda p: p.__name__)
@pytest.mark.parametrize(
    "parts",
    [
        random_parts(3000, seed=4),
        docs_corpus(),
        chat_parts(),
        big_first_parts(),
        [],
        as_parts([0] * 50),
        as_parts([500, 0] * 300),  # a zero-token part after every part that does not fit
        as_parts([1000] * 100 + [1]),  # the only part that fits after the first miss is last
    ],
    ids=["random-3000", "docs", "chat", "big-first", "no-parts", "all-zero", "big-zero", "tail"],
)
def test_one_pass_curve_equals_calling_the_packer_on_course_data(packer, parts):
    total = sum(p["tokens"] for p in parts)
    budgets = [*even_budgets(parts, 100), -5, 0, 0, total, total + 1, 7, 7, 10**30]
    assert drop_curve(parts, packer, budgets) == per_budget(parts, packer, budgets)


def test_our_packers_are_not_called_for_a_curve(monkeypatch):
    """The one-pass path really is taken for our packers, and only for them."""
    calls = []
    real_run = PartIndex.run

    def counted(self, packer, budget):
        calls.append(budget)
        return real_run(self, packer, budget)

    monkeypatch.setattr(PartIndex, "run", counted)
    parts = random_parts(200, seed=1)
    budgets = even_budgets(parts, 20)
    drop_curve(parts, greedy, budgets)
    drop_curve(parts, stop_at_first_miss, budgets)
    assert calls == []
    drop_curve(parts, called(greedy), budgets)
    assert calls == budgets


@pytest.mark.parametrize("packer", OURS, ids=lambda p: p.__name__)
@pytest.mark.parametrize(
    "parts",
    [
        [{"id": "a", "tokens": 5}, {"id": "a", "tokens": 3}],  # a repeated id: an error to show
        [{"id": "a", "tokens": -4}, {"id": "b", "tokens": 6}],  # negative tokens
        [{"id": "a", "tokens": 2.5}, {"id": "b", "tokens": 1}],  # not whole tokens
        [{"id": "a", "tokens": True}, {"id": "b", "tokens": 1}],  # a bool is not a count
        [{"id": 1, "tokens": 2}, {"id": 2, "tokens": 3}],  # ids that are not strings
        [{"id": ("a", 1), "tokens": 2}, {"id": ("b", 2), "tokens": 3}],
    ],
    ids=["repeated-id", "negative", "float", "bool", "int-ids", "tuple-ids"],
)
def test_unusual_parts_are_left_to_the_packer(packer, parts):
    budgets = [-1, 0, 1, 2, 3, 5, 8, 100]
    expected = per_budget(parts, packer, budgets)
    assert drop_curve(parts, packer, budgets) == expected
    if parts[0]["id"] == parts[1]["id"]:  # both kept from budget 8 on: the packer's answer fails
        twice = [p.error is not None and "twice" in p.error for p in expected]
        assert twice == [False] * 6 + [True] * 2


@pytest.mark.parametrize("packer", OURS, ids=lambda p: p.__name__)
def test_budgets_that_are_not_ints_are_left_to_the_packer(packer):
    parts = random_parts(40, seed=3)
    budgets = [0, 150.5, np.int64(300), 300, True, 2.0, 10**20, 150]
    points = drop_curve(parts, packer, budgets)
    assert points == per_budget(parts, packer, budgets)
    assert [type(p.budget) for p in points] == [type(b) for b in budgets]


def test_a_learners_packer_is_still_checked_at_every_budget():
    def twice(parts, budget):
        return [parts[0]["id"], parts[0]["id"]] if budget > 10 else []

    points = drop_curve(chat_parts(), twice, [0, 5, 20])
    assert [p.error is None for p in points] == [True, True, False]
    assert "twice" in points[2].error


def test_the_curve_still_matches_report_for_every_budget():
    parts = random_parts(500, seed=9)
    budgets = even_budgets(parts, 50)
    for point in drop_curve(parts, greedy, budgets):
        expected = report(parts, point.budget, greedy)
        assert list(point.lost) == expected["dropped"]
        assert point.used == expected["used"]
        assert point.kept == len(expected["included"])
        assert point.error is None


def test_time_limit_still_applies_to_other_packers(monkeypatch):
    monkeypatch.setattr(curves, "TIME_LIMIT", 0.2)

    def loops(parts, budget):
        while True:
            pass

    (point,) = drop_curve(chat_parts(), loops, [100])
    assert "never end" in point.error
