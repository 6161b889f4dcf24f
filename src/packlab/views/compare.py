"""The learner's function beside the lesson's, on every exercise's slider.

An exercise ends with a slider over the lesson's example. `pack_beside`, `fit_beside` and
`evidence_beside` run the learner's function and the course's reference at the same slider
values, draw both (one pair of bars per item, yours above the lesson's, every item they disagree
on marked ≠ with a band), say the difference in words ("At budget 300, only yours keeps turn-7;
only the lesson's keeps chunk-2.") and, over every value of the first slider, whether yours
matches the lesson's everywhere or where it first differs. A learner's function that is missing,
raises or returns the wrong thing is named in one line, never a traceback.
"""

from __future__ import annotations

import copy
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from packlab.packing.conversation import agent_turn, assemble_turn, parts_by_id, turn_args
from packlab.packing.curves import PartIndex
from packlab.packing.evidence import SKIPPED, by_score, example_chunks, pack_evidence
from packlab.packing.fitting import fit as course_fit
from packlab.packing.packers import Packer, Part, greedy, report
from packlab.packing.relevance import incident_items, score_and_pack
from packlab.views import sliders, static
from packlab.views.fitview import agent_request
from packlab.views.plots import BLUE, GREEN, VERMILLION, _Plot
from packlab.views.widgets import Frames, steps_ahead

Values = tuple[int, ...]  # the sliders' values, the first slider's first
YOURS_COLOUR, LESSON_COLOUR, DIFFERS_BAND = BLUE, GREEN, "#FBE3D4"
ROW_INCHES, ROWS_INCHES = 0.42, 6.5  # a row's height, and the most all rows take
MESSAGE_CHARS = 80  # characters of a learner's error message kept


@dataclass(frozen=True)
class Side:
    """What one function kept at the sliders' values: the amount of each item it kept, by id,
    or ``error``, a clause saying why there is nothing ("your packer raised KeyError: 'x'")."""

    kept: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    facts: str = ""  # a short account: "used 290 of 300 tokens"


@dataclass(frozen=True)
class Row:
    """One item of the picture: its id, its full size and its label."""

    id: str
    size: int
    label: str


@dataclass(frozen=True)
class Comparison:
    """Everything one exercise's slider compares: its items, sliders and the two functions."""

    rows: list[Row]
    sliders: list[widgets.IntSlider]
    sides: Callable[[Values], tuple[Side, Side]]  # (yours, the lesson's) at these values
    where: Callable[[Values], str]  # "at budget 300"
    verb: str  # what a function does to an item it takes: "keeps", "includes", "sends"
    unit: str  # what an amount counts: "tokens", "characters"
    ordered: bool = False  # the order of the items taken matters (a request as sent)


def _ids(ids: Sequence[str]) -> str:
    return ", ".join(ids)


def difference(where: str, yours: Side, lesson: Side, verb: str, unit: str,
               ordered: bool = False) -> str | None:
    """One sentence saying how ``yours`` differs from ``lesson`` (None when it does not);
    ``ordered``: the same items in another order differ too."""
    if yours.error and lesson.error:
        return None  # both refuse: what each says is shown beside
    if yours.error:
        kept = _ids(list(lesson.kept)) or "nothing"
        return f"{where.capitalize()}, {yours.error}; the lesson's {verb} {kept}."
    if lesson.error:
        return (f"{where.capitalize()}, yours {verb} {_ids(list(yours.kept)) or 'nothing'}, "
                f"but the lesson's refuses: {lesson.error}.")
    only_yours = [key for key in yours.kept if key not in lesson.kept]
    only_lesson = [key for key in lesson.kept if key not in yours.kept]
    parts = []
    if only_yours:
        parts.append(f"only yours {verb} {_ids(only_yours)}")
    if only_lesson:
        parts.append(f"only the lesson's {verb} {_ids(only_lesson)}")
    parts += [f"yours {verb} {yours.kept[key]} {unit} of {key}, the lesson's {lesson.kept[key]}"
              for key in yours.kept if key in lesson.kept and yours.kept[key] != lesson.kept[key]]
    if not parts and ordered and list(yours.kept) != list(lesson.kept):
        parts.append(f"yours {verb} them in another order: {_ids(list(yours.kept))}; the "
                     f"lesson's {_ids(list(lesson.kept))}")
    return f"{where.capitalize()}, {'; '.join(parts)}." if parts else None


