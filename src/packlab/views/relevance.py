"""The view of `packlab.packing.relevance`: what a learner slides and sees in its lesson."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import ipywidgets as widgets
from matplotlib.patches import Patch

from packlab.packing.relevance import (
    ItemScore,
    incident_items,
    ranking,
    score_and_pack,
    score_items,
)
from packlab.views import sliders, static
from packlab.views.plots import BLUE, GREY, ORANGE, VERMILLION, new_figure, projector_texts

# --- the lesson's view: type a query, slide a budget ----------------------------------------

SIGNALS = (("bm25", BLUE), ("recency", GREY), ("error", VERMILLION), ("priority", ORANGE))
Scorer = Callable[[Sequence[dict], str, int], dict]


class ScorePlot:
    """One stacked horizontal bar per item (its signals), oldest at the top; packed ones marked."""

    def __init__(self, scores: Sequence[ItemScore], packed: set[str] | None):
        self.figure = new_figure(static.BOOK_INCHES, 0.42 * max(len(scores), 1) + 1.3)
        self.ax = self.figure.subplots()
        self.draw(scores, packed)

    def draw(self, scores: Sequence[ItemScore], packed: set[str] | None) -> None:
        ax = self.ax
        ax.clear()
        rows = list(range(len(scores)))
        rank = {s.id: r for r, s in enumerate(ranking(scores), start=1)}
        right = max([s.bm25 + s.recency + s.error + max(s.priority, 0) for s in scores] + [1.0])
        for row, s in zip(rows, scores, strict=True):
            taken = packed is None or s.id in packed
            start_pos, start_neg = 0.0, 0.0
            for name, colour in SIGNALS:
                value = getattr(s, name)
                if value >= 0:
                    left, start_pos = start_pos, start_pos + value
                else:
                    start_neg += value
                    left = start_neg
                ax.barh(row, abs(value), left=left, height=0.7, color=colour,
                        alpha=1.0 if taken else 0.3, edgecolor="white", linewidth=0.5)
            status = "packed" if taken else "deferred"
            if packed is None:
                status = ""
            label = f"#{rank[s.id]}  {s.tokens} tok  {status}"
            ax.text(right * 1.02, row, label, va="center", fontsize=9.5,
                    color="black" if taken else "#777777")
        ax.set_yticks(rows, [("★ " if s.pinned else "") + s.id for s in scores], fontsize=9.5)
        ax.set_ylim(len(scores) - 0.5, -0.5)
        ax.set_xlim(min([0.0] + [s.priority for s in scores]), right * 1.35)
        ax.set_xlabel("score (★ = pinned: packed first, whatever its score)")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.legend(handles=[Patch(color=c, label=n) for n, c in SIGNALS], loc="lower right",
                  fontsize=9.5, ncols=4, frameon=False, bbox_to_anchor=(1.0, 1.0))

    def png(self) -> bytes:
        import io

        projector_texts(self.figure)
        buffer = io.BytesIO()
        self.figure.canvas.print_png(buffer)
        return buffer.getvalue()

    def _repr_png_(self) -> bytes:
        return self.png()


class RelevanceView(widgets.VBox):
    """A query box and a budget slider over items; bars show each item's signals."""

    def __init__(self, items: Sequence[dict], query: str, budget: int, scorer: Scorer):
        self.items = [dict(item) for item in items]
        self._scorer = scorer
        total = sum(item["tokens"] for item in self.items)
        self.query = widgets.Text(value=query, description="query",
                                  layout=widgets.Layout(width="95%"),
                                  continuous_update=False)
        self.slider = sliders.IntSlider(value=budget, min=0, max=max(total, budget),
                                        description="budget", continuous_update=True,
                                        layout=widgets.Layout(width="95%"))
        self._compute()
        self.plot = ScorePlot(self.scores, self._packed())
        self.image = widgets.Image(value=self.plot.png(), format="png")
        self.summary = widgets.HTML(self._summary())
        super().__init__([self.query, self.slider, self.image, self.summary])
        self.query.observe(self._on_change, names="value")
        self.slider.observe(self._on_change, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.relevance_view(self))

    def _compute(self) -> None:
        self.scores = score_items(self.items, self.query.value)
        self.error: str | None = None
        self.result: dict | None = None
        try:
            result = self._scorer(self.items, self.query.value, self.slider.value)
            if not isinstance(result, dict) or not isinstance(result.get("included"), list):
                raise TypeError(f"expected a dict with an 'included' list, got {result!r:.80}")
            self.result = result
        except Exception as exc:  # noqa: BLE001 - a learner's scorer may raise anything
            self.error = f"{type(exc).__name__}: {exc}"

    def _packed(self) -> set[str] | None:
        return None if self.result is None else set(self.result["included"])

    def _on_change(self, change: dict) -> None:
        self._compute()
        self.plot.draw(self.scores, self._packed())
        self.image.value = self.plot.png()
        self.summary.value = self._summary()

    def _summary(self) -> str:
        if self.error:
            return static.problem_html(self.error)
        r = self.result
        ids = ", ".join(html.escape(str(key)) for key in r["included"]) or "<i>none</i>"
        return (f"<b>packed</b> (in chronological order): {ids}<br>"
                f"<b>tokens used</b> {r.get('tokens_used')} of {self.slider.value} · "
                f"<b>tokens before</b> {r.get('tokens_before')} · "
                f"<b>deferred</b> {r.get('deferred_count')}")


def relevance_view(items: Sequence[dict] | None = None, query: str = "why did the deploy fail",
                   budget: int | None = None, scorer: Scorer = score_and_pack) -> RelevanceView:
    """Type a query, slide the budget: each item's signals as bars, and what ``scorer`` packs.

    The bars always come from the course's scoring; the packed marks come from ``scorer``, which
    can be your own ``score_and_pack``.
    """
    chosen = incident_items() if items is None else list(items)
    total = sum(item["tokens"] for item in chosen)
    return RelevanceView(chosen, query, total // 2 if budget is None else budget, scorer)
