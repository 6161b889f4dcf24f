"""The built book in a real browser: every page loads offline, cleanly, with its links and figures.

The book is built by `packlab.course.book.build(out_dir)` (what `make book` runs) into a temporary
folder, or taken from ``PACKLAB_BOOK_HTML`` when that names an already built HTML root. It is
served by ``python -m http.server`` on a loopback port and every ``.html`` page is opened in
headless Chromium. Any request for a URL off this machine is blocked and reported: a page that
needs a CDN (MathJax, fonts, widget scripts) does not render offline, so it fails here.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browser import (
    AT_REST,
    VIEWPORT,
    chromium,
    chromium_process,
    is_loopback,
    require_browser,
    screenshot_path,
    static_server,
)

from packlab.manifest import load

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("book")]

COURSE = load()
MIN_FIGURE_PX = 100  # narrower images are icons and logos, not figures

IMAGES = """async () => {
    const main = document.querySelector('main') || document.body;
    const images = [...document.images];
    for (const img of images) if (img.loading === 'lazy') img.loading = 'eager';
    await Promise.all(images.map(img => img.complete ? null : new Promise(done => {
        img.addEventListener('load', done);
        img.addEventListener('error', done);
        setTimeout(done, 15000);
    })));
    const shown = (element) => {
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        return style.visibility !== 'hidden' && style.display !== 'none'
               && box.width > 0 && box.height > 0;
    };
    return {
        images: images.map(img => {
            const src = img.currentSrc || img.src;
            return {
                src: src.length > 80 ? src.slice(0, 80) + '…' : src,
                natural: img.naturalWidth,
                inMain: main.contains(img),
                visible: shown(img),
            };
        }),
        // A widget's static rendering (src/packlab/views/static.py): a picture or a table, and a
        // note.
        statics: [...main.querySelectorAll('.packlab-static')].map(block => {
            const note = block.querySelector('.packlab-static-note');
            return {visible: shown(block), note: note && shown(note) ? note.textContent : ''};
        }),
    };
}"""

LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.href)"

# A printed table: at least two lines with columns (a run of spaces between two words).
TABULAR = """(pre) => {
    const lines = pre.textContent.split('\\n').filter(line => line.trim());
    return lines.length >= 2 && lines.filter(line => /\\S {2,}\\S/.test(line.trim())).length >= 2;
}"""
# Every <pre> (code block or printed output) wider than its box: its end is out of sight. A box
# that scrolls sideways counts too: its scroll bar is hidden until hovered, so the intro's
# `make lab` line looked cut off. Only a printed table may scroll (issue 21: its lines must not
# wrap); the phone tests below check that it does, inside its own box.
OVERFLOWING = f"""() => {{
    const tabular = {TABULAR};
    const scrolls = (pre) => getComputedStyle(pre).whiteSpace === 'pre'
        && ['auto', 'scroll'].includes(getComputedStyle(pre).overflowX);
    return [...document.querySelectorAll('main pre')]
        .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
        .filter(pre => !(tabular(pre) && scrolls(pre)))
        .map(pre => pre.scrollWidth + '>' + pre.clientWidth + ' px: '
                    + pre.textContent.slice(0, 50));
}}"""
WIDE, NARROW = {"width": 1280, "height": 720}, {"width": 390, "height": 844}


@dataclass
class Visit:
    url: str
    console: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    statics: list[dict] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    cut_off: dict[int, list[str]] = field(default_factory=dict)  # <pre>s too wide, by width
    phone: dict = field(default_factory=dict)  # what PHONE found at 390 px
    zoom: list[str] = field(default_factory=list)  # figures too small that a tap did not enlarge

    def figures(self, base: str) -> list[dict]:
        """Visible figures: loaded local images, and widgets' static renderings."""
        pictures = [img for img in self.images
                    if img["inMain"] and img["visible"] and img["natural"] >= MIN_FIGURE_PX
                    and (img["src"].startswith("data:") or img["src"].startswith(base))]
        return pictures + [block for block in self.statics if block["visible"]]


@pytest.fixture(scope="module")
def book(request) -> Path:
    """The HTML root of the built book."""
    require_browser()  # before paying for a build
    given = os.environ.get("PACKLAB_BOOK_HTML")
    if given:
        root = Path(given)
        assert root.is_dir(), f"PACKLAB_BOOK_HTML={given} is not a folder"
        return root
    root = request.getfixturevalue("built_book")  # one build per test session (conftest)
    assert root.is_dir(), f"conftest's built_book returned {root}, not a folder"
    return root


def book_pages(book: Path) -> list[str]:
    """Every page of the book (not the theme's template fragments copied into _static/)."""
    found = (p.relative_to(book).as_posix() for p in book.rglob("*.html"))
    return sorted(rel for rel in found if not rel.startswith(("_static/", "_sources/")))


@pytest.fixture(scope="module")
def pages(book) -> list[str]:
    found = book_pages(book)
    assert found, f"no .html page under {book}"
    return found


@pytest.fixture(scope="module")
def served(book):
    with static_server(book) as base:
        yield base