def differing(yours: Side, lesson: Side, ordered: bool = False) -> set[str]:
    """The ids the two sides disagree on (every id both could keep, when one side failed);
    ``ordered``: also those sent at another place in the order."""
    if yours.error or lesson.error:
        return set() if yours.error and lesson.error else set(yours.kept) | set(lesson.kept)
    keys = set(yours.kept) | set(lesson.kept)
    moved = set()
    if ordered:
        moved = {a for a, b in zip(yours.kept, lesson.kept, strict=False) if a != b}
    return {key for key in keys if yours.kept.get(key) != lesson.kept.get(key)} | moved


def over_every(comparison: Comparison, values: Values) -> str:
    """Whether yours matches the lesson's at every value of the first slider (the others as in
    ``values``); else at how many it differs, and the first difference. Stops at the first value
    where yours fails: a function that fails (or hangs) is not called again and again."""
    first = comparison.sliders[0]
    axis = first.description
    tried, differ, first_difference = 0, 0, None
    for value in range(first.min, first.max + 1):
        at = (value, *values[1:])
        yours, lesson = comparison.sides(at)
        tried += 1
        said = difference(comparison.where(at), yours, lesson, comparison.verb, comparison.unit,
                          comparison.ordered)
        if yours.error and not lesson.error:
            return f"Yours fails {comparison.where(at)}: {yours.error}."
        if said:
            differ += 1
            first_difference = first_difference or said
    fixed = "".join(f", {s.description} {v}" for s, v in zip(comparison.sliders[1:], values[1:],
                                                              strict=True))
    if not differ:
        return (f"Yours matches the lesson's at every {axis} from {first.min} to {first.max}"
                f"{fixed}.")
    return (f"Yours differs from the lesson's at {differ} of {tried} {axis}s{fixed}; the "
            f"first: {first_difference}")


class BesidePlot(_Plot):
    """Per item, two bars: yours above, the lesson's below; the amount kept filled, the rest
    outlined; items the two disagree on on a band, their labels marked ≠. Drawn once; an
    update changes the bars' widths, the bands, the labels and the title in place."""

    def __init__(self, rows: Sequence[Row]):
        self.rows = list(rows)
        height = min(ROW_INCHES, ROWS_INCHES / max(len(self.rows), 1))
        super().__init__(static.BOOK_INCHES, 1.5 + height * len(self.rows), once=True)
        self.ax = ax = self.axes[0]
        self.figure.legend(handles=[
            Patch(facecolor=YOURS_COLOUR, label="yours"),
            Patch(facecolor=LESSON_COLOUR, label="the lesson's"),
            Patch(facecolor=DIFFERS_BAND, edgecolor=VERMILLION, label="≠ they differ"),
        ], loc="outside lower center", ncols=3, fontsize=9.5, frameon=False)
        n = len(self.rows)
        y = np.arange(n)[::-1].astype(float)
        self.sizes = np.array([row.size for row in self.rows], dtype=float)
        self.bands = [ax.axhspan(c - 0.48, c + 0.48, color=DIFFERS_BAND, zorder=0, visible=False)
                      for c in y]
        self.bars, outlines = [], []
        for offset, colour in ((0.19, YOURS_COLOUR), (-0.19, LESSON_COLOUR)):
            outlines += ax.barh(y + offset, self.sizes, height=0.34, color="white",
                                edgecolor="#BBBBBB", zorder=1)  # repainted over the bands
            self.bars.append(ax.barh(y + offset, self.sizes, height=0.34, color=colour, zorder=2))
        # The labels are texts of the axes (so they repaint alone), laid out with every label
        # marked, so a mark added later always has room.
        ax.set_yticks(y, [""] * n)
        ax.tick_params(axis="y", length=3)
        at_left = blended_transform_factory(ax.transAxes, ax.transData)
        self.labels = [ax.text(-0.012, c, f"≠ {row.label}", transform=at_left, ha="right",
                               va="center", fontsize=9.5) for c, row in zip(y, self.rows,
                                                                             strict=True)]
        ax.set_xlim(0, max(self.sizes.max(initial=1), 1) * 1.02)
        ax.set_ylim(-0.6, n - 0.4)
        for spine in ("top", "right"):
            ax.spines[spine].set_visible(False)
        self.title = ax.set_title("≠" * 40, fontsize=10, loc="left")
        self._animate(*self.bands, *outlines, *self.bars[0], *self.bars[1], *self.labels,
                      self.title)

    def update(self, title: str, yours: Side, lesson: Side, ordered: bool = False) -> None:
        marked = differing(yours, lesson, ordered)
        for side, bars in zip((yours, lesson), self.bars, strict=True):
            for bar, row, size in zip(bars, self.rows, self.sizes, strict=True):
                bar.set_width(min(side.kept.get(row.id, 0), size))
        for band, tick, row in zip(self.bands, self.labels, self.rows, strict=True):
            differs = row.id in marked
            band.set_visible(differs)
            tick.set_text(("≠ " if differs else "") + row.label)
            tick.set_color(VERMILLION if differs else "black")
            tick.set_fontweight("bold" if differs else "normal")
        self.title.set_text(title)


