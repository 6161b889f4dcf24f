"""Matplotlib drawings of packing, headless (Agg) and fast to update.

Each plot builds its figure once; ``update`` only changes existing artists (collection vertices, a
line's position, texts), and ``png`` renders. Plots show themselves in a notebook as PNG, so the
same objects serve the widgets, the lessons and a static book.

A plot that names its moving artists (``_animate``) renders everything else once, keeps those
pixels, and at each ``png`` paints only the moving artists over a copy of them, in the order a full
draw would: the same picture for a fraction of the work, as long as no still artist drawn above a
moving one overlaps it (tests compare both renderings pixel by pixel).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, PathPatch, Rectangle
from matplotlib.path import Path
from matplotlib.text import Text

from packlab.packing.curves import CurvePoint, PackState
from packlab.packing.evidence import SKIPPED, TRUNCATED, WHOLE
from packlab.packing.packers import Part

# Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
BLUE, ORANGE, VERMILLION, GREEN, GREY = "#0072B2", "#E69F00", "#D55E00", "#009E73", "#999999"
EVIDENCE_COLOURS = {WHOLE: BLUE, TRUNCATED: ORANGE, SKIPPED: "#DDDDDD"}  # by decision
SKIPPED_FACE = "#F6DCA8"
LABEL_LIMIT = 24  # write ids on the bars only when there are at most this many parts
BOOK_INCHES = 688 / 96  # packlab.views.static.BOOK_INCHES: shown in the book at its own size
# Where a figure is shown, from the environment of the kernel that draws it (`make demo` and
# `make slides` set them; the book and `make lab` set none): how much larger its texts are, how
# wide it is in pixels and how tall it may be. Texts keep their size in points; the figure gets
# fewer inches at a higher dpi, so everything in it grows.
SCALE_VARIABLE = "PACKLAB_FIGURE_SCALE"
WIDTH_VARIABLE = "PACKLAB_FIGURE_WIDTH"
HEIGHT_VARIABLE = "PACKLAB_FIGURE_HEIGHT"
DEMO_SMALLEST_PT = 10.0  # when scaled, smaller texts (bar labels, small legends) grow to this


@dataclass(frozen=True)
class Canvas:
    """Where figures are shown: their texts' scale, their width and most height in pixels."""

    scale: float = 1.0
    width_px: int | None = None  # None: the figure's own width, at 100 pixels an inch
    max_height_px: int | None = None

    def environment(self) -> dict[str, str]:
        """The variables that make a kernel draw for this canvas."""
        env = {SCALE_VARIABLE: f"{self.scale:.2f}"}
        if self.width_px:
            env[WIDTH_VARIABLE] = str(self.width_px)
        if self.max_height_px:
            env[HEIGHT_VARIABLE] = str(self.max_height_px)
        return env

    def size(self, width: float, height: float) -> tuple[tuple[float, float], float]:
        """``(figsize, dpi)`` of a figure designed ``width`` × ``height`` inches for the book."""
        dpi = 100 * self.scale
        inches = (self.width_px or width * 100) / dpi
        tall = height if self.max_height_px is None else min(height, self.max_height_px / dpi)
        return (inches, tall), dpi


# The presenter's JupyterLab at 1280 × 720 with its sidebar folded (`make demo`): 22 px code
# against JupyterLab's usual 14 px, and room under a slider for a picture 480 pixels tall.
DEMO = Canvas(22 / 14, 1024, 480)
# A reveal.js slide of 1280 × 720 (`make slides`): its 1184 pixels between the margins, the
# smallest text 24 pixels (10 pt at 175 dpi), and room for a heading above the picture.
SLIDES = Canvas(1.75, 1184, 520)


def _number(name: str) -> float | None:
    try:
        return float(os.environ[name])
    except (KeyError, ValueError):
        return None


