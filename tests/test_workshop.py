"""The workshop: `make demo` (the presenter's notebook, big fonts) and `make slides`.

Fast tests check the presenter's notebook, the demo's files and command line, and the slide
helpers on made-up notebooks. Slow ones execute the presenter's notebook, start `packlab demo`
once to see JupyterLab take the font override, and build real slides into a temporary folder.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from packlab.course import slides, workshop
from packlab.course.cli import cmd_demo, parser
from packlab.course.manifest import load

NOTES = "> 🗣 **Speaker notes"
KEY_WIDGETS = ("budget_slider(", "break_vs_continue(", "drop_curve_view(")
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


def presenter() -> nbformat.NotebookNode:
    return nbformat.read(workshop.PRESENTER, as_version=4)


def sections(notebook) -> list[list]:
    """The notebook's cells cut at each `## ` heading (the part before the first one dropped)."""
    found: list[list] = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("## "):
            found.append([cell])
        elif found:
            found[-1].append(cell)
    return found


# --------------------------------------------------------------------------- the notebook


def test_presenter_notebook_is_clean():
    notebook = presenter()
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None


def test_presenter_notebook_drives_the_key_widgets():
    code = "\n".join(c.source for c in presenter().cells if c.cell_type == "code")
    for call in KEY_WIDGETS:
        assert call in code, f"the presenter's notebook never shows {call}…)"
    # A realistic request on the budget slider, not a toy list.
    assert "chat_parts()" in code and "budget_slider(parts" in code


def test_every_section_has_timed_speaker_notes_with_a_question():
    notebook = presenter()
    parts = sections(notebook)
    assert len(parts) >= 5
    for part in parts[:-1]:  # the closing "your turn" has notes too, without a time slot
        heading = part[0].source.splitlines()[0]
        assert re.search(r"\d:\d\d–\d:\d\d\)", heading), f"no time slot in {heading!r}"
    for part in parts:
        heading = part[0].source.splitlines()[0]
        notes = [c for c in part if c.cell_type == "markdown" and c.source.startswith(NOTES)]
        assert notes, f"no speaker notes under {heading!r}"
        text = "\n".join(c.source for c in notes)
        assert "Ask the room" in text, f"no question for the room under {heading!r}"
        for cell in notes:
            assert all(line.startswith(">") for line in cell.source.splitlines()), \
                "speaker notes are one blockquote, so they stand out from the screen text"
            assert "speaker-notes" in cell.metadata.get("tags", [])
            assert cell.metadata["slideshow"]["slide_type"] == "notes"
    timed = [c.source for c in notebook.cells if c.source.startswith(NOTES)]
    assert sum(bool(re.search(r"\d+ min", text)) for text in timed) >= 5


