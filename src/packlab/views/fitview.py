"""Lesson 06's request and widget: slide the budget and the reserve, watch ``fit`` decide.

`agent_request` is a support agent's next call to the model: a required system prompt, an older
exchange, three retrieved policies, a memory note, the customer's latest (required) message, and
a tool call with its result that must travel together. `fit_view` shows, for any budget and
reserve, what ``fit`` (the course's, or the learner's own) includes and excludes, the tokens used
and remaining, or the error it raises.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Patch

from packlab.packing.examples import chat_texts
from packlab.packing.fitting import fit as course_fit
from packlab.packing.tokens import count_tokens
from packlab.views import sliders, static
from packlab.views.plots import BLUE, GREY, SKIPPED_FACE, VERMILLION, _Plot

FitFunction = Callable[..., dict]

_TOOL_CALL = '{"name": "order_lookup", "arguments": {"order": "LO-48213"}}'
_TURN_1_ASSISTANT = (
    "I'm sorry to hear that. Could you give me your order number and tell me what happened?"
)
_TURN_LATEST = (
    "It's order LO-48213. The main pole snapped on the second night, six weeks after delivery. "
    "Can I get my money back, or only a new pole?"
)


def agent_request() -> list[dict]:
    """The agent's items in conversation order, each with its content and its real token count.

    Priorities: system 100 and the latest message 90 (both required), the order lookup (call and
    result, one pair) 80, warranty 60, refunds 50, the earlier exchange 40, tent care 20,
    memory 10.
    """
    texts = chat_texts()
    rows = [
        ("system", texts["system"], 100, True, None),
        ("memory", texts["memory-customer"], 10, False, None),
        ("chunk-warranty", texts["chunk-warranty"], 60, False, None),
        ("chunk-refunds", texts["chunk-refunds"], 50, False, None),
        ("chunk-tent-care", texts["chunk-tent-care"], 20, False, None),
        ("turn-1-user", texts["turn-previous"], 40, False, None),
        ("turn-1-assistant", _TURN_1_ASSISTANT, 40, False, None),
        ("turn-latest", _TURN_LATEST, 90, True, None),
        ("tool-call", _TOOL_CALL, 80, False, "lookup-1"),
        ("tool-result", texts["tool-order-lookup"], 80, False, "lookup-1"),
    ]
    items = []
    for item_id, content, priority, required, pair_id in rows:
        made = {"id": item_id, "content": content, "tokens": count_tokens(content),
                "priority": priority}
        if required:
            made["required"] = True
        if pair_id:
            made["pair_id"] = pair_id
        items.append(made)
    return items


@dataclass(frozen=True)
class FitState:
    """What a fit function made of one budget and reserve: its result, or why there is none."""

    budget: int
    reserve: int
    included: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    used: float = 0
    remaining: float = 0
    error: str | None = None


def fit_state(items: Sequence[dict], budget: int, reserve: int,
              fit: FitFunction = course_fit) -> FitState:
    """Run ``fit(items, budget, reserve)`` and keep what a view needs; never raises."""
    try:
        result = fit([dict(item) for item in items], budget, reserve)
    except Exception as exc:  # noqa: BLE001 - a learner's fit may raise anything
        text = str(exc)
        return FitState(budget, reserve, error=f"{type(exc).__name__}: {text}" if text
                        else type(exc).__name__)
    keys = ("included", "excluded", "tokens_used", "tokens_remaining")
    if not isinstance(result, dict) or any(key not in result for key in keys):
        return FitState(budget, reserve, error="the fit function did not return a dict with "
                        f"the keys {', '.join(keys)} (it returned {type(result).__name__})")
    return FitState(budget, reserve, list(result["included"]), list(result["excluded"]),
                    result["tokens_used"], result["tokens_remaining"])


class FitPlot(_Plot):
    """One bar per item in input order (included, excluded, required marked); on top, the window:
    used, free and held back for the reply."""

    def __init__(self, items: Sequence[dict], state: FitState):
        super().__init__(static.BOOK_INCHES, 1.2 + 0.32 * (len(items) + 2))
        self.ax = self.axes[0]
        self.items = list(items)
        self.figure.legend(handles=[
            Patch(facecolor=BLUE, label="included"),
            Patch(facecolor=SKIPPED_FACE, label="excluded"),
            Patch(facecolor="white", edgecolor=VERMILLION, linewidth=1.6, label="required"),
            Patch(facecolor="#F2F2F2", edgecolor="#555555", label="free"),
            Patch(facecolor=GREY, hatch="xx", edgecolor="white", label="reserve"),
        ], loc="outside lower center", ncols=5, fontsize=9.5, frameon=False)
        self.update(state)

    def update(self, state: FitState) -> None:
        ax = self.ax
        ax.clear()
        n = len(self.items)
        rows = np.arange(n)[::-1]
        tokens = np.array([item["tokens"] for item in self.items], dtype=float)
        colours = []
        for item in self.items:
            if state.error:
                colours.append("#DDDDDD")
            elif item["id"] in state.included:
                colours.append(BLUE)
            else:
                colours.append(SKIPPED_FACE)
        edges = [VERMILLION if item.get("required") else "white" for item in self.items]
        ax.barh(rows, tokens, color=colours, edgecolor=edges, linewidth=1.6, height=0.7)
        labels = []
        for item in self.items:
            marks = (" [required]" if item.get("required") else "") + (
                f" [{item['pair_id']}]" if item.get("pair_id") else "")
            labels.append(f"{item['id']}{marks}")
        window_row = n + 0.6
        usable = state.budget - state.reserve
        used = 0 if state.error else max(0.0, float(state.used))
        ax.barh([window_row], [min(used, usable)], color=BLUE, height=0.8)
        ax.barh([window_row], [max(usable - used, 0)], left=min(used, usable), color="#F2F2F2",
                edgecolor="#555555", height=0.8)
        ax.barh([window_row], [state.reserve], left=usable, color=GREY, hatch="xx",
                edgecolor="white", height=0.8)
        ax.set_yticks(list(rows) + [window_row], labels + ["the window"], fontsize=9.5)
        ax.set_xlim(0, max(state.budget, tokens.max(initial=1)) * 1.02)
        ax.set_xlabel("tokens")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if state.error:
            title = "fit raised an error: nothing is sent"
        else:
            title = (f"used {number(state.used)} of {usable} (budget {state.budget} − reserve "
                     f"{state.reserve}) · {len(state.included)} included, "
                     f"{len(state.excluded)} excluded")
        ax.set_title(title, fontsize=10, loc="left")


def number(value) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(html.escape(str(i)) for i in ids) or "<i>none</i>"


class FitView(widgets.VBox):
    """Budget and reserve sliders over a request; the picture and a summary follow them."""

    def __init__(self, items: Sequence[dict], fit: FitFunction, budget: int, reserve: int,
                 max_budget: int):
        self.items = list(items)
        self._fit = fit
        self.state = fit_state(self.items, budget, reserve, fit)
        self.plot = FitPlot(self.items, self.state)
        self.budget = sliders.IntSlider(value=budget, min=1, max=max_budget, description="budget",
                                        layout=widgets.Layout(width="95%"))
        self.reserve = sliders.IntSlider(value=reserve, min=0, max=max_budget,
                                         description="reserve",
                                         layout=widgets.Layout(width="95%"))
        self.image = widgets.Image(value=self.plot.png(), format="png")
        self.summary = widgets.HTML(self._summary())
        super().__init__([self.budget, self.reserve, self.image, self.summary])
        self.budget.observe(self._on_change, names="value")
        self.reserve.observe(self._on_change, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.fit_view(self))

    def _on_change(self, change: dict) -> None:
        self.state = fit_state(self.items, self.budget.value, self.reserve.value, self._fit)
        self.plot.update(self.state)
        self.image.value = self.plot.png()
        self.summary.value = self._summary()

    def _summary(self) -> str:
        s = self.state
        if s.error:
            return static.problem_html(s.error)
        return (f"<b>used</b> {number(s.used)} · <b>remaining</b> {number(s.remaining)} of "
                f"budget {s.budget} − reserve {s.reserve}<br>"
                f"<b>included</b> ({len(s.included)}): {_ids(s.included)}<br>"
                f"<b>excluded</b> ({len(s.excluded)}): {_ids(s.excluded)}")


def fit_view(items: Sequence[dict] | None = None, fit: FitFunction = course_fit,
             budget: int = 700, reserve: int = 150) -> FitView:
    """Slide budget and reserve over ``items`` (the agent request by default) and watch ``fit``.

    Items need a ``tokens`` count (the view draws them). Pass your own ``fit`` to compare.
    """
    chosen = agent_request() if items is None else list(items)
    total = int(sum(item["tokens"] for item in chosen))
    return FitView(chosen, fit, budget, reserve, max(total + reserve, budget, 1))