def canvas() -> Canvas:
    """The canvas the environment asks for (the book's when it asks for none)."""
    scale = min(max(_number(SCALE_VARIABLE) or 1.0, 1.0), 3.0)
    width, height = _number(WIDTH_VARIABLE), _number(HEIGHT_VARIABLE)
    return Canvas(scale, int(min(max(width, 300), 4000)) if width else None,
                  int(min(max(height, 200), 4000)) if height else None)


def figure_scale() -> float:
    """The figures' text scale from the environment: 1 outside a demo or slides, at most 3."""
    return canvas().scale


def new_figure(width: float, height: float, layout: str | None = "constrained") -> Figure:
    """A figure designed ``width`` × ``height`` inches for the book, sized for the canvas, on an
    Agg canvas of its own."""
    figsize, dpi = canvas().size(width, height)
    figure = Figure(figsize=figsize, dpi=dpi, layout=layout)
    FigureCanvasAgg(figure)
    return figure


def projector_texts(figure: Figure) -> None:
    """On a scaled canvas, no text is smaller than matplotlib's body text."""
    if figure_scale() == 1:
        return
    for text in figure.findobj(Text):
        if text.get_fontsize() < DEMO_SMALLEST_PT:
            text.set_fontsize(DEMO_SMALLEST_PT)


class _Plot:
    """A figure on its own Agg canvas: never opens a window, renders to PNG bytes."""

    def __init__(self, width: float, height: float, margins: dict | None = None,
                 once: bool = False, **grid):
        """One column of axes; fixed ``margins`` (figure fractions) skip the layout engine, and
        ``once`` lays out at the first ``png`` only (for a layout that outside legends need).

        On a scaled canvas (a demo, slides) the figure is sized for it (`Canvas.size`); the
        layout engine then finds margins that fit the larger labels, once (the first ``png``),
        and keeps them.
        """
        scaled = canvas() != Canvas()
        self._projector = figure_scale() > 1
        self._lay_out_once = once or bool(margins) and scaled
        self.figure = new_figure(width, height, None if margins and not scaled else "constrained")
        if margins and not scaled:
            self.figure.subplots_adjust(**margins)
        self.axes = self.figure.subplots(squeeze=False, **grid)[:, 0]
        self._moving: list[Artist] = []
        self._still = None  # the pixels of everything but the moving artists, once rendered
        self._still_key: tuple | None = None

    def _freeze_layout(self) -> None:
        """Lay out once, then keep the positions: later renders skip the layout engine."""
        projector_texts(self.figure)
        self.figure.canvas.draw()
        self.figure.set_layout_engine("none")

    def _animate(self, *artists: Artist) -> None:
        """Repaint only ``artists`` at each ``png``; the rest is rendered once and its pixels kept.

        Only for artists that ``update`` changes; anything else it changes must be in ``_view``.
        """
        for artist in artists:
            artist.set_animated(True)  # a plain canvas.draw() now leaves it out; savefig does not
        self._moving.extend(artists)
        self._still = None

    def _view(self) -> tuple:
        """What the kept pixels depend on besides the moving artists: size and axis limits."""
        return (
            tuple(self.figure.bbox.bounds),
            *((*ax.get_xlim(), *ax.get_ylim()) for ax in self.figure.axes),
        )

    def _draw_moving(self) -> None:
        """Paint the moving artists over the kept pixels, in the order a full draw paints them."""
        canvas = self.figure.canvas
        view = self._view()
        if self._still is None or view != self._still_key:
            canvas.draw()
            self._still, self._still_key = canvas.copy_from_bbox(self.figure.bbox), view
        else:
            canvas.restore_region(self._still)
        renderer = canvas.get_renderer()
        for artist in _moving_in_draw_order(self.figure):
            artist.draw(renderer)

    def png(self) -> bytes:
        """Render the figure as PNG bytes."""
        projector_texts(self.figure)
        if self._moving:
            self._draw_moving()
        else:
            self.figure.canvas.draw()
        if self._lay_out_once:
            self.figure.set_layout_engine("none")
            self._lay_out_once = False
        return png_bytes(np.asarray(self.figure.canvas.buffer_rgba()), self.figure.dpi)

    def _repr_png_(self) -> bytes:
        return self.png()


