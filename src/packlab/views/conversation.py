"""The view of `packlab.packing.conversation`: what a learner slides and sees in its lesson."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
from matplotlib.patches import Patch, Rectangle

from packlab.packing.conversation import (
    KEYS,
    agent_turn,
    assemble_turn,
    kinds,
    parts_by_id,
    total_tokens,
    turn_args,
)
from packlab.views import sliders, static
from packlab.views.plots import BLUE, GREY, ORANGE, SKIPPED_FACE, VERMILLION, _Plot
from packlab.views.widgets import Frames, steps_ahead

# --- the widget -----------------------------------------------------------------------------------

Assembler = Callable[..., dict]

COLOURS = {"prefix": GREY, "history": BLUE, "evidence": ORANGE, "question": VERMILLION}
FONT = 10  # points: 10 pt in the book too, where the figure is shown at its width in inches
NUMBER_ROWS = (1.4, 1.65)  # heights of the rows of block numbers above the blocks sent


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
    """The request as sent, one numbered block per part in send order, coloured by kind; below
    it, the dropped parts. The numbers are the order the summary lists the parts in."""

    def __init__(self, turn: dict, state: TurnState):
        super().__init__(static.BOOK_INCHES, 3.3, once=True)
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
        ], loc="outside lower center", ncols=3, fontsize=FONT, frameon=False, borderaxespad=0.2,
            columnspacing=1.2, handlelength=1.5)
        ax = self.ax
        ax.set_ylim(-0.6, 2.0)
        ax.set_yticks([1, 0], ["sent, in\nthis order", "dropped"], fontsize=FONT)
        ax.tick_params(axis="y", length=0)
        ax.tick_params(axis="x", labelsize=FONT)
        ax.set_xlabel("tokens", fontsize=FONT)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        # Drawn once and reused at every budget (moved, recoloured, shown or hidden): adding and
        # removing artists at each step cost more than painting them.
        self.line = ax.axvline(0, color="black", lw=2, ls="--")
        self.blocks: list[Rectangle] = []
        self.numbers: list = []
        self.dropped: list[Rectangle] = []
        self.update(state)

    def update(self, state: TurnState) -> None:
        """Draw the budget's blocks; the axes, ticks and legend stay as they are (and as pixels
        kept from the first drawing, while the x range does not change)."""
        ax = self.ax
        for artist in (*self.blocks, *self.numbers, *self.dropped):
            artist.set_visible(False)
        ax.set_xlim(0, max(self.total, state.budget, 1) * 1.02)
        self.line.set_xdata([state.budget, state.budget])
        if state.error:
            title = ax.set_title(textwrap.shorten(f"nothing is sent: {state.error}", 75,
                                 placeholder=" … (below)"), fontsize=FONT, loc="left")
        else:
            self._sent(state.order)
            left = 0
            for at, entry in enumerate(state.dropped):
                tokens = self.parts.get(entry.get("id"), {}).get("tokens", 0)
                box = _reused(self.dropped, at, lambda: ax.add_patch(Rectangle(
                    (0, -0.3), 0, 0.6, facecolor=SKIPPED_FACE, hatch="///")))
                box.set_bounds(left, -0.3, tokens, 0.6)
                box.set_edgecolor(COLOURS.get(self.kind.get(entry.get("id"), ""), GREY))
                left += tokens
            title = ax.set_title(f"budget {state.budget}: {len(state.order)} parts sent, "
                                 f"{state.used} tokens used, {len(state.dropped)} dropped",
                                 fontsize=FONT + 1, loc="left")
        for artist in (title, self.line, *self.blocks, *self.numbers, *self.dropped):
            artist.set_animated(True)  # painted at each png over the kept pixels of the rest
        self._moving = [title, self.line]

    def _sent(self, order: list[str]) -> None:
        """The blocks sent, in order, each numbered above it where its number has room."""
        left, placed = 0, [[] for _ in NUMBER_ROWS]
        renderer = self.figure.canvas.get_renderer()
        for number, part_id in enumerate(order, start=1):
            tokens = self.parts.get(part_id, {}).get("tokens", 0)
            bar = _reused(self.blocks, number - 1, lambda: self.ax.add_patch(Rectangle(
                (0, 1 - 0.35), 0, 0.7, edgecolor="white")))
            bar.set_bounds(left, 1 - 0.35, tokens, 0.7)
            bar.set_facecolor(COLOURS.get(self.kind.get(part_id, ""), "#DDDDDD"))
            label = _reused(self.numbers, number - 1, lambda: self.ax.text(
                0, NUMBER_ROWS[0], "", ha="center", va="bottom", fontsize=FONT))
            label.set_text(str(number))
            label.set_x(left + tokens / 2)
            self._find_room(label, renderer, placed)
            left += tokens

    def _find_room(self, label, renderer, placed: list[list]) -> bool:
        """Put ``label`` on the first row of numbers where it touches no other; else drop it."""
        for row, boxes in zip(NUMBER_ROWS, placed, strict=True):
            label.set_y(row)
            box = label.get_window_extent(renderer).expanded(1.3, 1.0)
            if not any(box.overlaps(other) for other in boxes):
                boxes.append(box)
                return True
        label.set_visible(False)
        return False


def _reused(pool: list, at: int, make: Callable[[], Any]) -> Any:
    """The artist at ``at`` of ``pool`` (made when the pool is shorter), shown."""
    if at == len(pool):
        pool.append(make())
    pool[at].set_visible(True)
    return pool[at]


class TurnView(widgets.VBox):
    """A budget slider over one agent turn; the blocks and the dropped list follow it."""

    def __init__(self, turn: dict, assemble: Assembler, budget: int, max_budget: int):
        self.turn = turn
        self._assemble = assemble
        self.state = turn_state(turn, budget, assemble)
        self.plot = TurnPlot(turn, self.state)
        self.budget = sliders.IntSlider(value=budget, min=0, max=max_budget,  # every budget
                                        description="budget",
                                        layout=widgets.Layout(width="95%"))
        self.frames = Frames(self._state, self._picture)
        self.state, picture, summary = self.frames.get(budget)
        self.image = widgets.Image(value=picture, format="png")
        self.summary = widgets.HTML(summary)
        super().__init__([self.budget, self.image, self.summary])
        self.budget.observe(self._on_change, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.turn_view(self))

    def _state(self, budget: int) -> TurnState:
        return turn_state(self.turn, budget, self._assemble)

    def _picture(self, state: TurnState) -> tuple[bytes, str]:
        self.plot.update(state)
        return self.plot.png(), self._summary(state)

    def _on_change(self, change: dict) -> None:
        self.state, self.image.value, self.summary.value = self.frames.get(change["new"])
        self.frames.draw_ahead(
            steps_ahead(change["old"], change["new"], self.budget.min, self.budget.max))

    @staticmethod
    def _summary(s: TurnState) -> str:
        if s.error:
            return static.problem_html(s.error)
        order = " → ".join(f"{n} {html.escape(str(i))}" for n, i in enumerate(s.order, 1))
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