@pytest.fixture(scope="module")
def one_chromium():
    """One Chromium for the module; each test takes a fresh context of it (browser.chromium).
    While it runs, this thread has Playwright's event loop: every test of the module drives the
    browser through it (none calls asyncio.run or starts a Playwright of its own)."""
    with chromium_process() as running:
        yield running


@pytest.fixture(scope="module")
def shots() -> dict[str, bytes]:
    """The screenshots this run took (also saved as artifacts), by name."""
    return {}


@pytest.fixture(scope="module")
def visits(book, pages, served, shots, one_chromium) -> dict[str, Visit]:
    """Open every page once, recording what each one asked for and what went wrong."""
    result = {}
    with chromium(one_chromium) as context:
        # Nothing may leave the machine: block it, and say which page asked for it.
        context.route(lambda url: not is_loopback(url), lambda route: route.abort())
        tab = Tab(context.new_page())
        try:
            for rel in pages:
                result[rel] = tab.visit(f"{served}/{rel}")
        finally:
            tab.page.close()
        shots.update(shoot(context, served, book))
    return result


class Tab:
    """One browser tab that opens page after page, as a reader following links does, noting
    what each one asked for and what went wrong (a new tab per page costs Chromium about a
    CPU-second more here than navigating the same one)."""

    def __init__(self, page) -> None:
        self.page, self.seen = page, Visit("")
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.seen.console.append(f"uncaught: {error}"))
        page.on("request", self._request)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)

    def _console(self, message) -> None:
        where = message.location.get("url", "") if message.location else ""
        if message.type == "error" and (not where or is_loopback(where)):
            self.seen.console.append(f"{message.text} ({where or 'inline'})")

    def _request(self, request) -> None:
        if not is_loopback(request.url):
            self.seen.outside.append(request.url)

    def _failed(self, request) -> None:
        if is_loopback(request.url) and not request.url.startswith("data:"):
            self.seen.failed.append(f"{request.url}: {request.failure}")

    def _response(self, response) -> None:
        if response.status >= 400:
            self.seen.failed.append(f"{response.url}: HTTP {response.status}")

    def visit(self, url: str) -> Visit:
        """What ``url`` asked for and showed, at a laptop's width and then a phone's."""
        page = self.page
        page.set_viewport_size(VIEWPORT)
        self.seen = seen = Visit(url)
        page.goto(url, wait_until="load")
        page.wait_for_load_state("networkidle")
        found = page.evaluate(IMAGES)
        seen.images, seen.statics = found["images"], found["statics"]
        seen.links = page.evaluate(LINKS)
        for width, size in ((1280, None), (390, NARROW)):  # a laptop, then a phone
            if size:
                page.set_viewport_size(size)
            seen.cut_off[width] = page.evaluate(OVERFLOWING)
        seen.phone = page.evaluate(PHONE)
        seen.zoom = tap_small_figures(page)
        return seen


def page_for(pages: list[str], name: str) -> str | None:
    """The page built from the notebook called ``name`` (a lesson slug or an exercise name)."""
    matches = [rel for rel in pages if Path(rel).stem == name]
    return matches[0] if len(matches) == 1 else None


def intro_page(pages: list[str]) -> str:
    return "intro.html" if "intro.html" in pages else "index.html"


def shoot(context, base: str, book: Path) -> dict[str, bytes]:
    """Screenshots of the intro, one lesson and one exercise, kept as test artifacts."""
    pages = book_pages(book)
    chosen = {"book-intro": intro_page(pages),
              "book-lesson-02": page_for(pages, COURSE.lessons[1].slug),
              "book-exercise-02": page_for(pages, COURSE.exercises[1].name)}
    taken = {}
    page = context.new_page()
    try:
        for name, rel in chosen.items():
            if rel:
                page.goto(f"{base}/{rel}", wait_until="load")
                page.wait_for_load_state("networkidle")
                taken[name] = page.screenshot(path=screenshot_path(name), full_page=True)
    finally:
        page.close()
    return taken


def report(problems: dict[str, list[str]]) -> str:
    return "\n".join(f"{page}:\n  " + "\n  ".join(items[:10]) for page, items in problems.items())


def test_every_lesson_and_exercise_has_a_page(pages):
    names = [lesson.slug for lesson in COURSE.lessons] + [ex.name for ex in COURSE.exercises]
    absent = [name for name in names if page_for(pages, name) is None]
    assert not absent, f"no single book page for: {absent}\npages: {pages}"
    assert intro_page(pages) in pages


def test_no_request_leaves_the_machine(visits):
    """The book renders offline: no CDN script, font, style or image is asked for."""
    outside = {rel: v.outside for rel, v in visits.items() if v.outside}
    assert not outside, "pages that reach off this machine:\n" + report(outside)


def test_no_console_errors_or_failed_requests(visits):
    broken = {rel: v.console + v.failed for rel, v in visits.items() if v.console or v.failed}
    assert not broken, "console errors or failed requests:\n" + report(broken)


def test_every_image_loads(visits):
    broken = {rel: [img["src"] for img in v.images if img["natural"] == 0]
              for rel, v in visits.items()}
    broken = {rel: images for rel, images in broken.items() if images}
    assert not broken, "images that did not load:\n" + report(broken)