_SOFTWARE = f"Software\0Matplotlib version{matplotlib.__version__}, https://matplotlib.org/"


def png_bytes(rgba: np.ndarray, dpi: float = 100) -> bytes:
    """An RGBA image (rows, columns, 4 bytes) as a PNG file, as matplotlib would write it.

    The same pixels, chunks and metadata as ``print_png``, encoded for speed: rows unfiltered and
    zlib at level 1. Pillow tries five filters on every row, which takes longer than compressing.
    """
    height, width, _ = rgba.shape
    rows = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "none"
    rows[:, 1:] = rgba.reshape(height, -1)
    per_metre = int(dpi / 0.0254 + 0.5)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)),
            _chunk(b"tEXt", _SOFTWARE.encode("latin-1")),
            _chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),
            _chunk(b"IDAT", zlib.compress(rows, 1)),
            _chunk(b"IEND", b""),
        ]
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _moving_in_draw_order(figure: Figure) -> list[Artist]:
    """The animated artists of ``figure`` and its axes, in the order Figure.draw paints them."""
    order = []
    for child in sorted(figure.get_children(), key=Artist.get_zorder):
        if child.get_animated():
            order.append(child)
        elif isinstance(child, Axes):
            mine = sorted(child.get_children(), key=Artist.get_zorder)
            order += [artist for artist in mine if artist.get_animated()]
    return order


def _boxes(starts: np.ndarray, widths: np.ndarray, y: float, height: float) -> np.ndarray:
    """Rectangle vertices, shape (n, 4, 2), for bars from ``starts`` with ``widths`` at row y."""
    lo, hi = y - height / 2, y + height / 2
    x0, x1 = starts, starts + widths
    return np.stack(
        [
            np.stack([x0, np.full_like(x0, lo)], -1),
            np.stack([x0, np.full_like(x0, hi)], -1),
            np.stack([x1, np.full_like(x0, hi)], -1),
            np.stack([x1, np.full_like(x0, lo)], -1),
        ],
        axis=1,
    )


_EMPTY = Path(np.zeros((0, 2)))


def _compound(boxes: np.ndarray) -> Path:
    """One path made of all ``boxes`` (an empty path for none)."""
    return Path.make_compound_path_from_polys(boxes) if len(boxes) else _EMPTY


SNAP_LIMIT = 1024  # Agg snaps a path of level and upright lines to pixels up to this many vertices


def _show_boxes(patch: PathPatch, boxes: np.ndarray, chosen: np.ndarray, merge: bool) -> None:
    """Fill ``patch`` with the ``chosen`` boxes; with ``merge``, neighbours become one box.

    Merging is only for boxes drawn without an edge: side by side, their shared sides cancel out
    in Agg's coverage sums, so one wide box paints the same pixels as its parts, faster. Agg snaps
    the boxes to whole pixels only when the path is short, so the merged path is snapped exactly
    when the unmerged one would have been.
    """
    patch.set_snap(None)  # Agg's own choice, by the number of vertices
    if not merge:
        patch.set_path(_compound(boxes[chosen]))
        return
    where = np.flatnonzero(chosen)
    if not len(where):
        patch.set_path(_EMPTY)
        return
    breaks = np.flatnonzero(np.diff(where) > 1)
    firsts = where[np.r_[0, breaks + 1]]
    lasts = where[np.r_[breaks, len(where) - 1]]
    merged = boxes[firsts].copy()
    merged[:, 2:, 0] = boxes[lasts, 2:, 0]  # the right side of the last box of each run
    if 5 * len(where) > SNAP_LIMIT:  # 5 vertices per box: unmerged, Agg would not have snapped
        patch.set_snap(False)
    patch.set_path(_compound(merged))


