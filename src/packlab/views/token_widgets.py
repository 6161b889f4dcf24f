"""Seeing tokens: text cut into its cl100k tokens, and how far chars/4 is from the real count.

``token_view`` is a text box whose tokens are drawn as coloured boxes under it, with the real count,
the chars/4 estimate and the estimate's error. ``estimate_error_plot`` draws the error of the
estimate for texts of different kinds, as measured by ``packlab.packing.tokens.measure``.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets

from packlab.packing.tokens import ceil_estimate, count_tokens, encoding, wrap_chunk
from packlab.views import static
from packlab.views.plots import BLUE, VERMILLION, _Plot

# Two light backgrounds that alternate from one token to the next, and a third for byte pieces.
TOKEN_COLOURS = ("#D6EAF8", "#FDEBD0")
PARTIAL_COLOUR = "#E8E8E8"
SHOWN_TOKENS = 600  # tokens drawn before "… and N more": keeps the view instant on long pastes
_VISIBLE = {" ": "·", "\t": "→", "\r": "␍"}


@dataclass(frozen=True)
class Piece:
    """One token: its id in the encoding, its bytes, and its text when the bytes are whole UTF-8."""

    token: int
    raw: bytes

    @property
    def text(self) -> str | None:
        """The token's characters, or None when its bytes are only part of a character."""
        try:
            return self.raw.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def label(self) -> str:
        """How the token is written on screen: its text, or its bytes in hex when it has no text."""
        text = self.text
        if text is None:
            return "‹" + " ".join(f"{byte:02x}" for byte in self.raw) + "›"
        return text


def token_pieces(text: str) -> list[Piece]:
    """``text`` cut into its cl100k tokens, each with its own bytes."""
    enc = encoding()
    return [Piece(token, enc.decode_single_token_bytes(token))
            for token in enc.encode(text, disallowed_special=())]


def _show_whitespace(text: str) -> str:
    """Escaped HTML with spaces, tabs and newlines made visible (a newline also breaks the line)."""
    out = []
    for char in text:
        if char == "\n":
            out.append('<span style="color:#888">↵</span><br>')
        elif char in _VISIBLE:
            out.append(f'<span style="color:#888">{_VISIBLE[char]}</span>')
        else:
            out.append(html.escape(char))
    return "".join(out)


def tokens_html(pieces: Sequence[Piece], limit: int = SHOWN_TOKENS) -> str:
    """The tokens as boxes of alternating colours; pieces of a character show their bytes in hex."""
    spans = []
    for index, piece in enumerate(pieces[:limit]):
        whole = piece.text is not None
        colour = TOKEN_COLOURS[index % 2] if whole else PARTIAL_COLOUR
        border = "1px solid #bbb" if whole else "1px dashed #777"
        inner = _show_whitespace(piece.text) if whole else (
            f'<span style="font-size:12px;color:#444">{html.escape(piece.label)}</span>')
        tip = f"token {piece.token}: {piece.raw!r}" + ("" if whole else " (part of a character)")
        spans.append(
            f'<span title="{html.escape(tip)}" style="background:{colour};border:{border};'
            f'border-radius:3px;padding:0 1px;margin:0 1px 2px 0;display:inline-block">'
            f"{inner}</span>"
        )
    more = len(pieces) - limit
    if more > 0:
        spans.append(f"<i> … and {more} more tokens</i>")
    return ('<div style="font-family:monospace;font-size:14px;line-height:1.9">'
            + "".join(spans) + "</div>")


@dataclass(frozen=True)
class Counts:
    """Characters, real tokens, the chars/ratio estimate and its error in % of the real count."""

    chars: int
    tokens: int
    estimate: int
    error_pct: float
    partial: int  # tokens that hold only part of a character


def counts_of(text: str, pieces: Sequence[Piece], ratio: float = 4.0) -> Counts:
    tokens = len(pieces)
    estimate = ceil_estimate(text, ratio)
    error = 100 * (estimate - tokens) / tokens if tokens else 0.0
    partial = sum(piece.text is None for piece in pieces)
    return Counts(len(text), tokens, estimate, error, partial)


def _summary(counts: Counts, ratio: float) -> str:
    if counts.tokens == 0:
        return "<i>Type some text above.</i>"
    direction = "over" if counts.error_pct >= 0 else "<b>under</b>"
    colour = BLUE if counts.error_pct >= 0 else VERMILLION
    partial = ""
    if counts.partial:
        partial = (f"<br>{counts.partial} token(s) hold only part of a character "
                   "(dashed, shown as bytes): together they spell it out.")
    return (
        f"<b>{counts.chars}</b> characters · <b>{counts.tokens}</b> real tokens (cl100k) · "
        f"estimate ⌈{counts.chars} / {ratio:g}⌉ = <b>{counts.estimate}</b> · "
        f'<span style="color:{colour}">error {counts.error_pct:+.0f}% ({direction}-estimate)'
        f"</span>{partial}"
    )