def test_every_internal_link_resolves(book, visits, served):
    anchors: dict[Path, set[str]] = {}

    def ids(path: Path) -> set[str]:
        if path not in anchors:
            text = path.read_text(errors="replace") if path.suffix == ".html" else ""
            anchors[path] = set(re.findall(r'\b(?:id|name)="([^"]+)"', text))
        return anchors[path]

    broken: dict[str, list[str]] = {}
    for rel, seen in visits.items():
        for href in seen.links:
            if not href.startswith(served + "/"):
                continue  # another site, mailto:, javascript: … — not ours to check
            parts = urlsplit(href)
            target = book / unquote(parts.path).lstrip("/")
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.setdefault(rel, []).append(f"{href} (no such file)")
            elif parts.fragment and target.suffix == ".html" and \
                    unquote(parts.fragment) not in ids(target):
                broken.setdefault(rel, []).append(f"{href} (no such anchor)")
    assert not broken, "internal links that go nowhere:\n" + report(broken)


def test_every_lesson_shows_its_figures(pages, visits, served):
    missing = []
    for lesson in COURSE.lessons:
        rel = page_for(pages, lesson.slug)
        if rel is None:
            missing.append(f"{lesson.slug}: no page")
        elif not visits[rel].figures(served):
            missing.append(f"{rel}: no visible figure; images: {visits[rel].images}")
    assert not missing, "lessons without a visible figure:\n" + "\n".join(missing)


def test_every_static_widget_rendering_is_visible_and_says_where_to_slide_it(visits):
    """A widget cannot move in a static page: its rendering shows, with a note to open the lab."""
    bad = {rel: [f"{block}" for block in v.statics
                 if not block["visible"] or "JupyterLab" not in block["note"]]
           for rel, v in visits.items()}
    bad = {rel: blocks for rel, blocks in bad.items() if blocks}
    assert not bad, "static renderings hidden or without their note:\n" + report(bad)


def test_screenshots_were_saved(visits, shots):
    # Checked on what this run took, not on disk: another worker may be rewriting the files.
    for name in ("book-intro", "book-lesson-02", "book-exercise-02"):
        assert shots.get(name, b"").startswith(b"\x89PNG"), f"no screenshot {name}"


# ---------------------------------------------------------------------------------------------
# Issue 10: lesson titles in one form in the sidebar; no code cut off at the right edge
# ---------------------------------------------------------------------------------------------

SIDEBAR = "() => [...document.querySelectorAll('nav.bd-docs-nav a')].map(a => a.innerText.trim())"


def test_the_sidebar_lists_every_lesson_title_in_one_form(pages, served, one_chromium):
    from test_lesson_titles import heading

    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(WIDE)
        page.goto(f"{served}/{intro_page(pages)}", wait_until="load")
        listed = page.evaluate(SIDEBAR)
        page.screenshot(path=screenshot_path("book-intro-wide"))  # the sidebar and `make lab`
    wanted = [heading(lesson.title, lesson.slug[:2]) for lesson in COURSE.lessons]
    shown = [text for text in listed if text.startswith("Lesson ") or text[:2].isdigit()]
    assert shown == wanted, f"the sidebar shows {shown}"


def test_no_code_block_is_cut_off_at_the_right_edge(pages, served, visits, one_chromium):
    """On every page, at a laptop's 1280 px and a phone's 390 px, code and output wrap."""
    cut = {f"{rel} at {width} px": found for rel, v in visits.items()
           for width, found in v.cut_off.items() if found}
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(NARROW)
        page.goto(f"{served}/{intro_page(pages)}", wait_until="load")
        page.screenshot(path=screenshot_path("book-intro-narrow"))
    assert all(len(v.cut_off) == 2 for v in visits.values()), "a page was not measured"
    assert not cut, "code cut off at the right edge:\n" + report(cut)


# ---------------------------------------------------------------------------------------------
# Issue 10: the book gives nothing away before the reader commits (quizzes, predict the output)
# ---------------------------------------------------------------------------------------------

# The code cell that prints a predict-the-output answer: a %%reveal cell (its output is a folded
# details.packlab-reveal box), or in the older form the cell right after an "Answer" block
# (PREDICTIONS below finds the same cells in the page's JavaScript).
PREDICT_CELL = "div.cell:has(form.packlab-predict)"


def test_no_page_explains_a_quiz_before_check(book, pages):
    """No page's text or HTML explains a quiz option: only Check in JupyterLab does."""
    from test_quiz import leaked

    found = {}
    for rel in pages:
        raw = (book / rel).read_text(encoding="utf-8")
        text = re.sub(r"<[^>]+>", "", raw)
        explained = set(leaked(raw)) | set(leaked(text))
        if explained:
            found[rel] = [why[:60] + "…" for why in sorted(explained)]
    assert not found, "pages that explain a quiz's options:\n" + report(found)