class PackingPlot(_Plot):
    """Every part end to end in input order, taken or skipped; below it, the window as sent."""

    def __init__(self, parts: Sequence[Part], state: PackState):
        super().__init__(BOOK_INCHES, 4.2)
        self.ax = ax = self.axes[0]
        self.ids = [p["id"] for p in parts]
        self.position = {key: i for i, key in enumerate(self.ids)}
        self.widths = np.array([p["tokens"] for p in parts], dtype=float)
        self.total = int(self.widths.sum())
        self.boxes = _boxes(np.cumsum(self.widths) - self.widths, self.widths, 1.0, 0.7)
        # One compound path per status: hatching many separate polygons is slow, one path is not.
        edge = dict(edgecolor="white", lw=0.8 if len(parts) <= 100 else 0)
        self.merge = edge["lw"] == 0  # no edges between parts: neighbours can be drawn as one box
        self.taken = ax.add_patch(PathPatch(_EMPTY, facecolor=BLUE, **edge))
        self.skipped = ax.add_patch(PathPatch(_EMPTY, facecolor=SKIPPED_FACE, hatch="///", **edge))
        if hasattr(self.skipped, "set_hatchcolor"):  # matplotlib >= 3.10; older ones hatch in black
            self.skipped.set_hatchcolor(VERMILLION)
        self.unknown = ax.add_patch(PathPatch(_EMPTY, facecolor="#DDDDDD", **edge))
        self.window = ax.add_patch(
            Rectangle((0, -0.35), 0, 0.7, facecolor="#F2F2F2", edgecolor="#555555", lw=1)
        )
        self.sent = ax.add_patch(PathPatch(_EMPTY, facecolor=BLUE, zorder=2, **edge))
        self.budget_line = ax.axvline(0, color="black", lw=2, ls="--", zorder=5)
        self._decorate(parts)
        self.update(state)
        self._freeze_layout()
        self._thin_labels()
        moving = (self.taken, self.skipped, self.unknown, self.window, self.sent, self.budget_line)
        self._animate(*moving, self.title)

    def _decorate(self, parts: Sequence[Part]) -> None:
        ax = self.ax
        ax.set_ylim(-0.6, 1.4)
        ax.set_yticks([1, 0], ["all parts, in order", "the window, as sent"])
        ax.set_xlabel("tokens")
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.tick_params(axis="y", length=0)
        self.figure.legend(
            handles=[
                Patch(facecolor=BLUE, label="taken"),
                Patch(facecolor=SKIPPED_FACE, edgecolor=VERMILLION, hatch="///", label="skipped"),
                Patch(facecolor="#F2F2F2", edgecolor="#555555", label="budget left unused"),
                Line2D([], [], color="black", lw=2, ls="--", label="budget"),
            ],
            loc="outside lower center",
            ncols=4,
            frameon=False,
        )
        if len(parts) <= LABEL_LIMIT:
            self._label_bars()

    def _label_bars(self) -> None:
        """Write each id upright above its bar."""
        self.bar_labels = [
            self.ax.text((box[0, 0] + box[2, 0]) / 2, 1.42, key, ha="center", va="bottom",
                         fontsize=9.5, rotation=90)
            for key, box in zip(self.ids, self.boxes, strict=True)
        ]

    def _thin_labels(self) -> None:
        """Drop each id that would touch the one before it (the summary lists them all)."""
        renderer = self.figure.canvas.get_renderer()
        last = None
        for label in getattr(self, "bar_labels", []):
            box = label.get_window_extent(renderer)
            if last is not None and box.x0 < last.x1 + 1:
                label.remove()
            else:
                last = box

    def update(self, state: PackState) -> None:
        """Show ``state``: recolour the parts, refill the window, move the budget line."""
        status = np.zeros(len(self.ids), dtype=int)  # 0 unknown, 1 taken, 2 skipped
        if state.error is None:
            status[:] = 2
            status[[self.position[key] for key in state.taken]] = 1
        for patch, code in ((self.taken, 1), (self.skipped, 2), (self.unknown, 0)):
            _show_boxes(patch, self.boxes, status == code, self.merge)
        kept = self.widths[status == 1]
        sent = _boxes(np.cumsum(kept) - kept, kept, 0.0, 0.7)
        _show_boxes(self.sent, sent, np.ones(len(kept), dtype=bool), self.merge)
        self.window.set_width(state.budget)
        self.budget_line.set_xdata([state.budget, state.budget])
        self.ax.set_xlim(0, max(self.total, state.budget, state.used, 1) * 1.02)
        title = _packing_title(state, len(self.ids))
        self.title = self.figure.suptitle(title, fontsize=11, x=0.01, ha="left",
                                          wrap=_may_not_fit(title, self._projector))


