"""Every picture the course shows can be read wherever it is drawn — in the book, in the
presenter's JupyterLab (`make demo`) and on slides (`make slides`): no label overlaps another or
runs off the picture, no legend lies on the data, and no text is smaller than the place allows
(9 pt in the book, 18 px on the projector, 24 px on a 1280 × 720 slide).

The pictures are found where the course shows them: each lesson, and the presenter's notebook, is
run here in-process as a kernel runs it (IPython), and every object a cell displays is formatted as
it is for the book. A view's static rendering makes each of its pictures with
`packlab.views.static.figure_img`, which is watched; a plot displayed as itself shows its own
``figure``. A picture added to a lesson is checked without a change here, and a picture made any
other way fails the test.

In the built book (slow; it shares the book's build with test_book.py), chromium checks the rest:
each picture is shown at least as wide as assumed here, and the text of the views' HTML
renderings (token boxes, tables, summaries, quizzes) is at least 9 pt and never overlaps.
"""

from __future__ import annotations

import io
import itertools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from browser import chromium, require_browser, screenshot_path, static_server
from conftest import COURSE
from matplotlib.collections import Collection
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from packlab.course.workshop import PRESENTER
from packlab.views import plots, static

SMALLEST_PT = 9  # the smallest label the book may show, in CSS points (1/72 of a CSS inch)
CSS_PX_PER_INCH = 96
NOTEBOOKS = [lesson.path for lesson in COURSE.lessons] + [PRESENTER]


@dataclass
class Picture:
    where: str
    figure: Figure


# Where the course draws its pictures: the canvas the kernel is told about, the widest a picture
# is shown there (CSS pixels) and the smallest text allowed there (CSS pixels as shown).
@dataclass(frozen=True)
class Place:
    name: str
    canvas: plots.Canvas
    shown_px: float
    smallest_px: float


BOOK = Place("book", plots.Canvas(), static.BOOK_WIDTH_PX, SMALLEST_PT * CSS_PX_PER_INCH / 72)
PLACES = [BOOK,
          Place("demo", plots.DEMO, 1100, 18),  # JupyterLab's output area, sidebar folded
          Place("slides", plots.SLIDES, 1184, 24)]  # a slide's width between its margins


def book_scale(figure: Figure) -> float:
    """CSS points per point of the figure's fonts, as the book shows it: at its own size in
    pixels (one pixel a CSS pixel), shrunk to the book's column when it is wider."""
    inches = figure.get_figwidth()
    shown_px = min(inches * figure.dpi, static.BOOK_WIDTH_PX)
    return shown_px / (CSS_PX_PER_INCH * inches)


def labels(figure: Figure, png: Path | None = None) -> dict[Text, Bbox]:
    """The texts a full drawing of ``figure`` paints (moving ones too), with their boxes; the
    drawing is saved as ``png`` when given."""
    drawn: dict[Text, Bbox] = {}
    draw = Text.draw

    def record(text: Text, renderer) -> None:
        draw(text, renderer)
        if text.get_visible() and text.get_text().strip():
            # A text with wrap=True is drawn wrapped, but measured as one line unless told.
            with text._cm_set(text=text._get_wrapped_text()):
                drawn[text] = text.get_window_extent(renderer)

    with mock.patch.object(Text, "draw", record):
        # Unlike canvas.draw(), printing paints the animated artists too.
        figure.canvas.print_png(png or io.BytesIO())
    return drawn


def overlap(a: Bbox, b: Bbox) -> bool:
    """True when the boxes share more than a sliver (half a pixel each way)."""
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5
            and min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5)


def shown_size(text: Text, figure: Figure, place: Place) -> float:
    """The text's size as shown: CSS points in the book, CSS pixels elsewhere."""
    if place is BOOK:
        return text.get_fontsize() * book_scale(figure)
    shrink = min(1.0, place.shown_px / figure.bbox.width)
    return text.get_fontsize() * figure.dpi / 72 * shrink


def problems(picture: Picture, png: Path | None = None, place: Place = BOOK) -> list[str]:
    """What cannot be read in ``picture``: labels too small, overlapping or cut off, legends
    lying on the data."""
    figure = picture.figure
    boxes = labels(figure, png)
    edges = figure.bbox.padded(1)
    found = []
    unit, smallest = ("pt", SMALLEST_PT) if place is BOOK else ("px", place.smallest_px)
    for text, box in boxes.items():
        shown = shown_size(text, figure, place)
        if shown < smallest - 1e-6:
            found.append(f"{text.get_text()!r} is {shown:.2f} {unit} in the {place.name} "
                         f"({text.get_fontsize():g} pt in a {figure.get_figwidth():g}-inch figure)")
        if not (edges.contains(box.x0, box.y0) and edges.contains(box.x1, box.y1)):
            found.append(f"{text.get_text()!r} runs off the picture")
    for (a, box_a), (b, box_b) in itertools.combinations(boxes.items(), 2):
        if overlap(box_a, box_b):
            found.append(f"{a.get_text()!r} overlaps {b.get_text()!r}")
    found += legends_on_data(figure)
    return [f"{picture.where} ({place.name}): {problem}" for problem in found]


