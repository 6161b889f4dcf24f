"""Static slides of every lesson (`make slides`): executed, reveal.js, every asset local.

Each lesson is executed in a temporary folder (the course's notebooks are never written to) and cut
into slides of one 1280 × 720 screen each: markdown into its blocks (a heading starts a slide, a
paragraph or list joins it while it fits), a code cell with its picture, a view's picture and its
summary apart when both do not fit, the output of a "predict the output" cell after the question, a
quiz as its question and options only; the setup cell's code (the first code cell, when it imports)
is left out, and what it prints kept; code taller than a slide is cut at a blank line. Every slide
carries the speaker note of its section in reveal.js's speaker view (key S), from the one source of
notes (`packlab.course.notes`). Each live widget is replaced by a still of the state it was drawn
in, and `jupyter nbconvert`'s reveal.js exporter writes `NN-slug.slides.html`; the presenter's
notebook becomes `presenter.slides.html`. Pictures are drawn for the slide
(`packlab.views.plots.SLIDES`): as wide as the slide's content, their smallest text 24 pixels; code
and printed output are 24 pixels too.

Nothing is fetched when the slides are shown: reveal.js and MathJax come from the npm registry
at build time (`npm pack`, cached in .cache/npm) and are copied next to the slides, and a small
template replaces the exporter's CDN references (require.js, jQuery, mermaid, MathJax 2, the
widget manager) with the local copies or with nothing.

    python -m packlab.course.slides [--out DIR] [--jobs N] [LESSON ...]   # LESSON: 02, or a slug
    (without LESSON: every lesson and the presenter's deck)
"""

from __future__ import annotations

import argparse
import base64
import copy
import html
import json
import math
import multiprocessing
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt

from packlab.course import notes
from packlab.manifest import ROOT, Lesson, load
from packlab.views.plots import SLIDES

OUT = ROOT / "book" / "_build" / "slides"
ASSETS = "_assets"
REVEAL = ("reveal.js", "4.6.1")
MATHJAX = ("mathjax", "3.2.2")
THEME = "white"  # its font (Source Sans Pro) ships with reveal.js
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
STILL_NOTE = ("A still of a live widget: open the lesson in JupyterLab (<code>make lab</code>) "
              "to drive it.")
CELL_SECONDS = 120


class AssetsUnavailable(RuntimeError):
    """reveal.js or MathJax could not be had from the npm registry."""


# --------------------------------------------------------------------------- local assets


def cache_folder() -> Path:
    return Path(os.environ.get("PACKLAB_CACHE") or ROOT / ".cache") / "npm"


def npm_tarball(name: str, version: str, cache: Path | None = None) -> Path:
    """The npm package's tarball, from the cache or from the registry (`npm pack`)."""
    cache = cache or cache_folder()
    tarball = cache / f"{name}-{version}.tgz"
    if tarball.is_file():
        return tarball
    npm = shutil.which("npm")
    if npm is None:
        raise AssetsUnavailable(
            f"npm is not installed, so {name}@{version} cannot be fetched for the slides "
            "(`apt-get install -y npm`). The slides are not built with CDN links instead.")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        done = subprocess.run([npm, "pack", f"{name}@{version}", "--silent"], cwd=scratch,
                              capture_output=True, text=True, timeout=600, check=False)
        packed = list(Path(scratch).glob("*.tgz"))
        if done.returncode != 0 or len(packed) != 1:
            raise AssetsUnavailable(f"`npm pack {name}@{version}` failed:\n{done.stderr.strip()}")
        os.replace(packed[0], tarball)  # atomic: parallel builds never see half a tarball
    return tarball


def _extract(tarball: Path, into: Path, keep: Sequence[str], skip: Sequence[str] = ()) -> None:
    """Extract the members under ``package/<keep>`` (minus ``skip``, maps, ES modules)."""
    with tarfile.open(tarball) as archive:
        members = []
        for member in archive.getmembers():
            inner = member.name.removeprefix("package/")
            if (member.isfile() and inner.startswith(tuple(keep))
                    and not inner.startswith(tuple(skip))
                    and not inner.endswith((".map", ".esm.js"))):
                member.name = inner
                members.append(member)
        archive.extractall(into, members=members, filter="data")