# For each predict question of a page (issue 36): what its answer prints, whether that (or its
# explanation) can be read before a commit, whether Commit with nothing given opens it, and after
# every part is given and committed: the verdict, the answer shown, the fields locked.
PREDICTIONS = """() => [...document.querySelectorAll('form.packlab-predict')].map(form => {
    const bytes = Uint8Array.from(atob(form.dataset.packlabSealed), c => c.charCodeAt(0));
    const data = JSON.parse(new TextDecoder().decode(bytes));
    const box = document.createElement('div');
    box.innerHTML = data.answer;
    const printed = [...box.querySelectorAll('pre')].map(p => p.textContent).join(' ')
        .split(/\\s+/).join(' ').trim();
    const explained = [...box.querySelectorAll('p, li')].map(p => p.textContent)
        .join(' ').split(/\\s+/).join(' ').trim().slice(0, 60);
    const answer = form.querySelector('.packlab-predict-answer');
    const main = () => document.querySelector('main').innerText.split(/\\s+/).join(' ');
    const shown = () => answer.checkVisibility() && main().includes(printed);
    const before = shown() || main().includes(explained);
    form.querySelector('button[type=submit]').click();
    const empty = shown() || !/Answer every part first/.test(form.innerText);
    for (const field of form.querySelectorAll('.packlab-predict-ask')) {
        const radio = field.querySelector('input[type=radio]');
        if (radio) radio.checked = true;
        else field.querySelector('input[type=text]').value = '0';
    }
    form.querySelector('button[type=submit]').click();
    const verdict = form.querySelector('.packlab-predict-verdict');
    return {id: form.dataset.packlabQuestion, printed: printed, before: before, empty: empty,
            after: shown() && main().includes(explained),
            verdict: /(Matches|Does not match)/.test(verdict.innerText)
                     && verdict.getAttribute('aria-live') === 'polite',
            locked: [...form.querySelectorAll('input, button')].every(e => e.disabled)};
})"""


def test_predicted_output_shows_only_after_a_prediction(pages, served, one_chromium):
    """Issue 36 in the book: each predict question's answer (its explanation and what the cell
    prints) cannot be read or opened before every part of a prediction is committed; then the
    verdict is read out and the answer shows, the fields locked."""
    found = {}
    with chromium(one_chromium) as context:
        page = context.new_page()
        for lesson in COURSE.lessons:
            page.goto(f"{served}/{page_for(pages, lesson.slug)}", wait_until="load")
            if lesson.slug == COURSE.lessons[0].slug:
                page.locator(PREDICT_CELL).last.scroll_into_view_if_needed()
                page.screenshot(path=screenshot_path("issue36-book-predict-asked"))
            found[lesson.slug] = page.evaluate(PREDICTIONS)
            if lesson.slug == COURSE.lessons[0].slug:
                page.locator(PREDICT_CELL).last.screenshot(
                    path=screenshot_path("issue36-book-predict-verdict"))
    assert all(found.values()), f"lessons without a predict question: {found}"
    wrong = {slug: [q for q in questions if not q["printed"] or q["before"] or q["empty"]
                    or not q["after"] or not q["verdict"] or not q["locked"]]
             for slug, questions in found.items()}
    wrong = {slug: questions for slug, questions in wrong.items() if questions}
    assert not wrong, "answers readable before a prediction, or not after:\n" + "\n".join(
        f"{slug}: {questions}" for slug, questions in wrong.items())


# ---------------------------------------------------------------------------------------------
# Issue 21: the book on a phone (390×844): a menu that works, nothing wider than the screen,
# tables that scroll in their box, code that wraps under its indentation, figures that open at
# full size, one search box
# ---------------------------------------------------------------------------------------------

