"""Static renderings of the views, for pages that have no kernel (the book, an HTML export).

A view is a live ipywidget: its picture follows a slider only while a kernel runs. Each view's
``_repr_mimebundle_`` therefore returns the usual widget bundle *plus* a ``text/html`` rendering of
its current state (the picture inlined as a ``data:`` URI, the summary) with a note saying where
to slide it, and a ``text/plain`` line. JupyterLab prefers the widget; the book is configured to
prefer the HTML; a plain terminal shows the text.

Every function here reads a view and returns ``(html, text)``; none changes the view.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from packlab.packing.evidence import SKIPPED

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NOTE_CLASS = "packlab-static-note"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
LAB = "open this lesson in JupyterLab (<code>make lab</code>)"
CURVE_FRACTIONS = (0.75, 0.50, 0.25, 0.10)  # budgets marked on a static drop curve
# The book shows a picture at most this many CSS pixels wide: its content column in a window
# 1280 pixels wide (measured in chromium on the built book; tests/test_static_pictures.py sizes
# every label by it).
BOOK_WIDTH_PX = 688
BOOK_INCHES = BOOK_WIDTH_PX / 96  # a figure this wide (at 96 CSS pixels an inch) is not shrunk


SHOWN_IDS = 12  # ids listed by name in a summary before "… and N more"


def problem_html(message: str) -> str:
    """A warning box for a learner's function that failed (``message`` is escaped)."""
    return ('<div style="color:#8a1c00;background:#fff1e6;padding:4px 8px;border-radius:4px">'
            f"⚠ {html.escape(message)}</div>")


def ids_html(ids: Sequence[str]) -> str:
    """Ids as escaped HTML, cut after ``SHOWN_IDS`` names."""
    if not ids:
        return "<i>none</i>"
    text = ", ".join(html.escape(key) for key in ids[:SHOWN_IDS])
    more = len(ids) - SHOWN_IDS
    return text + (f", … and {more} more" if more > 0 else "")


def bundle(widget_bundle: dict | None, rendering: tuple[str, str]) -> dict:
    """The widget's own bundle with a static ``text/html`` and a readable ``text/plain`` added."""
    data = dict(widget_bundle or {})
    body, text = rendering
    data["text/html"] = f'<div class="packlab-static">{body}</div>'
    data["text/plain"] = text
    return data


def img(png: bytes, alt: str) -> str:
    """A PNG inlined as a data: URI, scaled down to the page's width."""
    encoded = base64.b64encode(png).decode("ascii")
    return (f'<img src="data:image/png;base64,{encoded}" alt="{html.escape(alt)}" '
            'style="max-width:100%;height:auto">')


def note(what: str, action: str = "slide it") -> str:
    """The line under every static rendering: what it shows and where to make it move."""
    return (f'<p class="{NOTE_CLASS}" style="margin:4px 0 12px;padding:4px 8px;'
            'border-left:4px solid #0072B2;background:#F2F7FB;color:#1A1A1A;font-size:90%">'
            f"{what} — {LAB} to {action}.</p>")


def figure_img(figure: Figure, alt: str, png: bytes | None = None) -> str:
    """A figure as an ``<img>``: every static picture is made here. ``png`` is the figure as the
    view last drew it; without it the figure is drawn now."""
    if png is None:
        from packlab.views.plots import projector_texts

        projector_texts(figure)
        buffer = io.BytesIO()
        figure.canvas.print_png(buffer)
        png = buffer.getvalue()
    return img(png, alt)