def vendor_assets(out: Path) -> Path:
    """Copy reveal.js (dist, notes plugin) and MathJax 3 (es5) into ``out/_assets``."""
    assets = out / ASSETS
    stamp = assets / "versions.json"
    wanted = json.dumps({"reveal.js": REVEAL[1], "mathjax": MATHJAX[1], "theme": THEME})
    if stamp.is_file() and stamp.read_text() == wanted:
        return assets
    reveal, mathjax = npm_tarball(*REVEAL), npm_tarball(*MATHJAX)
    shutil.rmtree(assets, ignore_errors=True)
    # Only the theme used: several others @import their fonts from a web font service.
    _extract(reveal, assets / "reveal.js", keep=(
        "dist/reveal.", "dist/reset.css", f"dist/theme/{THEME}.css",
        "dist/theme/fonts/source-sans-pro/", "plugin/notes/", "LICENSE"))
    # TeX in, CommonHTML out, and what that component may load on demand (TeX extensions).
    _extract(mathjax, assets / "mathjax", keep=(
        "es5/tex-chtml.js", "es5/input/", "es5/output/chtml", "es5/ui/", "es5/a11y/", "LICENSE"))
    stamp.write_text(wanted)
    return assets


# --------------------------------------------------------------------------- slide structure
#
# A slide is 1280 × 720 pixels. Each markdown cell is cut into its blocks (a paragraph, a list, a
# table, a code example); a heading starts a slide, and blocks and code cells join the current
# slide while their estimated height still fits. A code cell's output that the lesson hides
# (a "predict the output" cell, tagged hide-output) comes on the next slide, after the question.

SLIDE_PX = 600  # estimated content height one slide holds (720 minus margins, with some slack)
PROSE_PX, PROSE_CHARS = 40, 72  # per line of text at the slides' font size
CODE_PX, CODE_CHARS = 36, 74  # per line of code at 24 px (wrapped, never cut)
IMAGE_PX = SLIDES.max_height_px  # the most height a picture is given (CSS max-height)
CONTENT_PX = SLIDES.width_px  # the width between a slide's margins
HEADING_PX = {1: 110, 2: 90, 3: 70}  # per line of a heading, with its margin
HEADING_CHARS = {1: 40, 2: 50, 3: 60}
OUTPUT_GAP_PX = 24  # the padding around each output of a code cell
HTML_LINE = (36, 80)  # per line of a view's summary or table (24 px text, rows padded)
ANSWER = "packlab_answer"  # marks the output of a "predict the output" cell: its own slide


def _text_px(text: str, line_px: int = PROSE_PX, chars: int = PROSE_CHARS) -> int:
    lines = sum(max(1, math.ceil(len(line) / chars)) for line in text.splitlines())
    return lines * line_px + 24


def _heading_level(cell) -> int:
    """1 for `# …`, 2 for `## …`, 3 for `### …`; 0 when a markdown cell does not open with one."""
    if cell.cell_type != "markdown":
        return 0
    first = cell.source.lstrip().split("\n", 1)[0]
    hashes = len(first) - len(first.lstrip("#"))
    return hashes if 0 < hashes <= 6 and first[hashes:hashes + 1] == " " else 0


def markdown_blocks(source: str) -> list[str]:
    """A markdown text's top-level blocks; a block ending in ':' stays with the next one."""
    if source.lstrip().startswith("<details"):
        return [source]  # an answer to open: one block
    lines = source.splitlines()
    spans = [token.map for token in MarkdownIt("commonmark").enable("table").parse(source)
             if token.level == 0 and token.map]
    blocks: list[str] = []
    for first, last in spans:
        text = "\n".join(lines[first:last]).strip()
        if blocks and blocks[-1].endswith(":") and not blocks[-1].startswith("#"):
            blocks[-1] += "\n\n" + text
        elif text:
            blocks.append(text)
    return [piece for block in blocks for piece in _list_screens(block)]


def _list_screens(block: str) -> list[str]:
    """A list too long for one slide, cut between its items (anything else: as it is)."""
    items = re.split(r"\n(?=(?:[-*+]|\d+\.) )", block)
    if len(items) < 2 or _text_px(block) <= SLIDE_PX - max(HEADING_PX.values()):
        return [block]
    screens = [items[0]]
    for item in items[1:]:
        if _text_px(screens[-1] + "\n" + item) > SLIDE_PX - max(HEADING_PX.values()):
            screens.append(item)
        else:
            screens[-1] += "\n" + item
    return screens


