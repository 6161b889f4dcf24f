"""`make demo`: the presenter's notebook in JupyterLab, with fonts a projector can carry.

`prepare` puts the presenter's notebook (workshop/presenter.ipynb) into the demo's own folder
(`demo/`, or PACKLAB_DEMO_FOLDER; never the learner's `workspace/`, whose file browser must not
show presenter files), next to copies of the lessons, without its speaker notes (the room sees that
notebook); the notes go to a page of their own for the presenter's second window, followed by each
lesson's notes (`packlab.course.notes`, the slides' source too). That page lives in the demo's
hidden `.presenter/` folder, which the room's file browser (on the projector) never lists: the
presenter opens it from disk.
It also writes a JupyterLab settings folder for this launch only: larger code, content and UI
fonts, line numbers in code cells, no news or update checks (the room may be offline). `run`
serves JupyterLab at that notebook the way `packlab lab` does (JUPYTER_PORT, JUPYTER_TOKEN,
JUPYTER_IP honoured; headless and as root), with JUPYTERLAB_SETTINGS_DIR and
JUPYTERLAB_WORKSPACES_DIR pointing at that folder, so the presenter's own JupyterLab settings are
neither used nor changed; its kernels get the demo's canvas (`canvas`: PACKLAB_FIGURE_SCALE,
_WIDTH and _HEIGHT), so the figures grow with the fonts and a slider with its picture fits a
1280 × 720 screen. The left sidebar starts folded (`write_settings` writes the default
workspace's layout).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from packlab.course import notes, workspace
from packlab.course.predict import PRESENTER_VARIABLE
from packlab.manifest import ROOT, load
from packlab.views.plots import DEMO, Canvas

PRESENTER = ROOT / "workshop" / "presenter.ipynb"
NOTEBOOK = "workshop/presenter.ipynb"  # where it lands in the workspace, and the URL path
SETTINGS = ".presenter"  # hidden folder in the workspace: user settings and layouts of the demo
# The presenter's own window, in the hidden folder: the room's file browser does not list it.
NOTES_PAGE = f"{SETTINGS}/speaker-notes.html"
OLD_NOTES_PAGE = "workshop/speaker-notes.html"  # where earlier versions put it, beside the notebook
DEMO_VARIABLE = "PACKLAB_DEMO_FOLDER"  # where the demo's folder goes (default: demo/)
LAB_CONTENT_PX = 14  # JupyterLab's usual text size: the demo's figures grow by code_px / this

# CSS variables the theme manager may override (schema apputils-extension/themes.json, "overrides").
FONT_SIZES = {"code-font-size": 22, "content-font-size1": 22, "ui-font-size1": 18}


def settings(code_px: int = FONT_SIZES["code-font-size"]) -> dict[str, dict]:
    """The JupyterLab user settings of the demo, by settings file (plugin id → settings)."""
    scale = code_px / FONT_SIZES["code-font-size"]
    overrides = {key: f"{round(px * scale)}px" for key, px in FONT_SIZES.items()}
    return {
        "@jupyterlab/apputils-extension/themes": {"overrides": overrides},
        # The news feed and update check would reach out to the internet; a projector does not
        # need a pop-up asking about them.
        "@jupyterlab/apputils-extension/notification": {
            "fetchNews": "false", "checkForUpdates": False,
        },
        # "Look at line 4" only works with line numbers.
        "@jupyterlab/notebook-extension/tracker": {
            "codeCellConfig": {"lineNumbers": True, "lineWrap": True},
        },
    }


def write_settings(folder: Path, code_px: int = FONT_SIZES["code-font-size"]) -> Path:
    """Write the demo's user-settings folder under ``folder``; return it."""
    user_settings = folder / "user-settings"
    for plugin, values in settings(code_px).items():
        package, _, name = plugin.rpartition("/")
        path = user_settings / package / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values, indent=2) + "\n", encoding="utf-8")
    default_workspace(folder / "workspaces")
    return user_settings


# JupyterLab's layout restorer reads this from the default workspace: the file browser and the
# other side panels start folded, so the notebook has the screen's whole width.
FOLDED = {"layout-restorer:data": {
    "left": {"collapsed": True, "visible": True, "widgets": []},
    "right": {"collapsed": True, "visible": True, "widgets": []},
}}