@pytest.mark.slow
def test_presenter_notebook_runs_top_to_bottom_with_live_widgets(tmp_path):
    notebook = presenter()
    NotebookClient(notebook, timeout=120, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    views = [o for o in outputs if slides.WIDGET_VIEW in o.get("data", {})]
    widget_cells = [c for c in notebook.cells if c.cell_type == "code"
                    and any(call in c.source for call in (*KEY_WIDGETS, "fit_view(", "turn_view("))]
    assert len(views) == len(widget_cells) >= 5
    # Every view has its picture: a still rendered from the saved state holds a PNG.
    states = slides._widget_states(notebook)
    for view in views:
        still = slides.render_widget(view.data[slides.WIDGET_VIEW]["model_id"], states)
        assert "data:image/png;base64," in still and 'type="range"' in still
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    found = re.search(r"disagree at (\d+) budgets", printed)
    assert found and int(found.group(1)) > 0, "the live-coding packer should start out wrong"


# --------------------------------------------------------------------------- make demo


def _schema_properties(plugin: str) -> dict:
    package, _, name = plugin.rpartition("/")
    return json.loads((SCHEMAS / package / f"{name}.json").read_text())


def test_demo_settings_are_valid_for_this_jupyterlab():
    themes = _schema_properties("@jupyterlab/apputils-extension/themes")
    allowed = themes["definitions"]["cssOverrides"]["properties"]
    overrides = workshop.settings()["@jupyterlab/apputils-extension/themes"]["overrides"]
    assert set(overrides) <= set(allowed)
    assert overrides["code-font-size"] == "22px"
    assert all(int(value.removesuffix("px")) >= 18 for value in overrides.values())
    for plugin, values in workshop.settings().items():
        schema = _schema_properties(plugin)["properties"]
        assert set(values) <= set(schema), plugin
    assert workshop.settings(30)["@jupyterlab/apputils-extension/themes"]["overrides"][
        "code-font-size"] == "30px"


def test_demo_prepares_the_notebook_and_the_font_override(tmp_path):
    folder = workshop.prepare(tmp_path / "ws")
    copy = folder / workshop.NOTEBOOK
    assert copy.read_bytes() == workshop.PRESENTER.read_bytes()
    assert (folder / "START.ipynb").is_file()  # the lessons are at hand too
    assert (folder / "lessons" / "02-priority-then-greedy.ipynb").is_file()
    themes = (folder / workshop.SETTINGS / "user-settings" / "@jupyterlab" / "apputils-extension"
              / "themes.jupyterlab-settings")
    assert json.loads(themes.read_text())["overrides"]["code-font-size"] == "22px"

    # Live-coded cells survive the next launch; --fresh starts over.
    copy.write_text(copy.read_text().replace("my_pack", "my_packer"))
    workshop.prepare(folder)
    assert "my_packer" in copy.read_text()
    workshop.prepare(folder, fresh=True)
    assert copy.read_bytes() == workshop.PRESENTER.read_bytes()


def test_demo_command_honours_port_token_headless_and_root(tmp_path):
    env = {"JUPYTER_PORT": "9123", "JUPYTER_TOKEN": "s3cret"}
    line = workshop.command(tmp_path, env)
    assert f"--ServerApp.root_dir={tmp_path}" in line
    assert f"--LabApp.default_url=/lab/tree/{workshop.NOTEBOOK}" in line
    assert "--ServerApp.port=9123" in line and "--IdentityProvider.token=s3cret" in line
    assert "--no-browser" in line or sys.platform == "darwin"
    assert ("--allow-root" in line) == (os.geteuid() == 0)
    environment = workshop.environment(tmp_path, {"PATH": "/usr/bin"})
    assert environment["JUPYTERLAB_SETTINGS_DIR"] == str(
        tmp_path / workshop.SETTINGS / "user-settings")
    assert environment["PATH"] == "/usr/bin"


def test_packlab_demo_is_a_command():
    args = parser().parse_args(["demo", "--fresh", "--font-size", "26"])
    assert args.run is cmd_demo and args.fresh and args.font_size == 26


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
@pytest.mark.xdist_group("demo")
def test_packlab_demo_serves_the_notebook_with_big_fonts(tmp_path):
    """One real `packlab demo`: JupyterLab reports the font override as the themes setting."""
    port, token = _free_port(), secrets.token_hex(16)
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    env.update(JUPYTER_PORT=str(port), JUPYTER_TOKEN=token,
               PACKLAB_WORKSPACE=str(tmp_path / "ws"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        process = subprocess.Popen([str(Path(sys.executable).with_name("packlab")), "demo"],
                                   stdout=err, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                   cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text(errors="replace")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    break
            except (urllib.error.URLError, OSError):
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.5)
        url = f"{base}/lab/api/settings/@jupyterlab/apputils-extension:themes?token={token}"
        with urllib.request.urlopen(url, timeout=10) as answer:
            themes = json.load(answer)
        assert themes["settings"]["overrides"]["code-font-size"] == "22px"
        contents = f"{base}/api/contents/{workshop.NOTEBOOK}?token={token}&content=0"
        with urllib.request.urlopen(contents, timeout=10) as answer:
            assert json.load(answer)["type"] == "notebook"
        with urllib.request.urlopen(f"{base}/?token={token}", timeout=10) as page:
            assert f"/lab/tree/{workshop.NOTEBOOK}" in page.url
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
                process.wait(timeout=10)
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue


# --------------------------------------------------------------------------- make slides


def _cell_ids(notebook) -> list[str]:
    return [c.metadata["slideshow"]["slide_type"] for c in notebook.cells]


def test_each_heading_starts_a_slide_and_long_sections_are_split():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    notebook = nbformat.v4.new_notebook(cells=[
        md("# Title\n\nintro"), code("x = 1"), md("## 1. First"), md("short"),
        code("\n".join(f"line{i}" for i in range(30))), md("### Predict"), md("## 2. Second"),
    ])
    assert _cell_ids(slides.assign_slides(notebook)) == [
        "slide", "-", "slide", "-", "subslide", "subslide", "slide"]


def test_a_widget_becomes_a_still_of_its_saved_state():
    png = base64.b64encode(b"\x89PNG fake").decode()
    state = {
        "box": {"model_name": "VBoxModel", "state": {
            "children": ["IPY_MODEL_slider", "IPY_MODEL_image", "IPY_MODEL_html"]}},
        "slider": {"model_name": "IntSliderModel",
                   "state": {"value": 400, "min": 0, "max": 601, "description": "budget"}},
        "image": {"model_name": "ImageModel", "state": {"format": "png"},
                  "buffers": [{"path": ["value"], "data": png, "encoding": "base64"}]},
        "html": {"model_name": "HTMLModel", "state": {"value": "<b>taken</b> (8)"}},
    }
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("budget_slider(parts)")])
    notebook.cells[0].outputs = [nbformat.v4.new_output(
        "display_data", data={slides.WIDGET_VIEW: {"model_id": "box", "version_major": 2},
                              "text/plain": "BudgetView(...)"})]
    notebook.metadata["widgets"] = {slides.WIDGET_STATE: {"state": state}}
    assert slides.still_widgets(notebook) == 1
    shown = notebook.cells[0].outputs[0].data["text/html"]
    assert f"data:image/png;base64,{png}" in shown
    assert 'value="400"' in shown and "<b>400</b>" in shown and "<b>taken</b> (8)" in shown
    assert "make lab" in shown
    assert "widgets" not in notebook.metadata
    assert slides.WIDGET_VIEW not in notebook.cells[0].outputs[0].data


class References(HTMLParser):
    """Every URL the page loads by itself: scripts, style sheets, images, frames, media."""

    LOADED = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src",
              "video": "src", "audio": "src", "embed": "src", "object": "data"}

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        wanted = self.LOADED.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append(value)