def _image_px(data: dict) -> int:
    """The height a PNG output (or an HTML output holding one) takes on a slide."""
    encoded = data.get("image/png") or _first_png(str(data.get("text/html", "")))
    if not encoded:
        return 0
    header = base64.b64decode(encoded[:44])
    width, height = struct.unpack(">II", header[16:24]) if len(header) >= 24 else (1, 0)
    return min(IMAGE_PX, round(height * min(1.0, CONTENT_PX / max(width, 1))))


def _first_png(text: str) -> str | None:
    found = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]{44})", text)
    return found.group(1) if found else None


def _output_px(output: dict) -> int:
    data = output.get("data", {})
    if output.get("output_type") == "stream":
        return _text_px(output.get("text", ""), CODE_PX, CODE_CHARS)
    if "text/html" in data:
        page = re.sub(r"<(br|tr|li|p|div|h\d)\b[^>]*>", "\n", str(data["text/html"]))
        lines = (" ".join(line.split()) for line in re.sub(r"<[^>]+>", " ", page).splitlines())
        return _image_px(data) + _text_px("\n".join(line for line in lines if line), *HTML_LINE)
    if "image/png" in data:
        return _image_px(data)
    return _text_px(str(data.get("text/plain", "")), CODE_PX, CODE_CHARS)


def _height(cell) -> int:
    """Roughly how many pixels of a slide the cell fills (source and outputs)."""
    if cell.cell_type != "code":
        level = _heading_level(cell)
        if level:
            title = cell.source.strip().split("\n", 1)[0]
            return HEADING_PX.get(level, 60) * math.ceil(len(title) / HEADING_CHARS.get(level, 70))
        return _text_px(cell.source)
    shown = 0 if cell.metadata.get("transient", {}).get("remove_source") else _text_px(
        cell.source, CODE_PX, CODE_CHARS)
    return shown + sum(_output_px(output) + OUTPUT_GAP_PX for output in cell.get("outputs", []))


def setup_cell(notebook: nbformat.NotebookNode) -> int | None:
    """The index of the notebook's setup cell: its first code cell, when it imports (the room
    learns nothing from its code on a slide); None when there is none."""
    import ast

    from IPython.core.inputtransformer2 import TransformerManager

    index, cell = next(((i, c) for i, c in enumerate(notebook.cells) if c.cell_type == "code"),
                       (None, None))
    if cell is None:
        return None
    try:  # read as IPython reads it (magics included)
        tree = ast.parse(TransformerManager().transform_cell(cell.source))
    except SyntaxError:
        return None
    return index if any(isinstance(node, ast.Import | ast.ImportFrom) for node in tree.body) \
        else None


def split_source(cell) -> list:
    """A code cell whose code alone is taller than a slide, cut into two cells at its blank line
    nearest the middle (or its middle line): the outputs stay with the second. Any other cell
    as it is."""
    lines = cell.source.splitlines()
    if cell.cell_type != "code" or _text_px(cell.source, CODE_PX, CODE_CHARS) <= SLIDE_PX:
        return [cell]
    blanks = [i for i, line in enumerate(lines) if not line.strip() and 0 < i < len(lines) - 1]
    if len(lines) < 2:
        return [cell]
    # at the blank line nearest the middle, else (one long statement) at the middle line
    cut = min(blanks, key=lambda i: abs(i - len(lines) / 2)) if blanks else len(lines) // 2
    first, second = copy.deepcopy(cell), copy.deepcopy(cell)
    first.source, first.outputs = "\n".join(lines[:cut]), []
    second.source = "\n".join(lines[cut + 1 if blanks else cut:])
    return [*split_source(first), *split_source(second)]


def _is_quiz(cell) -> bool:
    return any(str(output.get("data", {}).get("text/plain", "")).startswith("MultipleChoice")
               for output in cell.get("outputs", []))


def slide_cells(notebook: nbformat.NotebookNode) -> list:
    """The cells a deck shows: markdown cut into blocks, quiz code hidden, hidden outputs moved
    to a cell of their own (shown after the question)."""
    cells, setup = [], setup_cell(notebook)
    for index, cell in enumerate(notebook.cells):
        if index == setup:  # its code is not for the room; what it prints is
            if cell.get("outputs"):
                cell.metadata["transient"] = {"remove_source": True}
                cells += _split_tall(cell)
            continue
        if cell.cell_type == "markdown" and "speaker-notes" not in cell.metadata.get("tags", []):
            cells += [nbformat.v4.new_markdown_cell(block) for block in markdown_blocks(
                cell.source)]
        elif cell.cell_type == "code" and "hide-output" in cell.metadata.get("tags", []):
            answer = copy.deepcopy(cell)
            answer.metadata["transient"] = {"remove_source": True}
            answer.metadata[ANSWER] = True
            cell.outputs = []
            cells += [cell, answer] if answer.outputs else [cell]
        elif _is_quiz(cell):
            cell.metadata["transient"] = {"remove_source": True}
            cells.append(cell)
        else:
            cells += [piece for part in split_source(cell) for piece in _split_tall(
                _picture_apart(_presenter_answer(part)))]
    return cells