def legends_on_data(figure: Figure) -> list[str]:
    """Each legend whose box covers a drawn line (any point of it), bar, patch or filled area.

    Call after a drawing (`labels`), so that every extent is where the picture shows it.
    """
    renderer = figure.canvas.get_renderer()
    legends = [*figure.legends, *(ax.get_legend() for ax in figure.axes)]
    found = []
    for legend in filter(None, legends):
        box = legend.get_window_extent(renderer)
        for ax in figure.axes:
            for artist in ax.get_children():
                if not artist.get_visible() or isinstance(artist, Legend) or artist is ax.patch:
                    continue
                if _covers(box, artist, ax, renderer):
                    found.append(f"the legend ({', '.join(t.get_text() for t in legend.texts)})"
                                 f" lies on {_name(artist)}")
    return found


def _covers(box: Bbox, artist, ax, renderer) -> bool:
    """True when ``box`` covers a part of the data ``artist`` draws (clipped to its axes)."""
    clip = ax.bbox
    if isinstance(artist, Line2D):
        path = artist.get_transform().transform_path(artist.get_path())
        points = _dense(path.vertices)
        if not len(points):
            return False
        inside = ((points[:, 0] >= clip.x0) & (points[:, 0] <= clip.x1)
                  & (points[:, 1] >= clip.y0) & (points[:, 1] <= clip.y1))
        points = points[inside]
        return bool(np.any(
            (points[:, 0] > box.x0 + 0.5) & (points[:, 0] < box.x1 - 0.5)
            & (points[:, 1] > box.y0 + 0.5) & (points[:, 1] < box.y1 - 0.5)))
    if isinstance(artist, (Patch, Collection)):
        return any(overlap(box, shown) for extent in _patch_boxes(artist, renderer)
                   if (shown := Bbox.intersection(extent, clip)) is not None)
    return False


def _dense(vertices: np.ndarray, step: float = 2.0) -> np.ndarray:
    """The points of a polyline every ``step`` pixels (NaN gaps dropped)."""
    vertices = vertices[np.isfinite(vertices).all(axis=1)]
    if len(vertices) < 2:
        return vertices
    pieces = [vertices[:1]]
    for start, end in itertools.pairwise(vertices):
        count = max(1, int(np.hypot(*(end - start)) / step))
        pieces.append(start + (end - start) * np.linspace(0, 1, count + 1)[1:, None])
    return np.concatenate(pieces)


def _patch_boxes(artist, renderer) -> list[Bbox]:
    """The boxes of what a patch or collection paints (each path of a collection apart)."""
    if isinstance(artist, Patch):
        path = artist.get_path()
        if not path.vertices.size:
            return []
        return [artist.get_window_extent(renderer)]
    transform = artist.get_transform()
    return [transform.transform_path(path).get_extents() for path in artist.get_paths()
            if path.vertices.size]


def _name(artist) -> str:
    label = str(artist.get_label() if hasattr(artist, "get_label") else "")
    return f"a {type(artist).__name__}" + ("" if label.startswith("_") else f" {label!r}")