def _plain(markup: str) -> str:
    """A summary's HTML as one line of text (tags dropped, entities decoded)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup.replace("<br>", " · "))).split())


def _picture(view, alt: str, what: str, action: str = "slide it") -> tuple[str, str]:
    """The common case: a view with an ``image`` widget (PNG) and a ``summary`` widget (HTML)."""
    summary = view.summary.value
    body = (figure_img(view.plot.figure, alt, view.image.value) + f"<div>{summary}</div>"
            + note(what, action))
    return body, f"{type(view).__name__}: {_plain(summary)}"


def described(alt: str) -> Callable:
    """A view's rendering that also makes the live view accessible: sliders named by their
    labels, plot images with ``alt`` (what the plot shows at any budget; see views.a11y)."""
    def wrap(render: Callable) -> Callable:
        @functools.wraps(render)
        def rendering(view) -> tuple[str, str]:
            from packlab.views.a11y import describe

            describe(view, alt)
            return render(view)
        return rendering
    return wrap


@described("Bar chart: every part in priority order, taken or skipped at the slider's budget")
def budget_view(view) -> tuple[str, str]:
    budget = view.slider.value
    return _picture(view, f"Parts taken and skipped at budget {budget}",
                    f"Static picture at budget {budget}")


@described("Bar charts side by side: what each packer takes and skips at the slider's budget")
def comparison_view(view) -> tuple[str, str]:
    budget = view.slider.value
    return _picture(view, f"{' and '.join(view.names)} side by side at budget {budget}",
                    f"Static picture at budget {budget}")


@described("Bar chart: what fit includes and leaves out at the slider's budget and reserve")
def fit_view(view) -> tuple[str, str]:
    budget, reserve = view.budget.value, view.reserve.value
    return _picture(view, f"What fit includes at budget {budget} with reserve {reserve}",
                    f"Static picture at budget {budget} and reserve {reserve}",
                    "slide the budget and the reserve")


@described("Bar chart: the parts of the turn as assembled at the slider's budget")
def turn_view(view) -> tuple[str, str]:
    budget = view.budget.value
    return _picture(view, f"The turn as assembled at budget {budget}",
                    f"Static picture at budget {budget}")


@described("Bar chart: each item's relevance signals for the query, and what fits the budget")
def relevance_view(view) -> tuple[str, str]:
    budget, query = view.slider.value, view.query.value
    return _picture(view, f"Signals of each item for the query {query!r} at budget {budget}",
                    f"Static picture for the query “{html.escape(query)}” at budget {budget}",
                    "type another query and slide the budget")


def evidence_figure(decisions: Sequence, limit: int, min_span: int) -> Figure:
    """One bar per chunk, best score first: characters sent (coloured by the decision) and not
    sent (hatched), with the decision written next to it."""
    from packlab.views.plots import EVIDENCE_COLOURS, new_figure

    figure = new_figure(BOOK_INCHES, 0.42 * len(decisions) + 1.3)
    ax = figure.subplots()
    rows = list(range(len(decisions)))[::-1]
    longest = max((d.length for d in decisions), default=1) or 1
    for row, decision in zip(rows, decisions, strict=True):
        ax.barh(row, decision.kept, color=EVIDENCE_COLOURS[decision.status], height=0.6)
        ax.barh(row, decision.length - decision.kept, left=decision.kept, height=0.6,
                color="#F6DCA8", hatch="///", edgecolor="white")
        word = "skipped" if decision.status == SKIPPED else decision.status
        ax.text(decision.length + longest * 0.02, row, f"{word} ({decision.kept} sent)",
                va="center", fontsize=9.5)
    ax.set_yticks(rows, [f"{d.id} ({d.score:.2f})" for d in decisions], fontsize=9.5)
    ax.set_xlim(0, longest * 1.35)
    ax.set_xlabel("characters (coloured: sent; hatched: not sent)")
    ax.set_title(f"limit {limit} characters, min_span {min_span}: chunks best score first",
                 fontsize=10, loc="left")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return figure


@described("Chunks whole, cut or skipped at the sliders' limit and min_span")
def evidence_view(view) -> tuple[str, str]:
    limit, min_span = view.limit.value, view.min_span.value
    summary = view.summary.value
    picture = "" if view.error or not view.decisions else figure_img(
        evidence_figure(view.decisions, limit, min_span),
        f"Each chunk whole, cut or skipped at limit {limit} and min_span {min_span}")
    body = (picture + view.table.value + f"<div>{summary}</div>"
            + note(f"Static table at limit {limit} and min_span {min_span}", "slide them"))
    text = f"EvidenceView at limit {limit}, min_span {min_span}: {_plain(summary)}"
    return body, text


@described("The text split into its tokens")
def token_view(view) -> tuple[str, str]:
    body = (f"<pre style='white-space:pre-wrap;margin:0 0 4px'>{html.escape(view.text.value)}</pre>"
            f"<div>{view.summary.value}</div>{view.tokens.value}"
            + note("Static rendering of this text", "type or paste your own"))
    return body, f"TokenView: {_plain(view.summary.value)}"


def _marked(curve: Sequence, total: int, fractions: Sequence[float]) -> list:
    """The curve's points nearest to each fraction of the total budget (each point once)."""
    if not curve:
        return []
    chosen = []
    for fraction in fractions:
        target = fraction * total
        point = min(curve, key=lambda p: abs(p.budget - target))
        if point not in chosen:
            chosen.append(point)
    return chosen


