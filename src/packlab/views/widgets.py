"""Interactive views for the lessons: slide a budget and watch any packer decide.

Each view is an ``ipywidgets.VBox``, so a bare expression at the end of a cell shows it. A
learner's packer that fails never breaks a view: the view says what went wrong in one line and
recovers as soon as the packer works at the next budget.

A slider step answers at the speed of a hand (`Frames`): a budget seen before is shown from
memory, and while the kernel is idle the next budgets in the direction the slider moves are drawn
ahead (their pictures in a background thread), so the next key press usually finds its picture
ready and the kernel free to send it. While a key is held, ipywidgets
itself sends only the latest value once the kernel is free, so the view jumps to where the hand
stopped instead of drawing every step on the way.
"""

from __future__ import annotations

import asyncio
import functools
import html
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import ipywidgets as widgets

from packlab.packing.curves import (
    CurvePoint,
    PackState,
    PartIndex,
    drop_curve,
    even_budgets,
    packer_name,
)
from packlab.packing.examples import big_first_parts
from packlab.packing.packers import Packer, Part, greedy, stop_at_first_miss
from packlab.views import sliders, static
from packlab.views.plots import ComparisonPlot, DropCurvePlot, PackingPlot
from packlab.views.static import ids_html

FRAME_LIMIT = 256  # frames kept per view (a PNG is 30-45 KB: about 10 MB at most)
AHEAD = 2  # frames drawn ahead of the slider, in the direction it last moved
# How long the kernel must stay idle after a step before it draws ahead: while a key is held,
# ipywidgets sends the next value as soon as the kernel is free, sooner than this, and the
# kernel answers it instead of drawing a guess.
IDLE_S = 0.03
# While a picture is drawn ahead, the kernel's other threads (the shell channel's, the main one,
# IOPub's) each wait at most this long for the GIL when a key press comes, instead of Python's
# default 5 ms at every hand-over on the press's way in and its picture's way out.
PAINTING_SWITCH_S = 0.0005


class Frames:
    """A view's frames by slider value: drawn once, shown from memory, and drawn ahead when idle.

    A frame is ``(state, png, summary)``: ``state(value)`` computes what the view shows at
    ``value`` (running the packer, perhaps a learner's: always in the kernel's main thread, under
    the packer's time limit), and ``picture(state)`` draws it (its PNG and summary). Drawing ahead
    (`draw_ahead`) computes each state in the main thread, one per turn of the event loop, and
    draws its picture in a background thread, so a key press that arrives meanwhile is answered
    at once when its frame is ready, instead of waiting for a picture nobody asked for yet. One
    picture is drawn at a time per view (its figure is not shared between threads). Without a
    running event loop (a script, a test) nothing is drawn ahead.
    """

    def __init__(self, state: Callable[[Hashable], Any],
                 picture: Callable[[Any], tuple[bytes, str]], limit: int = FRAME_LIMIT):
        self._state = state
        self._picture = picture
        self._limit = limit
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._ahead: list[Hashable] = []
        self._scheduled: asyncio.TimerHandle | None = None
        self._drawing: tuple[Hashable, Future] | None = None  # the picture drawn ahead, if any
        self._figure = threading.Lock()

    def __contains__(self, value: Hashable) -> bool:
        return value in self._kept

    def get(self, value: Hashable) -> Any:
        """The frame at ``value``: from memory, else drawn now (and kept)."""
        if value in self._kept:
            frame = self._kept.pop(value)
        elif self._drawing is not None and self._drawing[0] == value:
            frame = self._drawing[1].result()  # being drawn ahead: wait for it, not draw it again
        else:
            frame = self._draw(self._state(value))
        self._keep(value, frame)
        return frame

    def _keep(self, value: Hashable, frame: Any) -> None:
        self._kept[value] = frame
        while len(self._kept) > self._limit:
            self._kept.popitem(last=False)

    def _draw(self, state: Any) -> tuple[Any, bytes, str]:
        with self._figure:
            return (state, *self._picture(state))

    def draw_ahead(self, values: Sequence[Hashable]) -> None:
        """Draw ``values`` (those not kept yet) while the kernel has nothing else to do."""
        self._ahead = [value for value in values if value not in self._kept]
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        if not self._ahead:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no kernel loop: draw nothing ahead
            self._ahead = []
            return
        if self._drawing is None:  # else the next starts when that picture is done
            self._scheduled = loop.call_later(IDLE_S, self._draw_next, loop)

    def _draw_next(self, loop: asyncio.AbstractEventLoop) -> None:
        self._scheduled = None
        while self._ahead and self._ahead[0] in self._kept:
            self._ahead.pop(0)
        if not self._ahead:
            return
        value = self._ahead.pop(0)
        try:
            state = self._state(value)
        except Exception:  # noqa: BLE001 - drawing ahead is a guess: a failure shows when chosen
            return
        future = _painter().submit(_yielding, self._draw, state)
        self._drawing = (value, future)
        future.add_done_callback(
            lambda done: loop.call_soon_threadsafe(self._drawn, loop, value, done))

    def _drawn(self, loop: asyncio.AbstractEventLoop, value: Hashable, done: Future) -> None:
        """In the main thread, once a picture drawn ahead is done: keep it, draw the next."""
        if self._drawing is not None and self._drawing[1] is done:
            self._drawing = None
        if done.exception() is None and value not in self._kept:
            self._keep(value, done.result())
        if self._ahead and self._scheduled is None:
            self._scheduled = loop.call_later(IDLE_S, self._draw_next, loop)