# ---------------------------------------------------------------------------------------------
# Running a notebook as the book's kernel does, and catching the pictures it shows
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """One IPython shell for the module: no history file, nothing written to the home folder."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    with pytest.MonkeyPatch.context() as patch:
        # The shell replaces these for the whole process; give them back afterwards (a later
        # test's multiprocessing needs the real __main__).
        patch.setitem(sys.modules, "__main__", sys.modules["__main__"])
        for hook in ("displayhook", "excepthook"):
            patch.setattr(sys, hook, getattr(sys, hook))
        patch.setenv("IPYTHONDIR", str(tmp_path_factory.mktemp("ipython")))
        config = Config()
        config.HistoryManager.enabled = False
        made = InteractiveShell.instance(config=config)
        yield made
        InteractiveShell.clear_instance()


def shown_pictures(shell, notebook: Path, monkeypatch) -> list[Picture]:
    """Run ``notebook`` top to bottom in ``shell``; the pictures its cells display, as the book
    shows them."""
    import nbformat

    pictures: list[Picture] = []
    made_by_static: list[Figure] = []
    where = notebook.name
    figure_img = static.figure_img
    format_bundle = shell.display_formatter.format

    def watched_figure_img(figure: Figure, *args, **kwargs) -> str:
        made_by_static.append(figure)
        return figure_img(figure, *args, **kwargs)

    def watched_format(obj, *args, **kwargs):
        made_by_static.clear()
        data, metadata = format_bundle(obj, *args, **kwargs)
        figures = list(made_by_static)
        own = obj if isinstance(obj, Figure) else getattr(obj, "figure", None)
        if isinstance(own, Figure) and "image/png" in data:
            figures.append(own)
        images = data.get("text/html", "").count("data:image/png") + ("image/png" in data)
        assert images == len(figures), (
            f"{where}: a {type(obj).__name__} shows {images} picture(s), {len(figures)} of them "
            "made by static.figure_img or a plot's own figure: make every picture there")
        pictures.extend(Picture(f"{where}, {type(obj).__name__} #{len(pictures) + i + 1}", f)
                        for i, f in enumerate(figures))
        return data, metadata

    monkeypatch.setattr(static, "figure_img", watched_figure_img)
    monkeypatch.setattr(shell.display_formatter, "format", watched_format)
    monkeypatch.chdir(notebook.parent)
    shell.reset(new_session=False)
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        if cell.cell_type == "code":
            where = f"{notebook.name} cell {index}"
            shell.run_cell(cell.source, store_history=False).raise_error()
    return pictures


@pytest.mark.parametrize("place", PLACES, ids=lambda place: place.name)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_label_is_readable_wherever_the_course_draws_it(shell, notebook, place,
                                                                 monkeypatch):
    for name in (plots.SCALE_VARIABLE, plots.WIDTH_VARIABLE, plots.HEIGHT_VARIABLE):
        monkeypatch.delenv(name, raising=False)
    for name, value in place.canvas.environment().items():
        monkeypatch.setenv(name, value)
    pictures = shown_pictures(shell, notebook, monkeypatch)
    if "packlab.views" in notebook.read_text(encoding="utf-8"):  # the search above finds them
        assert pictures, f"{notebook.name} uses packlab.views, yet no picture was found"
    found = []
    for number, picture in enumerate(pictures, start=1):
        # The pictures as checked, for a person to look at: test-artifacts/screenshots/.
        name = f"static-{notebook.stem}-{number}" + ("" if place is BOOK else f"-{place.name}")
        found += problems(picture, screenshot_path(name), place)
    assert not found, f"{len(found)} unreadable label(s):\n" + "\n".join(found)


def test_the_canvas_comes_from_the_environment_and_bad_values_fall_back(monkeypatch):
    for name, value in plots.SLIDES.environment().items():
        monkeypatch.setenv(name, value)
    assert plots.canvas() == plots.SLIDES
    figure = plots.new_figure(static.BOOK_INCHES, 4.2)
    assert (figure.bbox.width, figure.bbox.height) == (1184, 520)  # as wide as a slide's content
    monkeypatch.setenv(plots.SCALE_VARIABLE, "huge")
    monkeypatch.setenv(plots.WIDTH_VARIABLE, "-5")
    monkeypatch.delenv(plots.HEIGHT_VARIABLE)
    assert plots.canvas() == plots.Canvas(1.0, 300, None)  # the narrowest width allowed


def test_a_drop_curves_title_names_the_budgets_its_markers_show():
    """The static drop curve marks the curve's points nearest to 75 %, 50 %, 25 % and 10 % of all
    tokens; its title lists those points' own shares, as their markers do (49 %, not 50 %)."""
    import re

    from packlab.packing.examples import chat_parts
    from packlab.views.widgets import drop_curve_view

    view = drop_curve_view(chat_parts())
    n, total = view.plot.n, view.plot.total
    marked = static._marked(view.curve, total, static.CURVE_FRACTIONS)
    figure = static.curve_figure(view.curve, n, total, marked)
    ax = figure.axes[0]
    markers = [re.match(r"\d+%", text.get_text()).group() for text in ax.texts]
    title = re.search(r"marked: (.*) of all tokens", ax.get_title("left")).group(1)
    assert title.split(", ") == markers
    assert markers != [f"{f:.0%}" for f in static.CURVE_FRACTIONS]  # this curve has no 50 % point