# At the phone's width: how wide the page is, printed tables whose lines wrap or that push out of
# their box, HTML tables wider than their box with nothing to scroll them, and wrapped code lines
# whose continuation does not start right of the line's own indentation.
PHONE = f"""() => {{
    const tabular = {TABULAR};
    const style = (e) => getComputedStyle(e);
    const scrolling = (e) => ['auto', 'scroll'].includes(style(e).overflowX);
    const tables = [...document.querySelectorAll('main .cell_output pre')].filter(tabular)
        .filter(pre => style(pre).whiteSpace !== 'pre' || (pre.scrollWidth > pre.clientWidth + 1
                       && !scrolling(pre)))
        .map(pre => 'printed table wraps or is cut: ' + pre.textContent.slice(0, 40));
    const main = document.querySelector('main');
    for (const table of main.querySelectorAll('table')) {{
        let box = table.parentElement, ok = false;
        while (box && box !== main.parentElement) {{
            if (scrolling(box)) {{ ok = true; break; }}
            box = box.parentElement;
        }}
        if (!ok && table.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            tables.push('HTML table cut off: ' + table.textContent.slice(0, 40));
    }}
    const unindented = [];
    const range = document.createRange();
    for (const pre of main.querySelectorAll('pre')) {{
        if (style(pre).whiteSpace === 'pre' || unindented.length > 5) continue;
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        let line = '', indent = null, top = null, wrapped = false, node;
        while ((node = walker.nextNode())) {{
            const text = node.textContent;
            for (let i = 0; i < text.length; i++) {{
                const ch = text[i];
                if (ch === '\\n') {{
                    line = ''; indent = null; top = null; wrapped = false;
                    continue;
                }}
                line += ch;
                const leading = !line.trim();
                if (!ch.trim() && !leading) continue;
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const box = range.getBoundingClientRect();
                if (leading || indent === null) {{  // where the line's own text starts
                    indent = leading ? box.right : box.left;
                    top = box.top;
                    continue;
                }}
                if (box.top > top + box.height / 2) {{  // the first character of a wrapped part
                    top = box.top;
                    if (box.left <= indent + 1 && !wrapped) {{
                        wrapped = true;
                        unindented.push(pre.textContent.slice(0, 30) + ' … '
                                        + line.trim().slice(0, 40));
                    }}
                }}
            }}
        }}
    }}
    // Issue 29: content wider than its box that is cut with no way to scroll it, or that
    // scrolls with no sign of it (a shadow at the edge, or under a figure a note); and figures
    // shrunk below the size they were drawn at (their text falls to 6-7 px).
    const hiddenWide = [];
    for (const e of main.querySelectorAll('*')) {{
        // (MathJax's own parts and the footer's ellipsised links are not content; a glyph's
        // overhang of a few pixels is not a cut)
        if (e.scrollWidth <= e.clientWidth + 8 || !e.clientWidth || e.closest(
                '.packlab-zoom, pre.packlab-wrapped, mjx-container *, .prev-next-area')) continue;
        const s = style(e);
        if (!['auto', 'scroll'].includes(s.overflowX)) {{
            if (['hidden', 'clip'].includes(s.overflowX))
                hiddenWide.push('cut, no scroll: ' + e.tagName + ' ' + e.textContent.slice(0, 40));
            continue;
        }}
        const shadow = /radial-gradient/.test(s.backgroundImage)
                       && /local/.test(s.backgroundAttachment);
        const note = e.nextElementSibling;
        const told = note && note.classList.contains('packlab-scroll-note') && !note.hidden
                     && note.getBoundingClientRect().height > 0;
        if (!shadow && !told)
            hiddenWide.push('scrolls with no sign: ' + e.tagName + '.' + e.className + ' '
                            + e.textContent.slice(0, 40));
    }}
    const shrunk = [...main.querySelectorAll('img')]
        .filter(img => img.naturalWidth >= 100 && img.getBoundingClientRect().width > 0
                && img.getBoundingClientRect().width < 0.9 * img.naturalWidth)
        .map(img => `${{img.alt || img.src.slice(0, 40)}}: drawn ${{img.naturalWidth}} px, shown `
                    + `${{img.getBoundingClientRect().width.toFixed(0)}} px`);
    return {{width: document.documentElement.scrollWidth, tables: tables,
             unindented: unindented, hiddenWide: hiddenWide, shrunk: shrunk}};
}}"""

# The figures a phone shows smaller than they were drawn: at 390 px a figure drawn 688 px wide
# with 10 pt text shows that text at about 5 pt, too small to read.
SMALL_FIGURES = """() => [...document.querySelectorAll('main img')].map((img, index) => {
    const box = img.getBoundingClientRect();
    return {index: index, src: img.currentSrc || img.src, natural: img.naturalWidth,
            shown: box.width};
}).filter(f => f.natural >= 100 && f.shown > 0 && f.shown < 0.9 * f.natural)"""

# A figure shown at full size: an image with that source, at least as wide as it was drawn,
# that is what the screen shows at its centre.
FULL_SIZE = """(src) => [...document.querySelectorAll('img')].some(img => {
    const box = img.getBoundingClientRect();
    if ((img.currentSrc || img.src) !== src || box.width < img.naturalWidth - 1) return false;
    const x = Math.min(box.left + 20, innerWidth - 1), y = Math.min(box.top + 20, innerHeight - 1);
    return document.elementFromPoint(Math.max(x, 0), Math.max(y, 0)) === img;
})"""


def tap_small_figures(page) -> list[str]:
    """Tap each figure a phone shrinks; the ones that do not open at full size (and close)."""
    failed = []
    for figure in page.evaluate(SMALL_FIGURES):
        image = page.locator("main img").nth(figure["index"])
        label = f"figure {figure['index']} ({figure['natural']} px drawn, " \
                f"{figure['shown']:.0f} px shown)"
        try:
            image.click(timeout=5_000)
            page.wait_for_function(FULL_SIZE, arg=figure["src"], timeout=3_000)
        except Exception:  # noqa: BLE001 - Playwright's timeout: it did not open
            failed.append(f"{label}: a tap does not show it at full size")
            continue
        page.keyboard.press("Escape")
        if page.evaluate(FULL_SIZE, figure["src"]) and figure["shown"] < figure["natural"]:
            failed.append(f"{label}: Escape does not close the full-size view")
    return failed


def test_no_page_is_wider_than_a_phone(visits):
    wide = {rel: [f"{v.phone['width']} px wide"] for rel, v in visits.items()
            if v.phone["width"] > NARROW["width"]}
    assert not wide, "pages wider than a 390 px phone:\n" + report(wide)


