"""Interactive views for the lessons: slide a budget and watch any packer decide.

Each view is an ``ipywidgets.VBox``, so a bare expression at the end of a cell shows it. A
learner's packer that fails never breaks a view: the view says what went wrong in one line and
recovers as soon as the packer works at the next budget.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

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
from packlab.views import static
from packlab.views.plots import ComparisonPlot, DropCurvePlot, PackingPlot
from packlab.views.static import ids_html


def _budget_slider(total: int, value: int) -> widgets.IntSlider:
    return widgets.IntSlider(
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
        self.image = widgets.Image(value=self.plot.png(), format="png")
        self.summary = widgets.HTML(self._summary())
        super().__init__([self.slider, self.image, self.summary])
        self.slider.observe(self._on_budget, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.budget_view(self))

    def _on_budget(self, change: dict) -> None:
        self.state = self._index.state(self._packer, change["new"])
        self.plot.update(self.state)
        self.image.value = self.plot.png()
        self.summary.value = self._summary()

    def _summary(self) -> str:
        s = self.state
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
        self.slider = widgets.SelectionSlider(
            options=list(self._points),
            value=start.budget,
            description="budget",
            continuous_update=True,
            layout=widgets.Layout(width="95%"),
        )
        self.image = widgets.Image(value=self.plot.png(), format="png")
        self.summary = widgets.HTML(self._summary())
        super().__init__([self.slider, self.image, self.summary])
        self.slider.observe(self._on_budget, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.drop_curve_view(self))

    def _on_budget(self, change: dict) -> None:
        self.state = self._points[change["new"]]
        self.plot.update(self.state)
        self.image.value = self.plot.png()
        self.summary.value = self._summary()

    def _summary(self) -> str:
        p = self.state
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
        self.image = widgets.Image(value=self.plot.png(), format="png")
        self.summary = widgets.HTML(self._summary())
        super().__init__([self.slider, self.image, self.summary])
        self.slider.observe(self._on_budget, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.comparison_view(self))

    def _states(self, budget: int) -> list[PackState]:
        return [self._index.state(p, budget) for p in self._packers]

    def _on_budget(self, change: dict) -> None:
        self.states = self._states(change["new"])
        self.plot.update(self.states)
        self.image.value = self.plot.png()
        self.summary.value = self._summary()

    @property
    def wasted(self) -> dict[str, int]:
        """Tokens of the budget each packer leaves unused at the slider's budget."""
        return {n: s.remaining for n, s in zip(self.names, self.states, strict=True)}

    def _summary(self) -> str:
        rows = []
        for name, s in zip(self.names, self.states, strict=True):
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
