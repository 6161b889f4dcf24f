"""The view of `packlab.packing.reasons`: what a learner slides and sees in its lesson."""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets

from packlab.packing.curves import even_budgets
from packlab.packing.reasons import (
    REASONS,
    RankedPart,
    included_ids,
    pack_with_reasons,
)
from packlab.views import static
from packlab.views.widgets import DropCurveView, drop_curve_view


def _lost_html(dropped: Sequence[dict], limit: int = 12) -> str:
    if not dropped:
        return "<i>nothing</i>"
    rows = []
    for reason in REASONS:
        ids = [drop["id"] for drop in dropped if drop["reason"] == reason]
        if ids:
            text = ", ".join(html.escape(key) for key in ids[:limit])
            more = f", … and {len(ids) - limit} more" if len(ids) > limit else ""
            rows.append(f"<b>{reason}</b> ({len(ids)}): {text}{more}")
    return "<br>".join(rows)


class DropReasonsView(widgets.VBox):
    """The lesson-04 drop-curve widget, plus the reason for every part lost at the chosen budget."""

    def __init__(self, parts: Sequence[RankedPart], budgets: Sequence[int]):
        self.curve: DropCurveView = drop_curve_view(parts, included_ids, budgets)
        self._reports = {b: pack_with_reasons(parts, b) for b in self.curve.slider.options}
        self.reasons = widgets.HTML()
        super().__init__([self.curve, self.reasons])
        self.curve.slider.observe(self._on_budget, names="value")
        self._show(self.curve.slider.value)

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.drop_reasons_view(self))

    @property
    def report(self) -> dict:
        """`pack_with_reasons` at the slider's budget."""
        return self._reports[self.curve.slider.value]

    def _on_budget(self, change: dict) -> None:
        self._show(change["new"])

    def _show(self, budget: int) -> None:
        self.reasons.value = f"<b>why, at budget {budget}:</b><br>" + _lost_html(
            self._reports[budget]["dropped"]
        )


def drop_reasons_view(
    parts: Sequence[RankedPart], budgets: Sequence[int] | None = None
) -> DropReasonsView:
    """Slide along the drop curve of priority packing and read each lost part's reason."""
    chosen = sorted(set(budgets)) if budgets is not None else even_budgets(parts)
    if not chosen:
        raise ValueError("drop_reasons_view needs at least one budget")
    return DropReasonsView(parts, chosen)