def test_printed_tables_scroll_inside_their_box_on_a_phone(visits, pages, served, one_chromium):
    bad = {rel: v.phone["tables"] for rel, v in visits.items() if v.phone["tables"]}
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(NARROW)
        page.goto(f"{served}/{page_for(pages, COURSE.lessons[6].slug)}", wait_until="load")
        page.locator("main .cell_output pre").filter(has_text="budget").first \
            .scroll_into_view_if_needed()
        page.screenshot(path=screenshot_path("issue21-phone-printed-table"))
    assert not bad, "printed tables that wrap or are cut off at 390 px:\n" + report(bad)


def test_wide_content_scrolls_visibly_on_a_phone(visits):
    """Issue 29: at 390 px the BM25 formula was cut at the screen's edge with no sign that it
    scrolls, and a table header of lesson 08 cut at "not sen": everything wider than its box
    scrolls, with a shadow on the side where more is (a figure: a note under it)."""
    bad = {rel: v.phone["hiddenWide"] for rel, v in visits.items() if v.phone["hiddenWide"]}
    assert not bad, "content wider than its box at 390 px, with no visible way on:\n" + report(bad)


def test_figures_keep_their_drawn_size_on_a_phone(visits):
    """Issue 29: shrunk to 390 px, a figure's text fell to 6-7 px; each is now shown at the size
    it was drawn at (its text as readable as drawn), in a box that scrolls."""
    bad = {rel: v.phone["shrunk"] for rel, v in visits.items() if v.phone["shrunk"]}
    assert not bad, "figures shown smaller than drawn at 390 px:\n" + report(bad)


EDGES = """(e) => {
    for (const child of e.children) child.style.visibility = 'hidden';  // the box's own paint
    return e.scrollWidth - e.clientWidth;
}"""


def edge_shade(png: bytes) -> tuple[float, float]:
    """The mean brightness (0-255) of the leftmost and the rightmost 8 pixel columns."""
    import io

    from PIL import Image, ImageStat

    image = Image.open(io.BytesIO(png)).convert("L")
    width, height = image.size
    return (ImageStat.Stat(image.crop((0, 0, 8, height))).mean[0],
            ImageStat.Stat(image.crop((width - 8, 0, width, height))).mean[0])


def test_a_person_sees_that_the_formula_scrolls_on_a_phone(pages, served, one_chromium):
    """The BM25 formula of exercise 09 at 390 px: with its glyphs hidden, the right edge of its
    box is shaded (more to see there) and the left is not; scrolled to the end, the other way
    round. Under a figure wider than the screen, a note says to swipe."""
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(NARROW)
        page.goto(f"{served}/{page_for(pages, COURSE.exercises[8].name)}", wait_until="load")
        formula = page.locator('main mjx-container[display="true"]').filter(
            has_text="bm25").first
        formula.scroll_into_view_if_needed()
        page.screenshot(path=screenshot_path("issue29-phone-formula"))
        assert formula.evaluate(EDGES) > 100, "the formula fits: nothing to test"
        left, right = edge_shade(formula.screenshot())
        assert right < left - 15, (left, right)
        formula.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
        left, right = edge_shade(formula.screenshot())
        assert left < right - 15, (left, right)

        page.goto(f"{served}/{page_for(pages, COURSE.lessons[1].slug)}", wait_until="load")
        box = page.locator("main .packlab-scroll").first
        box.scroll_into_view_if_needed()
        page.screenshot(path=screenshot_path("issue29-phone-figure"))
        note = box.locator("xpath=following-sibling::p[1]")
        assert note.is_visible() and "swipe sideways" in note.inner_text()


def test_wrapped_code_keeps_its_indentation_on_a_phone(visits):
    bad = {rel: v.phone["unindented"] for rel, v in visits.items() if v.phone["unindented"]}
    assert not bad, ("code lines whose wrapped part starts left of the line at 390 px:\n"
                     + report(bad))


def test_a_tap_opens_a_shrunk_figure_at_full_size(visits, pages, served, one_chromium):
    bad = {rel: v.zoom for rel, v in visits.items() if v.zoom}
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(NARROW)
        page.goto(f"{served}/{page_for(pages, COURSE.lessons[9].slug)}", wait_until="load")
        page.wait_for_load_state("networkidle")
        figure = page.locator("main img").filter(visible=True).first
        figure.scroll_into_view_if_needed()
        page.screenshot(path=screenshot_path("issue21-phone-figure"))
        figure.click()
        page.screenshot(path=screenshot_path("issue21-phone-figure-full-size"))
    assert not bad, "figures a phone shrinks that a tap does not enlarge:\n" + report(bad)


SEARCH_BOXES = """() => [...document.querySelectorAll(
        'input[type=search], input[name=q], .search-button__button, form.bd-search')]
    .filter(e => e.checkVisibility() && e.getBoundingClientRect().width > 0
                 && !e.parentElement.closest('input, .search-button__button, form.bd-search'))
    .map(e => e.tagName + '.' + e.className)"""