class TokenView(widgets.VBox):
    """A text box; under it, its tokens in alternating colours and the counts with the error."""

    def __init__(self, text: str, ratio: float = 4.0):
        self.ratio = ratio
        self.text = widgets.Textarea(
            value=text, placeholder="Type or paste some text",
            layout=widgets.Layout(width="95%", height="90px"),
        )
        self.tokens = widgets.HTML()
        self.summary = widgets.HTML()
        self._show(text)
        super().__init__([self.text, self.summary, self.tokens])
        self.text.observe(lambda change: self._show(change["new"]), names="value")

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus a static rendering for pages without a kernel."""
        return static.bundle(super()._repr_mimebundle_(**kwargs), static.token_view(self))

    def _show(self, text: str) -> None:
        self.pieces = token_pieces(text)
        self.counts = counts_of(text, self.pieces, self.ratio)
        self.tokens.value = tokens_html(self.pieces)
        self.summary.value = _summary(self.counts, self.ratio)


def token_view(text: str = "2 + 2 = 4", ratio: float = 4.0) -> TokenView:
    """Type text and see it as cl100k tokens, with the real count next to ⌈chars / ratio⌉."""
    return TokenView(text, ratio)


class EstimateErrorPlot(_Plot):
    """One bar per kind of text: how far ⌈chars / 4⌉ is from the real count, in %."""

    def __init__(self, rows: Sequence[dict]):
        super().__init__(static.BOOK_INCHES, 0.45 * len(rows) + 1.6)
        ax = self.axes[0]
        kinds = [row["kind"] for row in rows][::-1]
        errors = [row["error_pct"] for row in rows][::-1]
        colours = [BLUE if error >= 0 else VERMILLION for error in errors]
        bars = ax.barh(kinds, errors, color=colours)
        for bar, row in zip(bars, rows[::-1], strict=True):
            error = row["error_pct"]
            ax.annotate(
                f"{error:+.0f}%  ({row['estimate']} vs {row['tokens']})",
                (error, bar.get_y() + bar.get_height() / 2),
                xytext=(4 if error >= 0 else -4, 0), textcoords="offset points",
                ha="left" if error >= 0 else "right", va="center", fontsize=9.5,
            )
        ax.axvline(0, color="black", lw=1)
        low = min([*errors, 0.0])
        high = max([*errors, 0.0])
        ax.set_xlim(low - 45, high + 45)
        ratio = rows[0].get("ratio", 4.0) if rows else 4.0
        ax.set_xlabel(f"error of ⌈chars / {ratio:g}⌉ in % of the real cl100k count\n"
                      "(left of 0: under-estimate, the dangerous side)")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        self._freeze_layout()


def estimate_error_plot(rows: Sequence[dict]) -> EstimateErrorPlot:
    """Bars of the estimate's error per kind of text (rows from
    ``packlab.packing.tokens.measure``)."""
    return EstimateErrorPlot(rows)


def bare_vs_wrapped(chunk_id: str, text: str) -> dict[str, int]:
    """Real tokens of a chunk's text alone and of the same chunk wrapped as it is sent."""
    bare, wrapped = count_tokens(text), count_tokens(wrap_chunk(chunk_id, text))
    return {"bare": bare, "wrapped": wrapped, "wrapper": wrapped - bare}


def compare_with_tokenizer(cost: Callable[[str, str], int], chunks: dict[str, str]) -> str:
    """A table: for each chunk, ``cost(chunk_id, text)`` next to the real tokens of the wrapped
    chunk. A ``cost`` that fails on a chunk gets its error on that line instead of a number."""
    lines = [f"{'chunk':<20} {'estimate':>8} {'real':>5}  verdict"]
    for chunk_id, text in chunks.items():
        real = count_tokens(wrap_chunk(chunk_id, text))
        try:
            estimate = cost(chunk_id, text)
        except Exception as exc:  # noqa: BLE001 - the learner's function may raise anything
            lines.append(f"{chunk_id:<20} {'—':>8} {real:>5}  raised {type(exc).__name__}: {exc}")
            continue
        verdict = "safe (at least the real count)" if estimate >= real else "SHORT: would overflow"
        lines.append(f"{chunk_id:<20} {estimate!s:>8} {real:>5}  {verdict}")
    return "\n".join(lines)