WRAP_AFTER = 80  # characters: a shorter title fits the figure's width unwrapped


def _may_not_fit(title: str, projector: bool) -> bool:
    """Should matplotlib wrap this title? Wrapping measures it word by word at every draw."""
    return projector or len(title) > WRAP_AFTER


def _packing_title(state: PackState, n: int) -> str:
    if state.error:
        return f"budget {state.budget}: nothing to show — {state.error}"
    over = f"  (over budget by {-state.remaining})" if state.remaining < 0 else ""
    return (
        f"budget {state.budget} · used {state.used} · remaining {state.remaining}"
        f" · kept {len(state.taken)}/{n}{over}"
    )


def _series(curve: Sequence[CurvePoint], field: str) -> tuple[np.ndarray, np.ndarray]:
    """Budgets and one field of a curve; points where the packer failed become gaps (NaN)."""
    x = np.array([p.budget for p in curve], dtype=float)
    y = np.array([np.nan if p.error else getattr(p, field) for p in curve], dtype=float)
    return x, y


class DropCurvePlot(_Plot):
    """Parts kept against budget, with a marker at the chosen budget."""

    def __init__(self, parts: Sequence[Part], curve: Sequence[CurvePoint], point: CurvePoint):
        super().__init__(8.0, 3.6, margins=dict(left=0.08, right=0.98, bottom=0.14, top=0.85))
        self.ax = ax = self.axes[0]
        self.n = len(parts)
        self.total = sum(p["tokens"] for p in parts)
        x, y = _series(curve, "kept")
        ax.step(x, y, where="post", color=BLUE, lw=2, label="parts kept")
        ax.set_xlim(0, max(self.total, 1))
        ax.set_ylim(0, max(self.n, 1) * 1.08)
        ax.set_xlabel("budget (tokens)")
        ax.set_ylabel("parts kept")
        ax.grid(alpha=0.3)
        top = max(self.total, 1)
        ax.secondary_xaxis(
            "top", functions=(lambda b: 100 * b / top, lambda f: f * top / 100)
        ).set_xlabel("budget as % of all tokens")
        self.line = ax.axvline(0, color=VERMILLION, lw=1.5, ls="--")
        (self.dot,) = ax.plot([], [], "o", color=VERMILLION, ms=8, zorder=5)
        self.note = ax.text(
            0.02,
            0.95,
            "",
            transform=ax.transAxes,
            va="top",
            fontsize=10,
            bbox=dict(facecolor="white", edgecolor="#CCCCCC", alpha=0.9),
        )
        self.update(point)
        # the frame is drawn above the marker's line where they cross, so it is repainted too
        self._animate(self.line, self.dot, self.note, *ax.spines.values())

    def update(self, point: CurvePoint) -> None:
        """Move the marker to ``point`` and say what was lost there."""
        self.line.set_xdata([point.budget, point.budget])
        if point.error:
            self.dot.set_data([], [])
            self.note.set_text(f"budget {point.budget}: {point.error}")
            return
        self.dot.set_data([point.budget], [point.kept])
        self.note.set_text(
            f"budget {point.budget}: kept {point.kept}/{self.n}, lost {len(point.lost)}"
        )