def test_the_legend_check_finds_a_legend_on_the_data():
    """A legend put on purpose where the curve or a bar is drawn is caught; aside, it is not."""
    figure = plots.new_figure(6, 3)
    ax = figure.subplots()
    ax.plot([0, 1], [0.9, 0.9], label="a curve")
    ax.bar([0.5], [0.2], width=0.2, label="a bar")
    ax.set_ylim(0, 1)
    for where, expected in (("upper left", "Line2D 'a curve'"), ("center left", None),
                            ("lower center", "Rectangle")):
        ax.legend(loc=where)
        labels(figure)
        found = legends_on_data(figure)
        assert any(expected in p for p in found) if expected else not found, (where, found)


# ---------------------------------------------------------------------------------------------
# In the built book: every picture shown at least as large as assumed above, and the views'
# HTML renderings (tokens, tables, summaries, quizzes) in text that is large enough and apart
# ---------------------------------------------------------------------------------------------

SMALLEST_PX = SMALLEST_PT * CSS_PX_PER_INCH / 72  # 9 pt is 12 CSS pixels

READABLE = """async ([bookWidth, smallestPx]) => {
    const problems = [];
    const main = document.querySelector('main') || document.body;
    const images = [...main.querySelectorAll('img')];
    await Promise.all(images.map(img => img.complete ? null
        : new Promise(done => { img.onload = done; img.onerror = done; })));
    for (const img of images.filter(img => img.naturalWidth >= 100)) {
        const shown = img.getBoundingClientRect().width;
        if (shown < Math.min(img.naturalWidth, bookWidth) - 1)
            problems.push(`a picture ${img.naturalWidth} px wide is shown ${shown.toFixed(0)} px`
                          + ` wide, narrower than ${bookWidth} px`);
    }
    const blocks = [...main.querySelectorAll('.packlab-static')];
    blocks.forEach((block, index) => {
        const where = `static rendering ${index + 1}`;
        const boxes = [];
        const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent.trim();
            const style = getComputedStyle(node.parentElement);
            const range = document.createRange();
            range.selectNodeContents(node);
            const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
            // checkVisibility: false inside a closed <details> too, whose text has boxes
            const seen = node.parentElement.checkVisibility({visibilityProperty: true});
            if (!text || !seen || !rects.length) continue;
            const px = parseFloat(style.fontSize);
            if (px < smallestPx - 0.01)
                problems.push(`${where}: "${text.slice(0, 40)}" is ${(px * 0.75).toFixed(1)} pt`);
            rects.forEach(rect => boxes.push({text, rect}));
        }
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [a, b] = [boxes[i].rect, boxes[j].rect];
            const wide = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const high = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (wide > 0.5 && high > 0.5)
                problems.push(`${where}: "${boxes[i].text.slice(0, 30)}" overlaps`
                              + ` "${boxes[j].text.slice(0, 30)}"`);
        }
    });
    return problems;
}"""

# A page made to fail: the check above must find a small text and two texts on top of each other.
FAILING_PAGE = """<main><div class="packlab-static">
<span style="font-size:10px">tiny</span>
<span style="position:absolute;left:20px;top:40px">first</span>
<span style="position:absolute;left:24px;top:42px">second</span></div></main>"""


@pytest.fixture(scope="module")
def book_html(request) -> Path:
    """The HTML root of the built book (``PACKLAB_BOOK_HTML``, or built once per session)."""
    require_browser()  # before paying for a build
    given = os.environ.get("PACKLAB_BOOK_HTML")
    return Path(given) if given else request.getfixturevalue("built_book")


@pytest.mark.slow
@pytest.mark.xdist_group("book")  # one book build, shared with test_book.py
def test_the_book_shows_every_picture_and_rendering_readably(book_html):
    found = {}
    with static_server(book_html) as base, chromium() as context:
        page = context.new_page()  # 1280 pixels wide, where BOOK_WIDTH_PX was measured
        page.set_content(FAILING_PAGE)
        caught = page.evaluate(READABLE, [static.BOOK_WIDTH_PX, SMALLEST_PX])
        assert any("tiny" in p for p in caught) and any("overlaps" in p for p in caught), caught
        for lesson in COURSE.lessons:
            page.goto(f"{base}/lessons/{lesson.path.stem}.html")
            found[lesson.slug] = page.evaluate(READABLE, [static.BOOK_WIDTH_PX, SMALLEST_PX])
        page.goto(f"{base}/lessons/{COURSE.lessons[-1].path.stem}.html")
        page.locator(".packlab-static").first.screenshot(path=screenshot_path("book-turn-view"))
    problems = [f"{slug}: {problem}" for slug, found_there in found.items()
                for problem in found_there]
    assert not problems, "\n".join(problems)