def _presenter_answer(cell):
    """A predict question on a slide: its fields, and its answer folded behind a presenter's
    summary (a slide runs no script to judge a prediction; the room predicts aloud)."""
    from packlab.course.predict import PRESENT, unsealed
    from packlab.course.reveal import BOX_STYLE, SUMMARY_STYLE

    for output in cell.get("outputs", []):
        found = unsealed(str(output.get("data", {}).get("text/html", "")))
        if found:
            fields, answer = found
            output.data["text/html"] = (
                f"{fields}<details class='packlab-reveal' style='{BOX_STYLE}'><summary "
                f"class='packlab-reveal-summary' style='{SUMMARY_STYLE}'>{PRESENT}</summary>"
                f"{answer}</details>")
    return cell


def _picture_apart(cell):
    """A view's static rendering cut in outputs: its picture, then the rest (a table, a summary,
    the note), so that a slide too short for all can show them one after the other."""
    if cell.cell_type != "code":
        return cell
    outputs = []
    for output in cell.outputs:
        page = str(output.get("data", {}).get("text/html", ""))
        found = re.fullmatch(r'(<div class="packlab-static">)(<img[^>]*>)(.*)</div>', page,
                             re.DOTALL)
        if not found:
            outputs.append(output)
            continue
        start, picture, rest = found.groups()
        # the rest in its pieces (table, reasons, note): a slide that cannot hold all takes some
        pieces = re.split(r'(?<=</table>)(?=<div>)|(?=<p class="packlab-static-note")', rest)
        for part in (picture, *filter(None, pieces)):
            piece = copy.deepcopy(output)
            piece.data = {"text/html": f"{start}{part}</div>"}
            outputs.append(piece)
    cell.outputs = outputs
    return cell


def _screens(text: str | None) -> list[str | None]:
    """Printed text cut into pieces of one screen each ([None] when there is no text)."""
    if text is None:
        return [None]
    screens, rows, room = [""], 0, SLIDE_PX // CODE_PX - 2
    for line in text.splitlines(keepends=True):
        height = max(1, math.ceil(len(line.rstrip()) / CODE_CHARS))
        if rows + height > room and screens[-1]:
            screens.append("")
            rows = 0
        screens[-1] += line
        rows += height
    return screens


def _split_tall(cell) -> list:
    """A code cell too tall for one slide: its source with the outputs that fit beside it, then
    the other outputs on slides of their own (long printed text cut into screens)."""
    if cell.cell_type != "code" or not cell.outputs or _height(cell) <= SLIDE_PX:
        return [cell]
    pieces = [copy.deepcopy(cell)]
    pieces[0].outputs = []
    while cell.outputs and _height(pieces[0]) + _output_px(cell.outputs[0]) <= SLIDE_PX:
        pieces[0].outputs.append(cell.outputs.pop(0))  # the code and its picture, together
    for output in cell.outputs:
        for text in _screens(output.get("text")):
            piece = nbformat.v4.new_code_cell(metadata={"transient": {"remove_source": True}})
            piece.outputs = [copy.deepcopy(output)]
            if text is not None:
                piece.outputs[0]["text"] = text
            pieces.append(piece)
    return pieces


def _room(notebook, index: int) -> int:
    """The height a slide holds; a little more just after a heading, rather than leave it alone."""
    return SLIDE_PX + (100 if _heading_level(notebook.cells[index - 1]) else 0)


