"""The view of `packlab.packing.evidence`: what a learner slides and sees in its lesson."""

from __future__ import annotations

import copy
import html
from collections.abc import Callable, Sequence

import ipywidgets as widgets

from packlab.packing.evidence import (
    SKIPPED,
    TRUNCATED,
    WHOLE,
    Chunk,
    Decision,
    Evidence,
    by_score,
    data_block,
    example_chunks,
    pack_evidence,
)
from packlab.packing.tokens import count_tokens
from packlab.views import sliders, static
from packlab.views.plots import EVIDENCE_COLOURS

# --- the widget ------------------------------------------------------------------------------

EvidencePacker = Callable[[Sequence[Chunk], int, int], list[Evidence]]



def read_packing(chunks: Sequence[Chunk], limit: int, packed: list) -> list[Decision]:
    """What a packer (any packer) did to each chunk, by score, with the room left at its turn.

    Raises ValueError when ``packed`` is not a list of ``{"id", "text", ...}`` dicts naming
    the given chunks: a view shows that message instead of a table.
    """
    if type(packed) is not list or not all(
            type(item) is dict and type(item.get("id")) is str and type(item.get("text")) is str
            for item in packed):
        raise ValueError(f"the packer returned {packed!r:.80}, not a list of "
                         '{"id", "text", "truncated"} dicts')
    sent = {item["id"]: len(item["text"]) for item in packed}
    unknown = sorted(set(sent) - {chunk["id"] for chunk in chunks})
    if unknown:
        raise ValueError(f"the packer returned ids that are not chunks: {', '.join(unknown)}")
    room, made = limit, []
    for chunk in by_score(chunks):
        length = len(chunk["text"])
        kept = sent.get(chunk["id"], 0)
        status = SKIPPED if chunk["id"] not in sent else WHOLE if kept >= length else TRUNCATED
        made.append(Decision(chunk["id"], chunk["score"], length, room, kept, status))
        room -= kept
    return made


def _slider(description: str, value: int, top: int) -> widgets.IntSlider:
    return sliders.IntSlider(
        value=value, min=0, max=max(top, value), description=description,
        continuous_update=True, layout=widgets.Layout(width="95%"),
        style={"description_width": "initial"},
    )


def _status_text(decision: Decision) -> str:
    if decision.status == WHOLE:
        return "whole"
    if decision.status == TRUNCATED:
        return f"<b>truncated</b> to {decision.kept} of {decision.length}"
    if decision.length <= decision.room:
        return f"skipped, though it fitted in the {decision.room} left"
    return f"skipped: {max(decision.room, 0)} left"


class EvidenceView(widgets.VBox):
    """Sliders for the limit and min_span; each chunk, by score, shown whole, cut or skipped."""

    def __init__(self, chunks: Sequence[Chunk], packer: EvidencePacker, limit: int,
                 min_span: int):
        self.chunks = list(chunks)
        self.packer = packer
        total = sum(len(chunk["text"]) for chunk in self.chunks)
        longest = max((len(chunk["text"]) for chunk in self.chunks), default=0)
        self.limit = _slider("limit (characters)", limit, total)
        self.min_span = _slider("min_span", min_span, max(200, longest))
        self.table = widgets.HTML()
        self.summary = widgets.HTML()
        self.decisions: list[Decision] = []
        self.packed: list[Evidence] = []
        self.error: str | None = None
        self._refresh()
        super().__init__([self.limit, self.min_span, self.table, self.summary])
        self.limit.observe(self._refresh, names="value")
        self.min_span.observe(self._refresh, names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.evidence_view(self))

    def _refresh(self, change: dict | None = None) -> None:
        limit, min_span = self.limit.value, self.min_span.value
        try:
            packed = self.packer(copy.deepcopy(self.chunks), limit, min_span)
            self.decisions = read_packing(self.chunks, limit, packed)
        except Exception as exc:  # noqa: BLE001 - a learner's packer may raise anything
            self.error = f"{type(exc).__name__}: {exc}"
            self.decisions, self.packed = [], []
            self.table.value = static.problem_html(
                f"at limit {limit}, min_span {min_span}: {self.error}")
            self.summary.value = ""
            return
        self.error = None
        self.packed = packed
        self.table.value = self._table()
        self.summary.value = self._summary()

    def count(self, status: str) -> int:
        return sum(decision.status == status for decision in self.decisions)

    @property
    def used(self) -> int:
        return sum(decision.kept for decision in self.decisions)

    def _table(self) -> str:
        longest = max((d.length for d in self.decisions), default=1) or 1
        rows = []
        for decision in self.decisions:
            kept = 100 * min(decision.kept, decision.length) / longest
            rest = 100 * max(decision.length - decision.kept, 0) / longest
            colour = EVIDENCE_COLOURS[decision.status]
            bar = (
                f'<div style="display:flex;width:260px;height:12px">'
                f'<div style="width:{kept:.1f}%;background:{colour}"></div>'
                f'<div style="width:{rest:.1f}%;background:repeating-linear-gradient(45deg,'
                f'#F6DCA8,#F6DCA8 3px,#fff 3px,#fff 6px)"></div></div>'
            )
            rows.append(
                f"<tr><td>{html.escape(decision.id)}</td><td>{decision.score:.2f}</td>"
                f"<td style='text-align:right'>{decision.length}</td><td>{bar}</td>"
                f"<td>{_status_text(decision)}</td></tr>"
            )
        head = ("<tr><th align='left'>chunk (best score first)</th><th>score</th><th>chars</th>"
                "<th align='left'>sent (colour) / not sent (hatched)</th>"
                "<th align='left'>decision</th></tr>")
        return f"<table style='font-size:13px'>{head}{''.join(rows)}</table>"

    def _summary(self) -> str:
        block = data_block(self.packed)
        over = f" — <b>over the limit by {self.used - self.limit.value}</b>" if (
            self.used > self.limit.value) else ""
        return (
            f"<b>used</b> {self.used} of {self.limit.value} characters{over} · "
            f"<b>whole</b> {self.count(WHOLE)} · <b>truncated</b> {self.count(TRUNCATED)} · "
            f"<b>skipped</b> {self.count(SKIPPED)}<br>"
            f"the DATA block around them: {len(block)} characters, "
            f"{count_tokens(block)} tokens (fences and ids included)"
        )


def evidence_slider(chunks: Sequence[Chunk] | None = None,
                    packer: EvidencePacker = pack_evidence, limit: int = 720,
                    min_span: int = 80) -> EvidenceView:
    """Slide the limit and min_span over scored chunks (the support bot's eight by default) and
    watch ``packer`` (the course's or yours) send each one whole, cut it or skip it."""
    return EvidenceView(example_chunks() if chunks is None else chunks, packer, limit, min_span)