def _yielding(draw: Callable[[Any], Any], state: Any) -> Any:
    """``draw(state)`` in the painter thread, handing the GIL to a waiting thread within
    ``PAINTING_SWITCH_S`` (Python's switch interval, put back afterwards)."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, PAINTING_SWITCH_S))
    try:
        return draw(state)
    finally:
        sys.setswitchinterval(previous)


@functools.cache
def _painter() -> ThreadPoolExecutor:
    """The one background thread that draws the pictures of every view ahead of the slider."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="packlab-frames")


def steps_ahead(old: int, new: int, low: int, high: int, count: int = AHEAD) -> list[int]:
    """The next ``count`` values of an int slider that moved from ``old`` to ``new``."""
    step = new - old
    if step == 0:
        return []
    return [v for v in (new + i * step for i in range(1, count + 1)) if low <= v <= high]


def options_ahead(options: Sequence, old, new, count: int = AHEAD) -> list:
    """The next ``count`` options of a selection slider that moved from ``old`` to ``new``."""
    try:
        at, was = options.index(new), options.index(old)
    except ValueError:
        return []
    step = (at > was) - (at < was)
    return [options[i] for i in range(at + step, at + step * (count + 1), step)
            if step and 0 <= i < len(options)]


def _budget_slider(total: int, value: int) -> widgets.IntSlider:
    return sliders.IntSlider(
        value=value,
        min=0,
        max=max(total, value),
        description="budget",
        continuous_update=True,
        layout=widgets.Layout(width="95%"),
        style={"description_width": "initial"},
    )


def _default_budget(total: int, budget: int | None) -> int:
    return total // 2 if budget is None else budget


class BudgetView(widgets.VBox):
    """A budget slider, the packing drawn as bars, and a summary of what was taken and skipped."""

    def __init__(self, parts: Sequence[Part], packer: Packer, budget: int):
        self._index = PartIndex(parts)
        self._packer = packer
        self.state: PackState = self._index.state(packer, budget)
        self.plot = PackingPlot(parts, self.state)
        self.slider = _budget_slider(self._index.total, budget)
        self.frames = Frames(self._state, self._picture)
        self.state, picture, summary = self.frames.get(budget)
        self.image = widgets.Image(value=picture, format="png")
        self.summary = widgets.HTML(summary)
        super().__init__([self.slider, self.image, self.summary])
        self.slider.observe(self._on_budget, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.budget_view(self))

    def _state(self, budget: int) -> PackState:
        return self._index.state(self._packer, budget)

    def _picture(self, state: PackState) -> tuple[bytes, str]:
        self.plot.update(state)
        return self.plot.png(), self._summary(state)

    def _on_budget(self, change: dict) -> None:
        self.state, self.image.value, self.summary.value = self.frames.get(change["new"])
        self.frames.draw_ahead(steps_ahead(change["old"], change["new"], 0, self.slider.max))

    @staticmethod
    def _summary(s: PackState) -> str:
        if s.error:
            return static.problem_html(s.error)
        over = f" — <b>over budget by {-s.remaining}</b>" if s.remaining < 0 else ""
        return (
            f"<b>used</b> {s.used} of {s.budget} tokens · <b>remaining</b> {s.remaining}{over}<br>"
            f"<b>taken</b> ({len(s.taken)}): {ids_html(s.taken)}<br>"
            f"<b>skipped</b> ({len(s.skipped)}): {ids_html(s.skipped)}"
        )


def budget_slider(
    parts: Sequence[Part], packer: Packer = greedy, budget: int | None = None
) -> BudgetView:
    """Slide a budget over ``parts`` and watch ``packer`` (yours or ours) take and skip parts."""
    total = sum(p["tokens"] for p in parts)
    return BudgetView(parts, packer, _default_budget(total, budget))


