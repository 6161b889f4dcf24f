"""The HTML book (`make book`): every page built, offline, no solutions, static widget pictures."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, EXERCISES

from packlab.course import book
from packlab.views import static

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# One worker reads the book (built once per session, conftest.built_book); the other never waits.
pytestmark = pytest.mark.xdist_group("book")


# ---------------------------------------------------------------------------------------------
# The views' static renderings (fast: no book is built)
# ---------------------------------------------------------------------------------------------


def _views():
    from packlab.course.quiz import quiz
    from packlab.packing.examples import chat_parts, docs_corpus
    from packlab.views.conversation import turn_view
    from packlab.views.evidence import evidence_slider
    from packlab.views.fitview import fit_view
    from packlab.views.reasons import drop_reasons_view
    from packlab.views.relevance import relevance_view
    from packlab.views.token_widgets import token_view
    from packlab.views.widgets import break_vs_continue, budget_slider, drop_curve_view

    docs = docs_corpus(12)
    ranked = [dict(p, priority=len(docs) - i) for i, p in enumerate(docs)]
    return {
        "budget": budget_slider(chat_parts(), budget=300),
        "drop curve": drop_curve_view(docs_corpus(30)),
        "comparison": break_vs_continue(),
        "tokens": token_view("Refunds within 30 days."),
        "fit": fit_view(),
        "evidence": evidence_slider(),
        "reasons": drop_reasons_view(ranked),
        "relevance": relevance_view(),
        "turn": turn_view(budget=400),
        "quiz": quiz("02-skip-or-stop"),
    }


@pytest.fixture(scope="module")
def views():
    return _views()


def test_every_view_keeps_its_widget_and_adds_a_static_rendering(views):
    for name, view in views.items():
        bundle = view._repr_mimebundle_()
        assert bundle[WIDGET_MIME]["model_id"] == view.model_id, name
        assert bundle["text/plain"] and "\n" not in bundle["text/plain"], name
        rendering = bundle["text/html"]
        assert f'class="{static.NOTE_CLASS}"' in rendering, name
        assert "open this lesson in JupyterLab (<code>make lab</code>)" in rendering, name
        if name not in ("tokens", "quiz"):
            assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]{200,}" alt="[^"]+"',
                             rendering), name


def test_the_static_picture_follows_the_slider(views):
    view = views["budget"]
    before = view._repr_mimebundle_()["text/html"]
    assert "Static picture at budget 300" in before
    view.slider.value = 120
    after = view._repr_mimebundle_()["text/html"]
    assert "Static picture at budget 120" in after and "of 120 tokens" in after


def test_the_static_drop_curve_marks_a_few_budgets(views):
    rendering = views["drop curve"]._repr_mimebundle_()["text/html"]
    for share in ("(75%)", "(50%)", "(25%)", "(10%)"):
        assert share in rendering
    assert "lost (" in rendering


def test_a_lesson_that_fails_stops_the_build(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    path = tmp_path / "broken.ipynb"
    nbformat.write(notebook, path)
    with pytest.raises(book.BookError, match="(?s)broken.ipynb failed to run.*ZeroDivisionError"):
        book.execute_notebook(str(path))


def test_the_toc_and_the_course_map_follow_the_manifest():
    toc = book.toc(COURSE)
    table = book.course_map(COURSE)
    for lesson in COURSE.lessons:
        assert f"file: lessons/{lesson.slug}\n" in toc
        assert f"(lessons/{lesson.slug}.ipynb)" in table
    for exercise in EXERCISES:
        assert f"file: exercises/{exercise.name}/{exercise.name}\n" in toc
        assert f"(exercises/{exercise.name}/{exercise.name}.ipynb)" in table
    for pages in book.GUIDES.values():
        for page in pages:
            assert f"file: {page}\n" in toc


# ---------------------------------------------------------------------------------------------
# The built book (built once for this module, into a temporary folder)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(built_book):
    """The book, built once per test session; conftest.built_book checks that building it left
    lessons/ and exercises/ as they were."""
    return built_book


class _Tags(HTMLParser):
    """The src/href of every <script>, <link> and <img>, and the page's text."""

    def __init__(self):
        super().__init__()
        self.refs: list[tuple[str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href"):
            if tag in ("script", "link", "img") and attrs.get(key):
                self.refs.append((tag, attrs[key]))

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: Path) -> _Tags:
    parser = _Tags()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.html") if "_static" not in p.parts)


@pytest.mark.slow
def test_every_lesson_exercise_and_instructor_page_is_built(built):
    expected = ["index.html", "intro.html"]
    expected += [f"{page}.html" for pages in book.GUIDES.values() for page in pages]
    expected += [f"lessons/{lesson.slug}.html" for lesson in COURSE.lessons]
    expected += [f"exercises/{e.name}/{e.name}.html" for e in EXERCISES]
    missing = [page for page in expected if not (built / page).is_file()]
    assert not missing


@pytest.mark.slow
def test_no_page_loads_anything_from_another_site(built):
    external = re.compile(r"^(https?:)?//", re.I)
    found = []
    for page in _pages(built):
        found += [f"{page.relative_to(built)}: <{tag}> {ref}"
                  for tag, ref in _parse(page).refs if external.match(ref)]
        text = page.read_text(encoding="utf-8")
        for cdn in ("cdn.jsdelivr", "unpkg.com", "cdnjs", "fonts.googleapis", "require.js",
                    "embed-amd.js", "widget-state+json"):
            if cdn in text:
                found.append(f"{page.relative_to(built)} mentions {cdn}")
    for css in (built / "_static").rglob("*.css"):
        if re.search(r"url\(\s*['\"]?(https?:)?//|@import\s+url\(\s*['\"]?https?:", css.read_text(
                encoding="utf-8", errors="replace")):
            found.append(f"{css.relative_to(built)} loads a URL from another site")
    assert not found, "\n".join(found)


@pytest.mark.slow
def test_mathjax_is_served_by_the_book_itself(built):
    lesson = built / f"lessons/{COURSE.lessons[8].slug}.html"
    scripts = [ref for tag, ref in _parse(lesson).refs if tag == "script"]
    local = [ref.split("?")[0] for ref in scripts if "mathjax" in ref]
    assert local == ["../_static/mathjax/tex-chtml.js"], scripts
    assert (lesson.parent / local[0]).resolve().is_file()
    assert (built / "_static/mathjax/output/chtml/fonts/woff-v2").is_dir()


def _solution_lines(exercise) -> list[str]:
    """Distinctive lines of the reference answer and of the hidden tests (not in the release)."""
    source = nbformat.read(exercise.source, as_version=4)
    released = nbformat.read(exercise.release, as_version=4)
    release = "\n".join(cell.source for cell in released.cells)
    lines = []
    for cell in source.cells:
        for line in cell.source.splitlines():
            line = line.strip()
            if len(line) >= 25 and not line.startswith("#") and line not in release:
                lines.append(line)
    return lines


def _text(page: Path) -> str:
    return html.unescape("".join(_parse(page).text))


@pytest.mark.slow
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_exercise_pages_show_the_task_and_never_a_solution(built, exercise):
    page = built / f"exercises/{exercise.name}/{exercise.name}.html"
    text = _text(page)
    raw = page.read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "HIDDEN TESTS"):
        assert marker not in raw
    assert not re.search(r"run_tests\([^)]*(edge-cases|properties|hidden)", text)
    assert all(f'run_tests("{exercise.name}", {exercise.function}, "{group}")' in text
               for group in exercise.visible_groups)
    assert exercise.function in text and "make lab" in text
    leaked = [line for line in _solution_lines(exercise) if line in text]
    assert not leaked, leaked