def external(url: str) -> bool:
    return url.startswith(("http:", "https:", "//"))


@pytest.fixture(scope="module")
def built(tmp_path_factory, worker_id):
    """Every lesson's slides (about 15 s on two cores), built once per test session: the xdist
    workers share one build through a lock in the session's temporary folder."""
    shared = tmp_path_factory.getbasetemp()
    shared = shared if worker_id == "master" else shared.parent
    out, lessons = shared / "workshop-slides", list(load().lessons)
    with open(shared / "workshop-slides.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = out / "built.json"
        if not done.is_file():
            before = {lesson.path: lesson.path.read_bytes() for lesson in lessons}
            try:
                paths = slides.build(lessons, out, jobs=2)
            except slides.AssetsUnavailable as exc:
                if os.environ.get("CI") == "true":
                    pytest.fail(f"cannot build slides in CI: {exc}")
                pytest.skip(f"SLIDES NOT TESTED: {exc}")
            assert all(lesson.path.read_bytes() == before[lesson.path] for lesson in lessons), \
                "building slides changed a lesson"
            done.write_text(json.dumps([str(path) for path in paths]))
    return out, [Path(path) for path in json.loads(done.read_text())]


@pytest.mark.slow
@pytest.mark.xdist_group("slides")
def test_slides_are_built_with_local_reveal_and_mathjax(built):
    out, paths = built
    assert [p.name for p in paths] == [f"{lesson.slug}.slides.html" for lesson in load().lessons]
    assert (out / "_assets" / "reveal.js" / "dist" / "reveal.js").is_file()
    assert (out / "_assets" / "reveal.js" / "plugin" / "notes" / "notes.js").is_file()
    assert (out / "_assets" / "mathjax" / "es5" / "tex-chtml.js").is_file()
    index = (out / "index.html").read_text()
    assert 'href="02-priority-then-greedy.slides.html"' in index
    for path in paths:
        page = path.read_text()
        finder = References()
        finder.feed(page)
        assert "_assets/reveal.js/dist/reveal.js" in finder.urls
        assert "_assets/mathjax/es5/tex-chtml.js" in finder.urls
        assert not [url for url in finder.urls if external(url)], path.name
        for url in finder.urls:
            if not url.startswith(("data:", "#")):
                assert (out / url.split("#")[0].split("?")[0]).is_file(), f"{path.name}: {url}"
        # Nothing else reaches out: no CSS url()/@import, module import or require() of a URL.
        assert not re.search(r"""(url\(|@import|import\s[^;]*from|require\()\s*['"]?(https?:)?//""",
                             page), path.name
        assert "cdnjs" not in page and "unpkg" not in page and "jsdelivr" not in page
    # The style sheets the pages load (the reveal.js theme, its fonts) stay local as well.
    for sheet in (out / "_assets").rglob("*.css"):
        imports = re.findall(r"""(?:@import\s+|url\()\s*['"]?([^'")\s;]+)""", sheet.read_text())
        assert not [url for url in imports if external(url)], sheet


@pytest.mark.slow
@pytest.mark.xdist_group("slides")
def test_each_section_is_a_slide_and_widgets_are_stills(built):
    out, paths = built
    page = paths[1].read_text()
    lesson = nbformat.read(load().lesson("02-priority-then-greedy").path, as_version=4)
    headings = [c for c in lesson.cells if c.cell_type == "markdown"
                and c.source.lstrip().startswith(("# ", "## "))]
    assert page.count("<section") >= len(headings) + 1
    assert slides.WIDGET_VIEW not in page and slides.WIDGET_STATE not in page
    # The budget slider and the quiz: a still of the saved state, or the view's own static
    # rendering (packlab.views.static) when it has one.
    stills = page.count('class="packlab-still"') + page.count('class="packlab-static"')
    assert stills >= 2
    assert "data:image/png;base64," in page
    assert "in JupyterLab" in page
    for path in paths:
        assert slides.WIDGET_VIEW not in path.read_text(), path.name


@pytest.mark.slow
@pytest.mark.xdist_group("slides")
def test_slides_show_offline_in_a_real_browser(built):
    """Chromium opens two decks from disk: reveal.js starts, MathJax typesets lesson 09's
    formulas, nothing is requested from outside and nothing fails."""
    from browser import chromium, screenshot_path

    out, paths = built
    with chromium() as context:
        page = context.new_page()
        problems, outside = [], []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("requestfailed", lambda request: problems.append(f"failed: {request.url}"))
        page.on("request", lambda request: outside.append(request.url)
                if not request.url.startswith(("file:", "data:")) else None)
        for path, slide in ((paths[1], "/5"), (paths[8], "/2")):
            page.goto(f"{path.as_uri()}#{slide}")
            page.wait_for_function("typeof Reveal !== 'undefined' && Reveal.isReady()")
            assert page.evaluate("Reveal.getTotalSlides()") > 10
            page.screenshot(path=screenshot_path(f"slides-{path.stem}"))
        page.wait_for_function("document.querySelectorAll('mjx-container').length > 0")
    assert not outside, outside
    assert not problems, problems
