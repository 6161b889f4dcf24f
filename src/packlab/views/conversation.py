"""The view of `packlab.packing.conversation`: what a learner slides and sees in its lesson."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field

import ipywidgets as widgets
from matplotlib.patches import Patch

from packlab.packing.conversation import (
    KEYS,
    agent_turn,
    assemble_turn,
    kinds,
    parts_by_id,
    total_tokens,
    turn_args,
)
from packlab.views import static
from packlab.views.plots import BLUE, GREY, ORANGE, SKIPPED_FACE, VERMILLION, _Plot

# --- the widget -----------------------------------------------------------------------------------

Assembler = Callable[..., dict]

COLOURS = {"prefix": GREY, "history": BLUE, "evidence": ORANGE, "question": VERMILLION}


@dataclass(frozen=True)
class TurnState:
    """What an assembler made of one budget: the order, the dropped parts, or the error."""

    budget: int
    order: list[str] = field(default_factory=list)
    dropped: list[dict] = field(default_factory=list)
    used: int = 0
    error: str | None = None


def turn_state(turn: dict, budget: int, assemble: Assembler = assemble_turn) -> TurnState:
    """Run ``assemble`` on the turn at ``budget`` and keep what a view needs; never raises."""
    args = [_copy(a) for a in turn_args(turn, budget)]
    try:
        result = assemble(*args)
    except Exception as exc:  # noqa: BLE001 - a learner's function may raise anything
        text = str(exc)
        return TurnState(budget, error=f"{type(exc).__name__}: {text}" if text
                         else type(exc).__name__)
    if not isinstance(result, dict) or any(key not in result for key in KEYS):
        return TurnState(budget, error="the function did not return a dict with the keys "
                         f"{', '.join(KEYS)} (it returned {type(result).__name__})")
    return TurnState(budget, list(result["order"]), list(result["dropped"]), result["used"])


def _copy(value):
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return [dict(item) for item in value]
    return value


class TurnPlot(_Plot):
    """The request as sent, one block per part in send order, coloured by kind; below it, the
    dropped parts."""

    def __init__(self, turn: dict, state: TurnState):
        super().__init__(10.0, 2.9)
        self.ax = self.axes[0]
        self.parts = parts_by_id(turn)
        self.kind = kinds(turn)
        self.total = total_tokens(turn)
        self.figure.legend(handles=[
            Patch(color=COLOURS["prefix"], label="prefix: system + tools"),
            Patch(color=COLOURS["history"], label="history"),
            Patch(color=COLOURS["evidence"], label="evidence"),
            Patch(color=COLOURS["question"], label="question"),
            Patch(facecolor=SKIPPED_FACE, hatch="///", label="dropped (edge: its kind)"),
        ], loc="outside lower center", ncols=5, fontsize=8, frameon=False)
        self.update(state)

    def update(self, state: TurnState) -> None:
        ax = self.ax
        ax.clear()
        ax.set_ylim(-0.7, 2.1)
        ax.set_xlim(0, max(self.total, state.budget, 1) * 1.02)
        ax.set_yticks([1, 0], ["sent, in\nthis order", "dropped"])
        ax.tick_params(axis="y", length=0)
        ax.set_xlabel("tokens")
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.axvline(state.budget, color="black", lw=2, ls="--")
        if state.error:
            ax.set_title(f"nothing is sent: {state.error[:90]}", fontsize=9, loc="left")
            return
        left, labelled = 0, 0
        for part_id in state.order:
            tokens = self.parts.get(part_id, {}).get("tokens", 0)
            colour = COLOURS.get(self.kind.get(part_id, ""), "#DDDDDD")
            ax.barh(1, tokens, left=left, height=0.7, color=colour, edgecolor="white")
            if tokens >= 0.035 * self.total:  # room for a label: stagger them on three levels
                ax.text(left + tokens / 2, 1.38 + 0.22 * (labelled % 3), part_id, ha="center",
                        va="bottom", fontsize=7)
                labelled += 1
            left += tokens
        left = 0
        for entry in state.dropped:
            tokens = self.parts.get(entry.get("id"), {}).get("tokens", 0)
            bar = ax.barh(0, tokens, left=left, height=0.6, color=SKIPPED_FACE,
                          edgecolor=COLOURS.get(self.kind.get(entry.get("id"), ""), GREY))
            bar[0].set_hatch("///")
            left += tokens
        ax.set_title(f"budget {state.budget}: {len(state.order)} parts sent, {state.used} tokens "
                     f"used, {len(state.dropped)} dropped", fontsize=10, loc="left")


class TurnView(widgets.VBox):
    """A budget slider over one agent turn; the blocks and the dropped list follow it."""

    def __init__(self, turn: dict, assemble: Assembler, budget: int, max_budget: int):
        self.turn = turn
        self._assemble = assemble
        self.state = turn_state(turn, budget, assemble)
        self.plot = TurnPlot(turn, self.state)
        self.budget = widgets.IntSlider(value=budget, min=0, max=max_budget, step=10,
                                        description="budget",
                                        layout=widgets.Layout(width="95%"))
        self.image = widgets.Image(value=self.plot.png(), format="png")
        self.summary = widgets.HTML(self._summary())
        super().__init__([self.budget, self.image, self.summary])
        self.budget.observe(self._on_change, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.turn_view(self))

    def _on_change(self, change: dict) -> None:
        self.state = turn_state(self.turn, self.budget.value, self._assemble)
        self.plot.update(self.state)
        self.image.value = self.plot.png()
        self.summary.value = self._summary()

    def _summary(self) -> str:
        s = self.state
        if s.error:
            return ('<div style="color:#8a1c00;background:#fff1e6;padding:4px 8px;'
                    f'border-radius:4px">⚠ {html.escape(s.error)}</div>')
        order = " → ".join(html.escape(str(i)) for i in s.order)
        rows = "".join(f"<li><code>{html.escape(str(d.get('id')))}</code>: "
                       f"{html.escape(str(d.get('reason')))}</li>" for d in s.dropped)
        dropped = f"<ul style='margin:0'>{rows}</ul>" if rows else " <i>nothing</i>"
        return (f"<b>used</b> {s.used} of {s.budget}<br><b>order</b>: {order}<br>"
                f"<b>dropped</b> ({len(s.dropped)}):{dropped}")


def turn_view(turn: dict | None = None, assemble: Assembler = assemble_turn,
              budget: int = 900) -> TurnView:
    """Slide the budget over an agent turn (turn 1 of `agent_turns` by default) and watch
    ``assemble`` (the course's `assemble_turn`, or your own) decide what is sent, in what order,
    and what is dropped and why."""
    chosen = agent_turn() if turn is None else turn
    return TurnView(chosen, assemble, budget, max(total_tokens(chosen) + 100, budget))