@pytest.mark.slow
@pytest.mark.parametrize("lesson", COURSE.lessons, ids=lambda lesson: lesson.slug)
def test_lesson_pages_are_executed_with_static_widget_pictures(built, lesson):
    page = built / f"lessons/{lesson.slug}.html"
    raw = page.read_text(encoding="utf-8")
    images = [ref for tag, ref in _parse(page).refs if tag == "img"]
    assert 'class="packlab-static"' in raw, "no static rendering of a view"
    assert images or "<table" in raw, "no picture (nor table) on the page"
    assert static.NOTE_CLASS in raw and "open this lesson in JupyterLab" in raw
    assert WIDGET_MIME not in raw
    for ref in images:
        if not ref.startswith("data:"):
            assert (page.parent / ref).resolve().is_file(), ref


@pytest.mark.slow
def test_the_intro_links_every_page_and_the_instructors_page_grades(built):
    refs = {ref for tag, ref in _parse(built / "intro.html").refs}
    hrefs = set(re.findall(r'href="([^"#]+)', (built / "intro.html").read_text(encoding="utf-8")))
    for lesson in COURSE.lessons:
        assert f"lessons/{lesson.slug}.html" in hrefs
    for exercise in EXERCISES:
        assert f"exercises/{exercise.name}/{exercise.name}.html" in hrefs
    assert refs  # the page has its (local) styles and scripts
    for page, command in (("setting-up", "packlab release"), ("grading", "packlab grade"),
                          ("feedback", "packlab gradescope"), ("scale", "--scheduler")):
        assert command in _text(built / "instructors" / f"{page}.html"), page
    hrefs = re.findall(r'href="([^"#]+)', (built / "instructors.html").read_text(encoding="utf-8"))
    assert "docs/jupyterhub.html" in hrefs
    for page in book.GUIDES["For instructors"][1:-1]:
        assert f"{page}.html" in hrefs, page