class ComparisonPlot(_Plot):
    """Two packers: tokens used against budget, gap shaded; below, both windows at one budget."""

    def __init__(
        self,
        parts: Sequence[Part],
        curves: Mapping[str, Sequence[CurvePoint]],
        states: Sequence[PackState],
    ):
        super().__init__(BOOK_INCHES, 5.0, once=True, nrows=2, height_ratios=[3, 1.3])
        self.names = list(curves)
        self.total = max(sum(p["tokens"] for p in parts), 1)
        self.colours = [VERMILLION, BLUE, GREEN, ORANGE][: len(self.names)]
        self._draw_curves(curves)
        self._draw_bars()
        self.update(states)

    def _draw_curves(self, curves: Mapping[str, Sequence[CurvePoint]]) -> None:
        ax = self.axes[0]
        ax.plot([0, self.total], [0, self.total], color=GREY, lw=1, ls=":", label="the budget")
        series = [_series(curve, "used") for curve in curves.values()]
        for name, colour, (x, y) in zip(self.names, self.colours, series, strict=True):
            ax.step(x, y, where="post", color=colour, lw=2, label=name)
        if len(series) == 2:
            (x, a), (_, b) = series
            gap = np.nan_to_num(b) > np.nan_to_num(a)
            gap[1:] |= gap[:-1]  # with steps, a gap lasts until the next budget
            ax.fill_between(
                x,
                a,
                b,
                where=gap,
                step="post",
                color=VERMILLION,
                alpha=0.18,
                lw=0,
                label="left unused",
            )
        ax.set_xlim(0, self.total)
        ax.set_ylim(0, self.total * 1.05)
        ax.set_xlabel("budget (tokens)")
        ax.set_ylabel("tokens used")
        ax.grid(alpha=0.3)
        # Above the curves, never on them: the curves fill the whole square.
        self.figure.legend(loc="outside upper left", fontsize=9.5, ncols=4, frameon=False)
        self.line = ax.axvline(0, color="black", lw=1.5, ls="--")

    def _draw_bars(self) -> None:
        ax = self.axes[1]
        rows = range(len(self.names))
        self.frames = [
            ax.add_patch(Rectangle((0, r - 0.35), 0, 0.7, facecolor="#F2F2F2", edgecolor="#555555"))
            for r in rows
        ]
        self.bars = [
            ax.add_patch(Rectangle((0, r - 0.35), 0, 0.7, facecolor=c))
            for r, c in zip(rows, self.colours, strict=True)
        ]
        self.labels = [ax.text(0, r, "", va="center", fontsize=9.5) for r in rows]
        ax.set_yticks(list(rows), self.names)
        ax.set_ylim(len(self.names) - 0.5, -0.5)
        ax.set_xlabel("tokens in the window (grey: budget left unused)")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)

    def update(self, states: Sequence[PackState]) -> None:
        """Show each packer's window at the chosen budget, with used and unused tokens."""
        budget = states[0].budget
        self.line.set_xdata([budget, budget])
        top = max(budget, self.total, *(s.used for s in states), 1)
        self.axes[1].set_xlim(0, top * 1.02)
        for frame, bar, label, state in zip(
            self.frames, self.bars, self.labels, states, strict=True
        ):
            frame.set_width(budget)
            bar.set_width(state.used)
            label.set_x(max(budget, state.used) + top * 0.01)
            label.set_text(state.error or f"used {state.used}, unused {state.remaining}")
            label.set_ha("left")
        title = _comparison_title(self.names, states)
        self.axes[0].set_title(title, fontsize=10, loc="left",
                               wrap=_may_not_fit(title, self._projector))


def _comparison_title(names: Sequence[str], states: Sequence[PackState]) -> str:
    budget = states[0].budget
    if len(states) != 2 or any(s.error for s in states):
        return f"budget {budget}"
    gap = states[0].remaining - states[1].remaining
    if gap > 0:
        return f"budget {budget}: {names[0]} leaves {gap} more tokens unused than {names[1]}"
    return f"budget {budget}: both use {states[1].used} tokens"
