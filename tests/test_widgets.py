"""Headless tests of packlab's widgets, plots, curves, example data and token counting."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from packlab.packing import curves
from packlab.packing.curves import (
    PartIndex,
    drop_curve,
    drop_table,
    even_budgets,
    fraction_budgets,
    pack_state,
    wasted,
)
from packlab.packing.examples import (
    big_first_parts,
    chat_parts,
    chat_texts,
    docs_corpus,
    random_parts,
)
from packlab.packing.packers import greedy, report, stop_at_first_miss
from packlab.packing.tokens import count_tokens, estimate_tokens
from packlab.views.plots import DropCurvePlot, PackingPlot, png_bytes
from packlab.views.widgets import break_vs_continue, budget_slider, drop_curve_view


def raises(parts, budget):
    raise NotImplementedError


def returns_none(parts, budget):
    greedy(parts, budget)


def returns_dicts(parts, budget):
    return [p for p in parts if p["tokens"] <= budget]


def fails_when_something_is_skipped(parts, budget):
    if sum(p["tokens"] for p in parts) > budget:
        raise KeyError("token")
    return [p["id"] for p in parts]


def loops_forever(parts, budget):
    while True:
        pass


def test_count_tokens_uses_the_real_tokenizer():
    assert count_tokens("2 + 2 = 4") == 7
    assert estimate_tokens("2 + 2 = 4") == 3


def test_chat_parts_are_counted_from_their_texts():
    parts = chat_parts()
    assert [p["id"] for p in parts] == list(chat_texts())
    assert all(p["tokens"] == count_tokens(chat_texts()[p["id"]]) for p in parts)
    assert max(p["tokens"] for p in parts) > 3 * sorted(p["tokens"] for p in parts)[len(parts) // 2]


def test_example_data_is_deterministic_and_well_formed():
    assert docs_corpus() == docs_corpus()
    assert docs_corpus(seed=5) != docs_corpus()
    for parts in (docs_corpus(), random_parts(50), big_first_parts(), chat_parts()):
        ids = [p["id"] for p in parts]
        assert len(set(ids)) == len(ids)
    assert all(20 <= p["tokens"] <= 45 for p in docs_corpus(200))
    assert all(1 <= p["tokens"] <= 200 for p in random_parts(500))


def test_slider_repacks_like_greedy_and_redraws():
    parts = chat_parts()
    view = budget_slider(parts, greedy, budget=500)
    before = view.image.value
    for budget in (0, 88, 300, 601, 250):
        view.slider.value = budget
        expected = report(parts, budget, greedy)
        assert view.state.taken == greedy(parts, budget).taken
        assert list(view.state.skipped) == expected["dropped"]
        assert view.state.used == expected["used"]
        assert view.state.remaining == budget - expected["used"]
        assert f"{view.state.used} of {budget} tokens" in view.summary.value
    assert view.image.value != before
    assert bytes(view.image.value).startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("packer", "words"),
    [
        (raises, "raised NotImplementedError — write its body first"),
        (returns_none, "returned None"),
        (returns_dicts, "not ids"),
    ],
)
def test_a_broken_packer_shows_a_message_not_a_traceback(packer, words):
    view = budget_slider(chat_parts(), packer, budget=300)
    assert words in view.state.error
    assert words in view.summary.value
    view.slider.value = 100
    assert words in view.summary.value


def test_the_view_recovers_when_the_packer_works_again():
    parts = chat_parts()
    view = budget_slider(parts, fails_when_something_is_skipped, budget=100)
    assert "raised KeyError" in view.summary.value
    view.slider.value = view.slider.max
    assert view.state.error is None
    assert view.state.taken == tuple(p["id"] for p in parts)
    assert "⚠" not in view.summary.value


def test_unknown_and_repeated_ids_are_named():
    parts = chat_parts()
    assert "'nope'" in pack_state(parts, lambda p, b: ["nope"], 100).error
    assert "twice" in pack_state(parts, lambda p, b: ["system", "system"], 100).error
    assert "list of ids" in pack_state(parts, lambda p, b: "system", 100).error


def test_a_packer_that_never_returns_is_stopped(monkeypatch):
    monkeypatch.setattr(curves, "TIME_LIMIT", 0.2)
    assert "never end" in pack_state(chat_parts(), loops_forever, 100).error


def test_a_packer_that_mutates_its_list_does_not_change_ours():
    parts = chat_parts()
    state = pack_state(parts, lambda p, b: [p.pop()["id"]], 1000)
    assert state.taken == ("memory-customer",)
    assert len(parts) == len(chat_texts())


def test_drop_curve_is_monotone_and_matches_greedy():
    parts = docs_corpus()
    points = drop_curve(parts, greedy, even_budgets(parts))
    kept = [p.kept for p in points]
    assert kept == sorted(kept)
    assert points[0].budget == 0 and points[-1].budget == sum(p["tokens"] for p in parts)
    for point in points[::9]:
        assert list(point.lost) == report(parts, point.budget, greedy)["dropped"]
        assert point.used == report(parts, point.budget, greedy)["used"]


def test_drop_curve_view_moves_to_the_chosen_budget():
    parts = docs_corpus()
    view = drop_curve_view(parts)
    before = view.image.value
    budget = view.slider.options[20]
    view.slider.value = budget
    assert view.state.budget == budget
    assert list(view.state.lost) == report(parts, budget, greedy)["dropped"]
    assert view.state.lost[0] in view.summary.value
    assert view.image.value != before


def test_drop_curve_view_reports_a_broken_packer():
    view = drop_curve_view(chat_parts(), raises, budgets=[0, 100, 200])
    assert "NotImplementedError" in view.summary.value


def test_break_vs_continue_shows_the_wasted_budget():
    view = break_vs_continue(big_first_parts(), budget=400)
    unused = view.wasted
    assert unused["stop_at_first_miss"] > unused["greedy"]
    assert unused == wasted(big_first_parts(), 400)
    assert f"left unused {unused['stop_at_first_miss']}" in view.summary.value
    before = view.image.value
    view.slider.value = view.slider.max
    assert view.wasted == {"stop_at_first_miss": 0, "greedy": 0}
    assert view.image.value != before


def test_break_vs_continue_takes_any_two_packers():
    view = break_vs_continue(chat_parts(), 300, packers=(raises, greedy))
    assert "NotImplementedError" in view.summary.value
    assert view.states[1].used == report(chat_parts(), 300, greedy)["used"]


def test_fraction_budgets_round_down():
    parts = [{"id": "a", "tokens": 997}]
    assert fraction_budgets(parts) == [747, 498, 249, 99]
    assert fraction_budgets([{"id": "a", "tokens": 100}], [0.29]) == [29]


def test_drop_table_names_what_was_lost():
    parts = docs_corpus()
    table = drop_table(parts, greedy)
    lines = table.splitlines()
    budget = fraction_budgets(parts)[1]
    first_lost = report(parts, budget, greedy)["dropped"][0]
    line = next(x for x in lines if x.startswith(f"budget {budget:>6}"))
    assert f"kept {len(greedy(parts, budget).taken)}/30" in line
    assert first_lost in line and "more)" in line
    assert all(len(x) <= 120 for x in lines)


def test_views_display_as_widgets():
    for view in (budget_slider(chat_parts()), drop_curve_view(chat_parts()), break_vs_continue()):
        bundle = view._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle


def test_stop_at_first_miss_wastes_budget_on_big_first_parts():
    unused = wasted(big_first_parts(), 300, (stop_at_first_miss, greedy))
    assert unused["stop_at_first_miss"] - unused["greedy"] >= 100


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(bytes(png))).convert("RGBA"))


def whole_figure(plot) -> np.ndarray:
    """The plot as matplotlib draws it in one go, every artist painted in order (no kept pixels)."""
    moving = [artist for artist in plot.figure.findobj() if artist.get_animated()]
    for artist in moving:
        artist.set_animated(False)
    try:
        buffer = io.BytesIO()
        plot.figure.canvas.print_png(buffer)
        return pixels(buffer.getvalue())
    finally:
        for artist in moving:
            artist.set_animated(True)


def half_broken(parts, budget):
    if budget % 2:
        raise ValueError("odd budget")
    return greedy(parts, budget)


@pytest.mark.parametrize(
    "parts",
    [chat_parts(), random_parts(60, seed=5), random_parts(1000, seed=1)],
    ids=["labelled", "edged", "1000"],
)
@pytest.mark.parametrize("packer", [greedy, half_broken], ids=["greedy", "half-broken"])
def test_a_redrawn_packing_plot_is_the_picture_matplotlib_draws(parts, packer):
    """Only the moving artists are repainted at each step: the picture must not change at all."""
    index = PartIndex(parts)
    total = index.total
    plot = PackingPlot(parts, index.state(packer, total // 2))
    for budget in (total // 2, 0, 7, total // 3, total, total + 40, 12, total + 40, total // 5 * 2):
        plot.update(index.state(packer, budget))
        assert np.array_equal(pixels(plot.png()), whole_figure(plot)), budget


@pytest.mark.parametrize("packer", [greedy, stop_at_first_miss, half_broken])
def test_a_redrawn_drop_curve_is_the_picture_matplotlib_draws(packer):
    parts = random_parts(300, seed=6)
    curve = drop_curve(parts, packer, even_budgets(parts, 40) + [1])
    plot = DropCurvePlot(parts, curve, curve[20])
    assert np.array_equal(pixels(plot.png()), whole_figure(plot))
    for point in (curve[0], curve[-1], curve[-2], curve[7], curve[20], curve[-1]):
        plot.update(point)
        assert np.array_equal(pixels(plot.png()), whole_figure(plot)), point.budget


def test_png_bytes_are_a_png_of_those_pixels():
    rgba = np.random.default_rng(0).integers(0, 256, size=(7, 5, 4), dtype=np.uint8)
    image = Image.open(io.BytesIO(png_bytes(rgba, dpi=100)))
    assert image.format == "PNG" and image.mode == "RGBA"
    assert np.array_equal(np.asarray(image), rgba)
    assert image.info["Software"].startswith("Matplotlib version")
    assert round(image.info["dpi"][0]) == 100


@pytest.mark.parametrize("n", [101, 150, 240, 1000])
def test_parts_merged_into_runs_paint_the_same_pixels_as_one_box_each(n):
    """Without edges, neighbouring parts are drawn as one box: not a single pixel may change."""
    rng = np.random.default_rng(n)
    tokens = rng.integers(0, 60, size=n) * (rng.random(n) > 0.1)  # some parts of 0 tokens
    parts = [{"id": f"p{i}", "tokens": int(t)} for i, t in enumerate(tokens)]
    index = PartIndex(parts)
    merged = PackingPlot(parts, index.state(greedy, 0))
    one_each = PackingPlot(parts, index.state(greedy, 0))
    assert merged.merge
    one_each.merge = False
    # budgets where the taken and skipped counts cross Agg's snapping limit (204 boxes)
    for budget in sorted({0, 5, index.total // 5, index.total // 2, index.total, *tokens[:3]}):
        state = index.state(greedy, int(budget))
        merged.update(state)
        one_each.update(state)
        assert np.array_equal(pixels(merged.png()), pixels(one_each.png())), budget


# Issue 21: frames kept by budget and drawn ahead while the kernel is idle


def test_a_budget_shown_again_comes_from_memory_and_matches_a_fresh_drawing():
    from packlab.views.widgets import FRAME_LIMIT

    view = budget_slider(chat_parts(), budget=300)
    for budget in (250, 240, 250, 300):
        view.slider.value = budget
    fresh = budget_slider(chat_parts(), budget=250)
    view.slider.value = 250
    assert bytes(view.image.value) == bytes(fresh.image.value)
    assert view.summary.value == fresh.summary.value and view.state == fresh.state
    for budget in range(FRAME_LIMIT + 10):
        view.frames.get(budget % (view.slider.max + 1))
    assert len(view.frames._kept) <= FRAME_LIMIT


def test_frames_are_drawn_ahead_only_in_an_idle_event_loop():
    import asyncio

    from packlab.views.widgets import IDLE_S, Frames, options_ahead, steps_ahead

    drawn = []
    frames = Frames(lambda value: value * 10, lambda state: (drawn.append(state) or b"", ""))
    frames.draw_ahead([1, 2])  # no running loop (a script): nothing is drawn
    assert drawn == []

    async def slide():
        assert frames.get(0)[0] == 0
        frames.draw_ahead([1, 2])
        frames.draw_ahead([2, 3])  # the hand moved on before the kernel was idle: 1 is dropped
        await asyncio.sleep(20 * IDLE_S)

    asyncio.run(slide())
    assert drawn == [0, 20, 30] and 3 in frames and 1 not in frames
    assert frames.get(3)[0] == 30 and drawn == [0, 20, 30]  # from memory, not drawn again
    assert steps_ahead(100, 95, 0, 200) == [90, 85] and steps_ahead(5, 3, 0, 200) == [1]
    assert steps_ahead(7, 7, 0, 9) == []
    assert options_ahead([10, 20, 30, 40], 20, 30) == [40]
    assert options_ahead([10, 20, 30, 40], 30, 20) == [10]


def test_a_press_is_answered_while_a_picture_is_drawn_ahead():
    """A picture drawn ahead is drawn in a background thread: the kernel's loop keeps answering
    (a frame kept comes at once), a press for the picture being drawn waits for it instead of
    drawing it twice, and states (a learner's packer) are computed in the main thread only."""
    import asyncio
    import threading

    from packlab.views.widgets import IDLE_S, Frames

    slow, painted, threads = threading.Event(), [], set()

    def state(value):
        threads.add(threading.current_thread())
        return value

    def picture(value):
        if value == 3:
            assert slow.wait(10)
        painted.append(value)
        return b"png", f"frame {value}"

    frames = Frames(state, picture)

    async def slide():
        frames.get(1)
        frames.draw_ahead([3])
        await asyncio.sleep(3 * IDLE_S)  # 3's picture has started, and is stuck
        assert painted == [1] and frames.get(1)[2] == "frame 1"  # answered from memory
        threading.Timer(IDLE_S, slow.set).start()  # the picture gets done while get waits
        assert frames.get(3)[2] == "frame 3"  # waits for the picture under way
        await asyncio.sleep(3 * IDLE_S)

    asyncio.run(slide())
    assert painted == [1, 3] and threads == {threading.main_thread()}


def test_a_picture_drawn_ahead_hands_the_gil_over_quickly_and_puts_the_interval_back():
    """While the painter thread draws ahead, a key press's threads get the GIL within half a
    millisecond (not Python's 5 ms at each hand-over); afterwards the interval is as it was."""
    import asyncio
    import sys

    from packlab.views.widgets import IDLE_S, PAINTING_SWITCH_S, Frames

    seen = {}

    def picture(value):
        seen[value] = sys.getswitchinterval()
        return b"png", f"frame {value}"

    frames = Frames(lambda value: value, picture)
    before = sys.getswitchinterval()

    async def slide():
        frames.get(1)  # drawn at the press, in the main thread: the interval untouched
        frames.draw_ahead([2])
        await asyncio.sleep(10 * IDLE_S)

    asyncio.run(slide())
    assert 2 in frames
    assert seen == {1: before, 2: PAINTING_SWITCH_S} and before > PAINTING_SWITCH_S
    assert sys.getswitchinterval() == before


def test_a_value_the_page_sets_is_applied_and_not_echoed_back(monkeypatch):
    """Every kind of course slider takes the page's value (the picture follows) without ipywidgets
    8's echo message: one message fewer per key press, ahead of the picture."""
    from packlab.views.compare import pack_beside
    from packlab.views.conversation import turn_view
    from packlab.views.fitview import fit_view
    from packlab.views.relevance import relevance_view

    fits, beside, turn = fit_view(), pack_beside(chat_parts(), greedy), turn_view(budget=400)
    relevance, slider_view, curve = relevance_view(), budget_slider(chat_parts()), drop_curve_view(
        chat_parts())
    for view, slider in [(slider_view, slider_view.slider), (curve, curve.slider),
                         (beside, beside.sliders[0]), (fits, fits.budget), (fits, fits.reserve),
                         (relevance, relevance.slider), (turn, turn.budget)]:
        sent: list[dict] = []
        monkeypatch.setattr(slider, "_send", lambda msg, buffers=None, sent=sent: sent.append(msg))
        trait = "index" if hasattr(slider, "options") else "value"
        new = 0 if trait == "index" else slider.min + (slider.max - slider.min) // 3
        assert getattr(slider, trait) != new
        picture = view.image.value
        slider.set_state({trait: new})
        assert getattr(slider, trait) == new
        assert view.image.value != picture, type(view).__name__
        assert [m for m in sent if m.get("method") == "echo_update"] == [], type(view).__name__