# The sidebar's lesson links, and whether each is on the screen.
LESSON_LINKS = """() => [...document.querySelectorAll('a')]
    .filter(a => /^Lesson \\d\\d/.test(a.innerText.trim()) && a.closest('nav'))
    .map(a => { const box = a.getBoundingClientRect();
        return a.checkVisibility() && box.left >= 0 && box.right <= innerWidth
               && box.width > 0; })"""
SIDEBAR_TOP = """() => { const brand = [...document.querySelectorAll('.navbar-brand, .logo__title')]
    .find(e => e.checkVisibility() && e.getBoundingClientRect().width > 0);
    return brand ? brand.getBoundingClientRect().top : null; }"""


# The sidebar at rest (the next click reaches it still, as a person's would) with every lesson
# link on the screen, or with none.
SIDEBAR_SHOWN = (f"() => {{ const links = ({LESSON_LINKS})(); "
                 f"return links.length > 0 && links.every(Boolean) && ({AT_REST})(); }}")
SIDEBAR_GONE = f"() => !({LESSON_LINKS})().some(Boolean) && ({AT_REST})()"
SIDEBAR_WAIT_MS = 10_000  # the slide in or out takes a fraction of a second; a loaded machine more


def sidebar_after(page, settled: str) -> list[bool]:
    """The lesson links' visibility once ``settled`` holds, or as they are after
    SIDEBAR_WAIT_MS (the caller's assertion then says what did not happen)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(settled, timeout=SIDEBAR_WAIT_MS)
    return page.evaluate(LESSON_LINKS)


def visible_menu_button(page):
    buttons = page.locator(".primary-toggle").filter(visible=True)
    assert buttons.count() == 1, f"{buttons.count()} menu buttons on the screen"
    return buttons.first


def test_the_menu_opens_and_closes_the_sidebar_on_a_phone(book, pages, served, one_chromium):
    """Served over HTTP and opened from the disk (file://) alike."""
    lesson = page_for(pages, COURSE.lessons[9].slug)
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(NARROW)
        for base, rel in ((served, intro_page(pages)), (served, lesson),
                          (book.resolve().as_uri(), lesson)):
            page.goto(f"{base}/{rel}", wait_until="load")
            page.wait_for_load_state("networkidle")
            assert not any(page.evaluate(LESSON_LINKS)), f"{rel}: the sidebar shows before ☰"
            visible_menu_button(page).click()
            links = sidebar_after(page, SIDEBAR_SHOWN)
            top = page.evaluate(SIDEBAR_TOP)
            page.screenshot(path=screenshot_path(f"issue21-phone-menu-open-{Path(rel).stem}"))
            assert links and all(links), f"{rel}: ☰ did not bring the lessons on screen: {links}"
            assert top is not None and top >= 0, f"{rel}: the sidebar's top is cut off ({top})"
            page.keyboard.press("Escape")
            assert not any(sidebar_after(page, SIDEBAR_GONE)), f"{rel}: Escape left it open"
            visible_menu_button(page).click()  # open again, and close by a tap beside it
            assert all(sidebar_after(page, SIDEBAR_SHOWN)), f"{rel}: ☰ did not open it again"
            page.mouse.click(NARROW["width"] - 20, NARROW["height"] // 2)
            assert not any(sidebar_after(page, SIDEBAR_GONE)), f"{rel}: a tap left it open"


def test_the_menu_hides_and_shows_the_sidebar_on_a_laptop(pages, served, one_chromium):
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.set_viewport_size(WIDE)
        page.goto(f"{served}/{intro_page(pages)}", wait_until="load")
        page.wait_for_load_state("networkidle")
        assert all(page.evaluate(LESSON_LINKS)), "the sidebar is not shown on a laptop"
        top = page.evaluate(SIDEBAR_TOP)
        assert top is not None and top >= 0, f"the sidebar's top is cut off ({top})"
        box = page.locator(".bd-sidebar-primary").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= WIDE["height"] + 1, \
            f"the sidebar does not fit in the window: {box}"
        visible_menu_button(page).click()
        assert not any(sidebar_after(page, SIDEBAR_GONE)), "☰ did not hide the sidebar"
        visible_menu_button(page).click()
        assert all(sidebar_after(page, SIDEBAR_SHOWN)), "☰ did not show the sidebar again"


def test_one_search_box(pages, served, one_chromium):
    found = {}
    with chromium(one_chromium) as context:
        page = context.new_page()
        for size in (NARROW, WIDE):
            page.set_viewport_size(size)
            for rel in (intro_page(pages), page_for(pages, COURSE.lessons[0].slug)):
                page.goto(f"{served}/{rel}", wait_until="load")
                page.wait_for_load_state("networkidle")
                boxes = page.evaluate(SEARCH_BOXES)
                if len(boxes) != 1:
                    found[f"{rel} at {size['width']} px"] = boxes
            page.goto(f"{served}/{intro_page(pages)}", wait_until="load")
            page.screenshot(path=screenshot_path(f"issue21-search-{size['width']}"))
    assert not found, "pages without exactly one search box:\n" + report(found)
# Issue 20: predict, then reveal in the book; no serious accessibility violation on a lesson
# ---------------------------------------------------------------------------------------------

REVEAL_STATE = """(answer) => [...document.querySelectorAll('main details.packlab-reveal')].map(
    box => ({open: box.open, shown: [...box.querySelectorAll('pre')].some(
        pre => pre.checkVisibility() && pre.textContent.includes(answer))}))"""


def test_a_folded_answer_stays_hidden_in_the_book_until_opened(pages, served, one_chromium):
    """Every %%reveal box of a lesson page is closed; the book's styles and scripts leave it so,
    and it opens on a click, with Enter and with Space. (A lesson's own box, and one made here
    by packlab.course.reveal and put into a built lesson page, so that the check bites before
    the lessons use the magic.)"""
    from packlab.course.reveal import Answer

    answer = "folded answer 4242"
    with chromium(one_chromium) as context:
        page = context.new_page()
        page.goto(f"{served}/{page_for(pages, COURSE.lessons[1].slug)}", wait_until="load")
        page.evaluate("(box) => document.querySelector('main').insertAdjacentHTML("
                      "'afterbegin', box)", Answer(answer + "\n")._repr_html_())
        boxes = page.evaluate(REVEAL_STATE, answer)
        assert boxes and not any(box["open"] or box["shown"] for box in boxes), boxes
        summary = page.locator("main details.packlab-reveal > summary").first
        shown = page.locator("main details.packlab-reveal pre", has_text=answer)
        summary.click()
        shown.wait_for(state="visible")
        page.screenshot(path=screenshot_path("issue20-book-reveal-opened"))
        summary.click()
        shown.wait_for(state="hidden")
        for key in ("Enter", "Space"):
            summary.press(key)
            shown.wait_for(state="visible")
            summary.press(key)
            shown.wait_for(state="hidden")
        for lesson in COURSE.lessons:  # the lessons' own boxes, where they use the magic
            page.goto(f"{served}/{page_for(pages, lesson.slug)}", wait_until="load")
            boxes = page.evaluate(REVEAL_STATE, "")
            assert not any(box["open"] for box in boxes), (lesson.slug, boxes)


def test_a_lesson_page_has_no_serious_accessibility_violation(pages, served, one_chromium):
    """axe-core (offline, from the axe-playwright-python wheel) on lesson 02's page: no serious
    or critical violation (its quiz, static pictures with alt, code and prose)."""
    from browser import serious_violations

    with chromium(one_chromium) as context:
        page = context.new_page()
        page.goto(f"{served}/{page_for(pages, COURSE.lessons[1].slug)}", wait_until="load")
        problems = serious_violations(page)
        page.screenshot(path=screenshot_path("issue20-book-lesson-axe"))
    assert not problems, "axe-core in the book, lesson 02:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Issue 29: every answer of every lesson is folded in the book until the reader opens it
# ---------------------------------------------------------------------------------------------

OPENED = """(box) => box.open && [...box.childNodes].some(node => node.nodeName !== 'SUMMARY'
    && node.nodeType === Node.ELEMENT_NODE && node.checkVisibility())"""


def test_every_answer_is_folded_in_the_book_until_opened(pages, served, one_chromium):
    """On each lesson page every fold left (a plain %%reveal output, a markdown box) is closed
    and shows only its summary; each predict question's form is there; and no sentence of what a
    question explains after a prediction (predictions.toml) can be read on the page (issue 36)."""
    from folds import expected, folds, problems

    from packlab.course.predictions import questions

    def explained(slug: str) -> list[str]:
        return [" ".join(sentence.split()) for key, question in questions().items()
                if key.startswith(slug[:2])
                for sentence in re.split(r"(?<=[.!?])\s|\n", question.explain)
                if len(sentence.strip()) >= 24]

    def told(slug: str) -> list[str]:
        text = " ".join(page.locator("main").inner_text().split())
        return [sentence for sentence in explained(slug) if sentence in text]

    found = {}
    with chromium(one_chromium) as context:
        page = context.new_page()
        for lesson in COURSE.lessons:
            page.goto(f"{served}/{page_for(pages, lesson.slug)}", wait_until="load")
            want = expected(lesson.path)
            wrong = problems(folds(page, "main", "div.cell"), want, ran=True)
            forms = page.locator("main form.packlab-predict").count()
            if forms != want.predictions:
                wrong.append(f"{forms} predict forms, expected {want.predictions}")
            wrong += [f"explained before a prediction: {sentence!r}" for sentence in told(
                lesson.slug)]
            if lesson == COURSE.lessons[0]:  # the check bites: an explanation said in prose
                page.evaluate("(t) => document.querySelector('main').insertAdjacentHTML("
                              "'beforeend', '<p>' + t + '</p>')", explained(lesson.slug)[0])
                assert told(lesson.slug), "the check cannot fail"
            if wrong:
                page.screenshot(path=screenshot_path(f"issue29-book-{lesson.slug[:2]}"),
                                full_page=True)
                found[lesson.slug] = wrong
    assert not found, "answers not folded in the book:\n" + report(found)