def default_workspace(folder: Path) -> Path:
    """Write JupyterLab's default workspace with the sidebars folded, unless one is there (the
    presenter may have opened a panel since: their layout is kept)."""
    from jupyterlab_server.workspaces_handler import WORKSPACE_EXTENSION, slugify

    path = folder / f"{slugify('default')}{WORKSPACE_EXTENSION}"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"data": FOLDED, "metadata": {"id": "default"}}, indent=2)
                        + "\n", encoding="utf-8")
    return path


def default_folder() -> Path:
    """The demo's folder: a workspace of its own, apart from the learner's."""
    return Path(os.environ.get(DEMO_VARIABLE) or ROOT / "demo")


def prepare(folder: Path | None = None, fresh: bool = False,
            code_px: int = FONT_SIZES["code-font-size"]) -> Path:
    """The demo's folder: the course's lessons, the presenter's notebook and the demo's settings.

    The copy the room sees has no speaker notes; they go to a page of their own (NOTES_PAGE),
    made from the same notebook. An existing copy is kept (it may hold live-coded cells), minus
    any notes, unless ``fresh`` is true.
    """
    folder = workspace.prepare(folder or default_folder())
    copy = folder / NOTEBOOK
    source = nbformat.read(PRESENTER, as_version=4)
    if fresh or not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(workspace.learner_notebook(notes.without_notes(source)), copy)
    elif notes.notes(kept := nbformat.read(copy, as_version=4)):
        nbformat.write(notes.without_notes(kept), copy)
    lessons = [(lesson.title, lesson.path, lesson.slug) for lesson in load().lessons]
    (folder / OLD_NOTES_PAGE).unlink(missing_ok=True)
    (folder / NOTES_PAGE).parent.mkdir(parents=True, exist_ok=True)
    (folder / NOTES_PAGE).write_text(
        notes.notes_page(source, "Speaker notes: packing the context window, live", lessons),
        encoding="utf-8")
    if fresh:  # the layout too: sidebars folded again
        shutil.rmtree(folder / SETTINGS / "workspaces", ignore_errors=True)
    write_settings(folder / SETTINGS, code_px)
    return folder


def canvas(code_px: int = FONT_SIZES["code-font-size"]) -> Canvas:
    """What the demo's kernels draw for: texts as much larger as the fonts, the demo's size."""
    return dataclasses.replace(DEMO, scale=code_px / LAB_CONTENT_PX)


def environment(folder: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The course server's environment, with JupyterLab's settings in the demo's folder."""
    env = workspace.server_environment(base)
    env[PRESENTER_VARIABLE] = "1"  # a predict question opens without a prediction, on request
    env["JUPYTERLAB_SETTINGS_DIR"] = str(folder / SETTINGS / "user-settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(folder / SETTINGS / "workspaces")
    return env


def command(folder: Path, env: dict[str, str] | None = None) -> list[str]:
    """`jupyter lab` serving ``folder`` at the presenter's notebook (`packlab lab`'s options)."""
    env = os.environ if env is None else env
    line = [
        sys.executable, "-m", "jupyter", "lab",
        f"--ServerApp.root_dir={folder}",
        f"--LabApp.default_url=/lab/tree/{NOTEBOOK}",
        '--ServerApp.jpserver_extensions={"nbgrader.server_extensions.formgrader": False}',
        f"--ServerApp.port={env.get('JUPYTER_PORT', '8888')}",
        f"--ServerApp.ip={env.get('JUPYTER_IP', '127.0.0.1')}",
    ]
    if "JUPYTER_TOKEN" in env:
        line.append(f"--IdentityProvider.token={env['JUPYTER_TOKEN']}")
    if not env.get("DISPLAY") and sys.platform != "darwin":
        line.append("--no-browser")
    if os.geteuid() == 0:
        line.append("--allow-root")
    return line


def run(folder: Path | None = None, fresh: bool = False,
        code_px: int = FONT_SIZES["code-font-size"]) -> int:
    """Prepare the demo and serve it until Ctrl-C."""
    folder = prepare(folder, fresh=fresh, code_px=code_px)
    print(f"Presenter's notebook: {folder / NOTEBOOK} (fonts {code_px}px; settings for this "
          f"launch only, in {folder / SETTINGS}). Run all cells before the room arrives.\n"
          f"Speaker notes, for your own screen (open it in a browser window of its own; the "
          f"room's file browser does not list it): {(folder / NOTES_PAGE).resolve().as_uri()}\n"
          "Stop with Ctrl-C.", flush=True)
    env = environment(folder)
    env.update(canvas(code_px).environment())  # the kernels' figures follow the fonts
    return subprocess.call(command(folder), env=env, cwd=folder)  # terminals open there too