def _side_html(who: str, side: Side, verb: str) -> str:
    if side.error:
        return f"<b>{who}</b>: {html.escape(side.error)}"
    keys = list(side.kept)
    return (f"<b>{who}</b>: {html.escape(side.facts)} · {verb} ({len(keys)}): "
            f"{static.ids_html(keys)}")


class BesideView(widgets.VBox):
    """The sliders, the picture of both sides, the difference in words and over every value."""

    def __init__(self, comparison: Comparison):
        self.comparison = comparison
        self.sliders = comparison.sliders
        self.slider = self.sliders[0]
        self.plot = BesidePlot(comparison.rows)
        self._over: dict[Values, str] = {}
        self.frames = Frames(self._state, self._picture)
        self.difference: str | None = None
        self.yours, self.lesson = Side(), Side()
        frame = self.frames.get(self.values)
        self.image = widgets.Image(value=frame[1], format="png")
        self.summary = widgets.HTML(frame[2])
        self._show(frame)
        super().__init__([*self.sliders, self.image, self.summary])
        for slider in self.sliders:
            slider.observe(self._on_change, names="value")

    @property
    def values(self) -> Values:
        return tuple(int(slider.value) for slider in self.sliders)

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), beside_view(self))

    def over_every(self, values: Values) -> str:
        """`over_every` at these values of the other sliders (worked out once for each)."""
        if values[1:] not in self._over:
            self._over[values[1:]] = over_every(self.comparison, values)
        return self._over[values[1:]]

    def _state(self, values: Values) -> tuple:
        """Both sides at ``values`` and the difference in words (runs the learner's function)."""
        c = self.comparison
        yours, lesson = c.sides(values)
        where = c.where(values)
        said = difference(where, yours, lesson, c.verb, c.unit, c.ordered)
        count = len(differing(yours, lesson, c.ordered))
        title = (f"{where}: {count} {'item differs' if count == 1 else 'items differ'} (≠)"
                 if said else f"{where}: yours matches the lesson's")
        shown = said or f"{where.capitalize()}, yours {c.verb} the same as the lesson's."
        summary = (
            f'<div role="status" aria-live="polite"><b>{html.escape(shown)}</b></div>'
            f"{_side_html('yours', yours, c.verb)}<br>"
            f"{_side_html('the lesson’s', lesson, c.verb)}<br>"
            f"<i>{html.escape(self.over_every(values))}</i>"
        )
        return yours, lesson, said, title, summary

    def _picture(self, state: tuple) -> tuple[bytes, str]:
        yours, lesson, _, title, summary = state
        self.plot.update(title, yours, lesson, self.comparison.ordered)
        return self.plot.png(), summary

    def _show(self, frame: tuple) -> None:
        (self.yours, self.lesson, self.difference, _, _), picture, summary = frame
        self.image.value, self.summary.value = picture, summary

    def _on_change(self, change: dict) -> None:
        self._show(self.frames.get(self.values))
        if change["owner"] is self.slider:
            self.frames.draw_ahead([(value, *self.values[1:]) for value in steps_ahead(
                change["old"], change["new"], self.slider.min, self.slider.max)])


@static.described("Pairs of bars, yours above the lesson's, for every item at the sliders' "
                  "values; items the two disagree on marked ≠")
def beside_view(view: BesideView) -> tuple[str, str]:
    """The static rendering: the picture, the difference in words, where to slide it."""
    where = view.comparison.where(view.values)
    body = (static.figure_img(view.plot.figure, f"Yours beside the lesson's {where}",
                              view.image.value)
            + f"<div>{view.summary.value}</div>"
            + static.note(f"Static picture {where}", "slide it"))
    return body, f"BesideView: {static._plain(view.summary.value)}"


# --- the three kinds of exercise slider -------------------------------------------------------