def assign_slides(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Cut the notebook into slides of one screen each: set `slideshow.slide_type`, in place.

    `#`/`##` headings start a slide; `###` and anything that no longer fits start a sub-slide
    (a continuation of the section); a hidden output starts one of its own; speaker notes go to
    reveal.js's notes view.
    """
    notebook.cells = slide_cells(notebook) if notebook.cells else notebook.cells
    used = 0
    for index, cell in enumerate(notebook.cells):
        size, level = _height(cell), _heading_level(cell)
        if "speaker-notes" in cell.metadata.get("tags", []):
            kind = "notes"
        elif index == 0 or level in (1, 2):
            kind, used = "slide", size
        elif level == 3 or cell.metadata.get(ANSWER) or used + size > _room(notebook, index):
            kind, used = "subslide", size
        else:
            kind, used = "-", used + size
        cell.metadata["slideshow"] = {"slide_type": kind}
    return notebook


# --------------------------------------------------------------------------- widget stills


def _widget_states(notebook) -> dict[str, dict]:
    return notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def _buffer(model: dict, name: str) -> bytes | None:
    for buffer in model.get("buffers", []):
        if buffer.get("path") == [name]:
            return base64.b64decode(buffer["data"])
    value = model.get("state", {}).get(name)
    return value.encode("latin-1") if isinstance(value, str) and value else None


def _labelled(state: dict, inner: str) -> str:
    label = state.get("description") or ""
    label = f'<span class="packlab-still-label">{html.escape(label)}</span> ' if label else ""
    return f'<div class="packlab-still-row">{label}{inner}</div>'


def _render_output(output: dict) -> str:
    data = output.get("data", {})
    if output.get("output_type") == "stream":
        return f"<pre>{html.escape(output.get('text', ''))}</pre>"
    if "image/png" in data:
        return f'<img alt="figure" src="data:image/png;base64,{data["image/png"]}">'
    if "text/html" in data:
        return str(data["text/html"])
    if "text/plain" in data:
        return f"<pre>{html.escape(str(data['text/plain']))}</pre>"
    return ""


def render_widget(model_id: str, states: dict[str, dict], depth: int = 0) -> str:
    """Static HTML for a widget in the state it was saved in (boxes, images, HTML, controls)."""
    model = states.get(model_id)
    if model is None or depth > 20:
        return ""
    state = model.get("state", {})
    name = model.get("model_name") or state.get("_model_name", "")
    if name in ("VBoxModel", "BoxModel", "GridBoxModel", "HBoxModel", "AccordionModel",
                "TabModel", "StackModel"):
        direction = "row" if name == "HBoxModel" else "column"
        children = "".join(render_widget(child.removeprefix("IPY_MODEL_"), states, depth + 1)
                           for child in state.get("children", []))
        return (f'<div style="display:flex;flex-direction:{direction};flex-wrap:wrap;'
                f'gap:6px">{children}</div>')
    if name == "ImageModel":
        data = _buffer(model, "value")
        if not data:
            return ""
        kind = html.escape(state.get("format", "png"))
        encoded = base64.b64encode(data).decode("ascii")
        return f'<img alt="widget figure" src="data:image/{kind};base64,{encoded}">'
    if name in ("HTMLModel", "HTMLMathModel"):
        return _labelled(state, f"<div>{state.get('value', '')}</div>")
    if name == "LabelModel":
        return _labelled(state, html.escape(str(state.get("value", ""))))
    if name.endswith("SliderModel"):
        if "_options_labels" in state:
            labels = state["_options_labels"]
            index = state.get("index", 0)
            index = index[0] if isinstance(index, list) else index
            value, low, high = labels[index] if labels else "", 0, max(len(labels) - 1, 0)
            at = index
        else:
            value, low, high = state.get("value"), state.get("min", 0), state.get("max", 100)
            at = value[0] if isinstance(value, list) else value
        slider = (f'<input type="range" disabled min="{html.escape(str(low))}" '
                  f'max="{html.escape(str(high))}" value="{html.escape(str(at))}">')
        return _labelled(state, f"{slider} <b>{html.escape(str(value))}</b>")
    if name in ("RadioButtonsModel", "DropdownModel", "SelectModel", "ToggleButtonsModel",
                "SelectMultipleModel"):
        picked = state.get("index")
        rows = "".join(
            f'<li>{"◉" if i == picked else "○"} {html.escape(str(label))}</li>'
            for i, label in enumerate(state.get("_options_labels", [])))
        return _labelled(state, f'<ul class="packlab-still-options">{rows}</ul>')
    if name in ("ButtonModel", "ToggleButtonModel"):
        return f"<button disabled>{html.escape(state.get('description', ''))}</button>"
    if name in ("CheckboxModel",):
        mark = "☑" if state.get("value") else "☐"
        return _labelled(state, mark)
    if name in ("TextModel", "TextareaModel", "IntTextModel", "FloatTextModel",
                "BoundedIntTextModel", "BoundedFloatTextModel"):
        return _labelled(state, f"<code>{html.escape(str(state.get('value', '')))}</code>")
    if name == "OutputModel":
        return "".join(_render_output(output) for output in state.get("outputs", []))
    return ""


def still_widgets(notebook: nbformat.NotebookNode) -> int:
    """Replace every widget output by a still of its saved state; drop the widget state.

    A view that already renders itself for static pages (``packlab-static`` HTML in its bundle)
    keeps that rendering. Returns the number of widget outputs handled. Without this the
    exporter would load the widget manager from a CDN, and a slide cannot run a kernel anyway.
    """
    states = _widget_states(notebook)
    count = 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            view = data.pop(WIDGET_VIEW)
            count += 1
            if "packlab-static" in str(data.get("text/html", "")):
                continue  # the view drew itself for static pages (packlab.views.static): keep it
            body = render_widget(view.get("model_id", ""), states)
            if body:
                data["text/html"] = (f'<div class="packlab-still">{body}'
                                     f'<p class="packlab-still-note">{STILL_NOTE}</p></div>')
    notebook.metadata.pop("widgets", None)
    return count


# --------------------------------------------------------------------------- build


TEMPLATE = r"""{%- extends 'reveal/index.html.j2' -%}
{#- packlab: the reveal template with every asset local (see packlab/slides.py). -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}
<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
        processEscapes: true},
  options: {enableMenu: false}
};
</script>
<script defer src="{{ resources.packlab.assets }}/mathjax/es5/tex-chtml.js"></script>
{%- endblock html_head_js_mathjax -%}
{%- block html_head_css -%}
<style type="text/css">
.reveal .slides section > section, .reveal .slides > section:not(.stack) {
  height: 100%; box-sizing: border-box; padding: 24px 48px; overflow: auto; text-align: left;
}
.reveal { font-size: 30px; }
.reveal .jp-RenderedMarkdown { font-size: 28px; line-height: 1.4; }
.reveal .slides section .jp-Cell { text-align: left; }
.reveal .slides h1, .reveal .slides h2, .reveal .slides h3 {
  text-transform: none; margin-bottom: 16px;
}
.reveal h1 { font-size: 54px; } .reveal h2 { font-size: 44px; } .reveal h3 { font-size: 36px; }
.reveal p, .reveal ul, .reveal ol, .reveal table { margin: 0 0 14px; }
.reveal pre, .reveal .jp-InputArea-editor pre, .reveal .jp-OutputArea-output pre,
.reveal .cm-editor {
  font-size: 24px !important; line-height: 1.25; white-space: pre-wrap;
  overflow-wrap: break-word; word-break: normal;  /* inside a word only when it is too long */
  width: 100%; box-shadow: none; margin: 0;
}
.reveal code { font-size: max(0.9em, 24px); }
/* Code is never under 24 px: the theme's and JupyterLab's own sizes (19 px) come after these. */
.reveal pre code, .reveal pre span { font-size: 1em !important; }
.reveal details.packlab-reveal > summary { font-size: 24px; }
.reveal .jp-RenderedHTMLCommon table { font-size: 24px; }
.reveal .slides img { max-width: 100%; max-height: {{ resources.packlab.image_px }}px !important;
  width: auto; margin: 0; }