class DropCurveView(widgets.VBox):
    """Parts kept at every budget, computed once; the slider picks a budget and lists the lost."""

    def __init__(self, parts: Sequence[Part], packer: Packer, budgets: Sequence[int]):
        self.curve = drop_curve(parts, packer, budgets)
        self._points = {point.budget: point for point in self.curve}
        start = self.curve[len(self.curve) // 2]
        self.state: CurvePoint = start
        self.plot = DropCurvePlot(parts, self.curve, start)
        self.slider = sliders.SelectionSlider(
            options=list(self._points),
            value=start.budget,
            description="budget",
            continuous_update=True,
            layout=widgets.Layout(width="95%"),
        )
        self.frames = Frames(self._points.__getitem__, self._picture)
        self.state, picture, summary = self.frames.get(start.budget)
        self.image = widgets.Image(value=picture, format="png")
        self.summary = widgets.HTML(summary)
        super().__init__([self.slider, self.image, self.summary])
        self.slider.observe(self._on_budget, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.drop_curve_view(self))

    def _picture(self, point: CurvePoint) -> tuple[bytes, str]:
        self.plot.update(point)
        return self.plot.png(), self._summary(point)

    def _on_budget(self, change: dict) -> None:
        self.state, self.image.value, self.summary.value = self.frames.get(change["new"])
        self.frames.draw_ahead(options_ahead(self.slider.options, change["old"], change["new"]))

    @staticmethod
    def _summary(p: CurvePoint) -> str:
        if p.error:
            return static.problem_html(f"at budget {p.budget}: {p.error}")
        return f"<b>lost at budget {p.budget}</b> ({len(p.lost)}): {ids_html(p.lost)}"


def drop_curve_view(
    parts: Sequence[Part], packer: Packer = greedy, budgets: Sequence[int] | None = None
) -> DropCurveView:
    """The drop curve of ``packer`` over ``parts`` (100 budgets from 0 to the total by default)."""
    chosen = sorted(set(budgets)) if budgets is not None else even_budgets(parts)
    if not chosen:
        raise ValueError("drop_curve_view needs at least one budget")
    return DropCurveView(parts, packer, chosen)


class ComparisonView(widgets.VBox):
    """Two packers side by side across budgets; the budget one leaves unused is shaded."""

    def __init__(self, parts: Sequence[Part], packers: Sequence[Packer], budget: int):
        self._index = PartIndex(parts)
        self._packers = list(packers)
        self.names = [packer_name(p) for p in packers]
        curves = {
            n: drop_curve(parts, p, even_budgets(parts))
            for n, p in zip(self.names, packers, strict=True)
        }
        self.states = self._states(budget)
        self.plot = ComparisonPlot(parts, curves, self.states)
        self.slider = _budget_slider(self._index.total, budget)
        self.frames = Frames(self._states, self._picture)
        self.states, picture, summary = self.frames.get(budget)
        self.image = widgets.Image(value=picture, format="png")
        self.summary = widgets.HTML(summary)
        super().__init__([self.slider, self.image, self.summary])
        self.slider.observe(self._on_budget, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.comparison_view(self))

    def _states(self, budget: int) -> list[PackState]:
        return [self._index.state(p, budget) for p in self._packers]

    def _picture(self, states: list[PackState]) -> tuple[bytes, str]:
        self.plot.update(states)
        return self.plot.png(), self._summary(states)

    def _on_budget(self, change: dict) -> None:
        self.states, self.image.value, self.summary.value = self.frames.get(change["new"])
        self.frames.draw_ahead(steps_ahead(change["old"], change["new"], 0, self.slider.max))

    @property
    def wasted(self) -> dict[str, int]:
        """Tokens of the budget each packer leaves unused at the slider's budget."""
        return {n: s.remaining for n, s in zip(self.names, self.states, strict=True)}

    def _summary(self, states: Sequence[PackState]) -> str:
        rows = []
        for name, s in zip(self.names, states, strict=True):
            if s.error:
                rows.append(static.problem_html(f"{name}: {s.error}"))
            else:
                rows.append(
                    f"<b>{html.escape(name)}</b>: used {s.used}, left unused {s.remaining}, "
                    f"skipped ({len(s.skipped)}): {ids_html(s.skipped)}"
                )
        return "<br>".join(rows)


def break_vs_continue(
    parts: Sequence[Part] | None = None,
    budget: int | None = None,
    packers: Sequence[Packer] = (stop_at_first_miss, greedy),
) -> ComparisonView:
    """The early-stop bug next to greedy (or any packers) on the same parts and budget."""
    chosen = big_first_parts() if parts is None else parts
    total = sum(p["tokens"] for p in chosen)
    return ComparisonView(chosen, packers, _default_budget(total, budget))