def _slider(description: str, value: int, low: int, high: int) -> widgets.IntSlider:
    return sliders.IntSlider(value=value, min=low, max=max(high, value), description=description,
                             continuous_update=True, layout=widgets.Layout(width="95%"),
                             style={"description_width": "initial"})


def _missing(name: str) -> str:
    return f"there is no {name} to compare yet: run the cell that defines it, then this one"


def _raised(who: str, exc: Exception) -> str:
    detail = str(exc).splitlines()[0][:MESSAGE_CHARS] if str(exc) else ""
    name = type(exc).__name__
    if isinstance(exc, NotImplementedError):
        return f"{who} raised {name}: write its body first"
    return f"{who} raised {name}: {detail}" if detail else f"{who} raised {name}"


def pack_beside(parts: Sequence[Part], packer: Packer | None, lesson: Packer = greedy,
                budget: int | None = None, name: str = "pack") -> BesideView:
    """Your ``packer`` beside the lesson's (``lesson``: greedy unless given) over ``parts``, as
    the budget slides; ``name`` is what a missing ``packer`` is called."""
    index = PartIndex(parts)
    sizes = {part["id"]: int(part["tokens"]) for part in parts}

    def side(function: Packer | None, at: int) -> Side:
        if not callable(function):
            return Side(error=_missing(name))
        state = index.state(function, at)
        if state.error:
            return Side(error=state.error)
        return Side({key: sizes[key] for key in state.taken}, facts=f"used {state.used} of "
                    f"{at} tokens")

    return BesideView(Comparison(
        rows=[Row(part["id"], int(part["tokens"]), part["id"]) for part in parts],
        sliders=[_slider("budget", index.total // 2 if budget is None else budget, 0,
                         index.total)],
        sides=lambda values: (side(packer, values[0]), side(lesson, values[0])),
        where=lambda values: f"at budget {values[0]}", verb="keeps", unit="tokens"))


def _included_side(function: Callable | None, call: Callable[[Callable], object],
                   sizes: dict[str, int], who: str, name: str, key: str = "included") -> Side:
    """Run ``call(function)``, which returns a dict whose ``key`` lists item ids."""
    if not callable(function):
        return Side(error=_missing(name))
    try:
        result = call(function)
    except Exception as exc:  # noqa: BLE001 - a learner's function may raise anything
        return Side(error=_raised(who, exc))
    included = result.get(key) if isinstance(result, dict) else None
    if not isinstance(included, list) or not all(
            isinstance(item, str) and item in sizes for item in included):
        return Side(error=f"{who} returned {result!r:.60}, not a dict whose \"{key}\" is a "
                    "list of the items' ids")
    kept = {item: sizes[item] for item in included}
    return Side(kept, facts=f"used {sum(kept.values())} tokens")