def share(point, total: int) -> str:
    """A budget as a share of all tokens, as every drop-curve label writes it: "49%"."""
    return f"{100 * point.budget / max(total, 1):.0f}%"


def curve_figure(curve: Sequence, n: int, total: int, marked: Sequence) -> Figure:
    """A drop curve drawn once, with a marker and a label at each of the ``marked`` points."""
    import numpy as np

    from packlab.views.plots import BLUE, VERMILLION, new_figure

    figure = new_figure(BOOK_INCHES, 3.6)
    ax = figure.subplots()
    x = np.array([p.budget for p in curve], dtype=float)
    y = np.array([np.nan if p.error else p.kept for p in curve], dtype=float)
    ax.step(x, y, where="post", color=BLUE, lw=2)
    for point in marked:
        if point.error:
            continue
        ax.plot([point.budget], [point.kept], "o", color=VERMILLION, ms=7, zorder=5)
        ax.annotate(f"{share(point, total)}: lost {len(point.lost)}", (point.budget, point.kept),
                    xytext=(6, -14), textcoords="offset points", fontsize=9.5)
    ax.set_xlim(0, max(total, 1))
    ax.set_ylim(0, max(n, 1) * 1.08)
    ax.set_xlabel("budget (tokens)")
    ax.set_ylabel("parts kept")
    ax.grid(alpha=0.3)
    # The budgets marked, as their markers say them (the curve's nearest points to 75 %, 50 %…).
    shares = [share(point, total) for point in marked if not point.error]
    ax.set_title(f"parts kept (of {n}) at every budget"
                 + (f"; marked: {', '.join(shares)} of all tokens" if shares else ""),
                 fontsize=10, loc="left")
    return figure


def _lost_row(point, n: int, total: int) -> str:
    if point.error:
        outcome = f"<i>{html.escape(point.error)}</i>"
    else:
        outcome = f"kept {point.kept}/{n} · lost ({len(point.lost)}): {ids_html(point.lost)}"
    return f"<tr><td>{point.budget} ({share(point, total)})</td><td>{outcome}</td></tr>"


def _curve(view) -> tuple[str, str]:
    """A drop curve's picture with its marked budgets, and the table of what each one loses."""
    n, total = view.plot.n, view.plot.total
    marked = _marked(view.curve, total, CURVE_FRACTIONS)
    rows = "".join(_lost_row(point, n, total) for point in marked)
    body = (
        figure_img(curve_figure(view.curve, n, total, marked),
            f"Drop curve: parts kept at every budget, marked at {len(marked)} budgets")
        + "<table style='font-size:13px'><tr><th align='left'>budget</th>"
        + f"<th align='left'>what the packer keeps and loses</th></tr>{rows}</table>"
    )
    text = "; ".join(f"budget {p.budget}: lost {len(p.lost)}" for p in marked if not p.error)
    return body, text


@described("Step chart: parts kept at every budget, the slider's budget marked")
def drop_curve_view(view) -> tuple[str, str]:
    body, text = _curve(view)
    return body + note("Static picture at a few budgets", "slide along the curve"), (
        f"DropCurveView: {text}")


@described("Step chart: parts kept at every budget, the slider's budget marked")
def drop_reasons_view(view) -> tuple[str, str]:
    body, text = _curve(view.curve)
    budget = view.curve.slider.value
    return (body + f"<div>{view.reasons.value}</div>"
            + note(f"Static picture; the reasons are those at budget {budget}",
                   "slide along the curve and read the reasons at every budget")), (
        f"DropReasonsView: {text}")


def multiple_choice(view) -> tuple[str, str]:
    """The question and its options only, in the learner's order, as markdown: which one is
    right, and why, stays in the kernel."""
    items = "".join(f"<li>{option}</li>" for option in view.options_html)
    body = (f"<div>{view.question_html}</div><ol>{items}</ol>"
            + note("Pick an answer", "check it and read why each option is right or wrong"))
    return body, "MultipleChoice: " + " | ".join(option.text for option in view.options)