.reveal .packlab-static-note, .packlab-still-note { font-size: 24px !important; }
.reveal .packlab-static, .reveal .packlab-still { font-size: 24px; line-height: 1.3; }
.reveal .packlab-static table { font-size: 24px !important; margin: 0; }
.reveal .packlab-static code, .reveal .packlab-still code { font-size: 1em; }
.reveal .packlab-static [style*="font-size"] { font-size: 24px !important; }
.reveal .packlab-predict, .reveal .packlab-predict *, .reveal details.packlab-reveal,
.reveal details.packlab-reveal * { font-size: 24px !important; }
.reveal .packlab-predict p, .reveal .packlab-predict fieldset { margin: 2px 0; padding: 0 4px; }
.reveal .packlab-predict fieldset label { display: inline-block !important; margin-right: 1em; }
.packlab-still { border-left: 4px solid #0072b2; padding-left: 10px; }
.packlab-still-note { color: #555; margin: 4px 0; }
.packlab-still-row { display: flex; align-items: center; gap: 8px; }
.packlab-still-row input[type=range] { flex: 1; }
.packlab-still-options { list-style: none; margin: 0; padding-left: 0; }
</style>
{%- endblock html_head_css -%}
{%- block footer_js -%}
<script src="{{ resources.reveal.url_prefix }}/dist/reveal.js"></script>
<script src="{{ resources.reveal.url_prefix }}/plugin/notes/notes.js"></script>
<script>
Reveal.initialize({
  controls: true, progress: true, history: true, hash: true, center: false, margin: 0,
  navigationMode: "linear",
  transition: "{{ resources.reveal.transition or 'slide' }}",
  slideNumber: "{{ resources.reveal.number or 'c/t' }}",
  width: {{ resources.reveal.width or 1280 }}, height: {{ resources.reveal.height or 720 }},
  plugins: [RevealNotes]
});
</script>
{%- endblock footer_js -%}
"""

TEMPLATE_NAME = "packlab_slides"


def write_template(folder: Path) -> Path:
    """The template folder (nbconvert's `extra_template_basedirs`) holding `packlab_slides`."""
    template = folder / TEMPLATE_NAME
    template.mkdir(parents=True, exist_ok=True)
    (template / "index.html.j2").write_text(TEMPLATE, encoding="utf-8")
    (template / "conf.json").write_text(json.dumps(
        {"base_template": "reveal", "mimetypes": {"text/html": True}}), encoding="utf-8")
    return folder


def execute(path: Path, workdir: Path) -> nbformat.NotebookNode:
    """An executed copy of the notebook at ``path``, run with ``workdir`` as its folder."""
    from packlab.course.kernels import notebook_client

    notebook = nbformat.read(path, as_version=4)
    # Drawn for a slide: as wide as its content, no text under 24 px (plots.SLIDES).
    env = {**os.environ, **SLIDES.environment()}
    notebook_client(notebook, timeout=CELL_SECONDS, kernel_name="python3",
                    store_widget_state=True,
                    resources={"metadata": {"path": str(workdir)}}).execute(env=env)
    return notebook


def add_notes(notebook: nbformat.NotebookNode, by_key: dict[str, str]) -> int:
    """Give every slide and sub-slide the note of its section (`packlab.course.notes`): a
    notes cell after the cell that starts it. The notebook's own notes cells are replaced (they
    are in ``by_key``). Returns the number of slides given a note."""
    cells = [cell for cell in notebook.cells if not notes.is_note(cell)]
    shown = notes.section_notes(nbformat.v4.new_notebook(cells=cells), by_key)
    notebook.cells, given = [], 0
    for cell, note in zip(cells, shown, strict=True):
        notebook.cells.append(cell)
        starts = cell.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide")
        if starts and note:
            notebook.cells.append(nbformat.v4.new_markdown_cell(note, metadata={
                "tags": [notes.TAG], "slideshow": {"slide_type": "notes"}}))
            given += 1
    return given


def export(notebook: nbformat.NotebookNode, name: str, out: Path, templates: Path,
           speaker_notes: dict[str, str] | None = None) -> Path:
    """Write ``out/<name>.slides.html`` from an executed notebook (copied, then changed); each
    slide gets the note of its section from ``speaker_notes`` (default: the notebook's own)."""
    from nbconvert import SlidesExporter

    notebook = nbformat.from_dict(json.loads(json.dumps(notebook)))
    by_key = notes.notebook_notes(notebook) if speaker_notes is None else speaker_notes
    still_widgets(notebook)
    assign_slides(notebook)
    add_notes(notebook, by_key)
    exporter = SlidesExporter(
        extra_template_basedirs=[str(templates)], template_name=TEMPLATE_NAME,
        reveal_url_prefix=f"{ASSETS}/reveal.js", reveal_theme=THEME, reveal_number="c/t",
        reveal_width="1280", reveal_height="720",
        exclude_input_prompt=True, exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(
        notebook, resources={"metadata": {"name": name},
                             "packlab": {"assets": ASSETS, "image_px": IMAGE_PX}})
    target = out / f"{name}.slides.html"
    target.write_text(body, encoding="utf-8")
    return target


PRESENTER_DECK = "presenter"  # the presenter's notebook (workshop/presenter.ipynb) as a deck


def build_lesson(lesson: Lesson, out: Path, templates: Path) -> Path:
    with tempfile.TemporaryDirectory(prefix=f"packlab-slides-{lesson.slug[:2]}-") as workdir:
        notebook = execute(lesson.path, Path(workdir))
    notebook.metadata["title"] = lesson.title
    return export(notebook, lesson.slug, out, templates, notes.lesson_notes(lesson.slug))


def build_presenter(out: Path, templates: Path) -> Path:
    """The presenter's notebook as a deck of its own, its speaker notes in the speaker view."""
    from packlab.course.workshop import PRESENTER

    with tempfile.TemporaryDirectory(prefix="packlab-slides-presenter-") as workdir:
        notebook = execute(PRESENTER, Path(workdir))
    notebook.metadata["title"] = "Packing the context window, live"
    return export(notebook, PRESENTER_DECK, out, templates)


def _build_one(lesson: Lesson | None, out: Path, templates: Path) -> Path:
    """One deck: a lesson's, or the presenter's (None)."""
    if lesson is None:
        return build_presenter(out, templates)
    return build_lesson(lesson, out, templates)


def index_page(lessons: Sequence[Lesson], built: Sequence[Path], title: str) -> str:
    names = {path.name for path in built}
    rows = "\n".join(
        f'<li><a href="{lesson.slug}.slides.html">{html.escape(lesson.title)}</a></li>'
        for lesson in lessons if f"{lesson.slug}.slides.html" in names)
    workshop = (f'<p>The workshop: <a href="{PRESENTER_DECK}.slides.html">the presenter\'s '
                "notebook</a>, 45 minutes (<code>make demo</code> drives it live).</p>"
                if f"{PRESENTER_DECK}.slides.html" in names else "")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}: slides</title></head>\n"
            f'<body style="font-family:sans-serif;font-size:20px;max-width:50em;margin:2em auto">'
            f"<h1>{html.escape(title)}: slides</h1>\n{workshop}<ol>\n{rows}\n</ol>\n"
            "<p>Arrow keys or the space bar move from slide to slide, <kbd>S</kbd> "
            "opens the speaker view with each slide's notes, <kbd>Esc</kbd> the overview. The "
            "widgets are stills: <code>make demo</code> or <code>make lab</code> to drive them "
            "live.</p></body></html>\n")


def select(keys: Iterable[str]) -> list[Lesson]:
    lessons = list(load().lessons)
    keys = list(keys)
    if not keys:
        return lessons
    chosen = []
    for key in keys:
        found = [lesson for lesson in lessons if lesson.slug == key or lesson.slug[:2] == key
                 or lesson.slug.startswith(key)]
        if len(found) != 1:
            raise KeyError(f"No single lesson matches {key!r}: give its number, e.g. 02.")
        chosen.append(found[0])
    return chosen


def build(lessons: Sequence[Lesson] | None = None, out: Path = OUT,
          jobs: int | None = None, presenter: bool | None = None) -> list[Path]:
    """Build the slides of ``lessons`` (default: all, and the presenter's deck) into ``out``;
    return the HTML files, the presenter's deck last."""
    presenter = lessons is None if presenter is None else presenter
    lessons = [*(load().lessons if lessons is None else lessons), *([None] if presenter else [])]
    out.mkdir(parents=True, exist_ok=True)
    vendor_assets(out)
    with tempfile.TemporaryDirectory(prefix="packlab-slide-templates-") as scratch:
        templates = write_template(Path(scratch))
        jobs = max(1, min(jobs or os.cpu_count() or 1, len(lessons)))
        if jobs == 1:
            built = [_build_one(lesson, out, templates) for lesson in lessons]
        else:
            # spawn, not fork: the caller may have threads (a test runner, a server)
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
                built = list(pool.map(_build_one, lessons, [out] * len(lessons),
                                      [templates] * len(lessons)))
    (out / "index.html").write_text(index_page(load().lessons, sorted(out.glob("*.slides.html")),
                                               load().title), encoding="utf-8")
    return built


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m packlab.course.slides",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers or slugs (default: all)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT}")
    parser.add_argument("--jobs", type=int, default=None, help="lessons built at once")
    args = parser.parse_args(argv)
    try:
        lessons = select(args.lessons)
        built = build(lessons, args.out, args.jobs, presenter=not args.lessons)
    except (KeyError, AssetsUnavailable) as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    for path in built:
        print(f"wrote {path}")
    print(f"open {args.out / 'index.html'} (works offline: reveal.js and MathJax are in "
          f"{args.out / ASSETS})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