def report_beside(function: Callable | None, parts: Sequence[Part],
                  lesson: Callable = lambda parts, budget: report(parts, budget, greedy),
                  budget: int | None = None, name: str = "pack_report") -> BesideView:
    """Your ``function(parts, budget)``, which returns a dict whose "included" lists ids (as
    ``pack_report`` and ``pack_with_reasons`` do), beside the lesson's over ``parts``, as the
    budget slides; ``name`` is what the function is called."""
    sizes = {part["id"]: int(part["tokens"]) for part in parts}
    total = sum(sizes.values())
    return BesideView(Comparison(
        rows=[Row(part["id"], int(part["tokens"]), part["id"]) for part in parts],
        sliders=[_slider("budget", total // 2 if budget is None else budget, 0, total)],
        sides=lambda v: tuple(
            _included_side(f, lambda f: f(copy.deepcopy(list(parts)), v[0]), sizes, who, name)
            for f, who in ((function, f"your {name}"), (lesson, f"the lesson's {name}"))),
        where=lambda v: f"at budget {v[0]}", verb="includes", unit="tokens"))


def fit_beside(fit: Callable | None, items: Sequence[dict] | None = None, budget: int = 700,
               reserve: int = 150) -> BesideView:
    """Your ``fit`` beside the lesson's over the agent's request, as budget and reserve slide."""
    chosen = agent_request() if items is None else list(items)
    sizes = {item["id"]: int(item["tokens"]) for item in chosen}
    top = sum(sizes.values()) + reserve

    def label(item: dict) -> str:
        return item["id"] + (" [required]" if item.get("required") else "")

    return BesideView(Comparison(
        rows=[Row(item["id"], int(item["tokens"]), label(item)) for item in chosen],
        sliders=[_slider("budget", budget, 1, top), _slider("reserve", reserve, 0, top)],
        sides=lambda v: tuple(
            _included_side(function, lambda f: f(copy.deepcopy(chosen), v[0], v[1]), sizes,
                           who, "fit")
            for function, who in ((fit, "your fit"), (course_fit, "the lesson's fit"))),
        where=lambda v: f"at budget {v[0]}, reserve {v[1]}", verb="includes", unit="tokens"))


def _evidence_side(packer: Callable | None, chunks: Sequence[dict], limit: int, min_span: int,
                   who: str) -> Side:
    from packlab.views.evidence import read_packing

    if not callable(packer):
        return Side(error=_missing("pack_evidence"))
    try:
        packed = packer(copy.deepcopy(list(chunks)), limit, min_span)
    except Exception as exc:  # noqa: BLE001 - a learner's packer may raise anything
        return Side(error=_raised(who, exc))
    try:
        made = read_packing(chunks, limit, packed)
    except ValueError as exc:
        return Side(error=f"{who} is not usable: {str(exc).removeprefix('the packer ')}")
    kept = {d.id: d.kept for d in made if d.status != SKIPPED}
    return Side(kept, facts=f"used {sum(kept.values())} of {limit} characters")


def evidence_beside(packer: Callable | None, chunks: Sequence[dict] | None = None,
                    limit: int = 720, min_span: int = 80) -> BesideView:
    """Your ``pack_evidence`` beside the lesson's over scored chunks, as limit and min_span
    slide."""
    chosen = list(example_chunks() if chunks is None else chunks)
    total = sum(len(chunk["text"]) for chunk in chosen)
    longest = max((len(chunk["text"]) for chunk in chosen), default=0)
    return BesideView(Comparison(
        rows=[Row(c["id"], len(c["text"]), f"{c['id']} ({c['score']:.2f})")
              for c in by_score(chosen)],
        sliders=[_slider("limit", limit, 0, total), _slider("min_span", min_span, 0,
                                                            max(200, longest))],
        sides=lambda v: (_evidence_side(packer, chosen, v[0], v[1], "your pack_evidence"),
                         _evidence_side(pack_evidence, chosen, v[0], v[1],
                                        "the lesson's pack_evidence")),
        where=lambda v: f"at limit {v[0]}, min_span {v[1]}", verb="sends", unit="characters"))


def score_beside(scorer: Callable | None, items: Sequence[dict] | None = None,
                 query: str = "why did the deploy fail", budget: int | None = None
                 ) -> BesideView:
    """Your ``score_and_pack`` beside the lesson's over the incident's items for ``query``, as
    the budget slides."""
    chosen = list(incident_items() if items is None else items)
    sizes = {item["id"]: int(item["tokens"]) for item in chosen}
    total = sum(sizes.values())
    return BesideView(Comparison(
        rows=[Row(item["id"], int(item["tokens"]), item["id"]) for item in chosen],
        sliders=[_slider("budget", total // 2 if budget is None else budget, 0, total)],
        sides=lambda v: tuple(
            _included_side(function, lambda f: f(copy.deepcopy(chosen), query, v[0]), sizes,
                           who, "score_and_pack")
            for function, who in ((scorer, "your score_and_pack"),
                                  (score_and_pack, "the lesson's score_and_pack"))),
        where=lambda v: f"at budget {v[0]}", verb="packs", unit="tokens"))


def turn_beside(assemble: Callable | None, turn: dict | None = None, budget: int = 400
                ) -> BesideView:
    """Your ``assemble_turn`` beside the lesson's over the agent's turn, as the budget slides:
    what each sends, and in what order."""
    chosen = agent_turn() if turn is None else turn
    sizes = {key: int(part["tokens"]) for key, part in parts_by_id(chosen).items()}
    top = max(sum(sizes.values()) + 100, budget)
    return BesideView(Comparison(
        rows=[Row(key, size, key) for key, size in sizes.items()],
        sliders=[_slider("budget", budget, 0, top)],
        sides=lambda v: tuple(
            _included_side(f, lambda f: f(*copy.deepcopy(turn_args(chosen, v[0]))), sizes,
                           who, "assemble_turn", key="order")
            for f, who in ((assemble, "your assemble_turn"),
                           (assemble_turn, "the lesson's assemble_turn"))),
        where=lambda v: f"at budget {v[0]}", verb="sends", unit="tokens", ordered=True))
