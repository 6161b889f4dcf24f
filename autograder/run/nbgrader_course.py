"""An nbgrader course folder as nbgrader itself reads it: its settings (nbgrader_config.py, by
nbgrader's own CourseDirectory, or merged with Jupyter's config path as nbgrader's commands read
it) and its gradebook's database address. The term's gradebook writes through it; a plain
assignment's run reads the cells nbgrader stored; the forgery guard finds the exchange by it."""

from __future__ import annotations

import os
from pathlib import Path

CONFIG = "nbgrader_config.py"


def config(course: Path):
    """The course's nbgrader_config.py as traitlets reads it (an empty config when missing)."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    if not (course / CONFIG).is_file():
        return Config()
    return PyFileConfigLoader(CONFIG, path=str(course)).load_config()


def commands_config(course: Path):
    """nbgrader's settings as its commands read them: Jupyter's config path (where the hub puts
    the exchange's), then the course's nbgrader_config.py; a broken file is skipped (nbgrader's
    own commands report it)."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import load_pyconfig_files

    merged = Config()
    for folder in [*reversed(jupyter_config_path()), str(course)]:
        try:
            merged.merge(load_pyconfig_files([CONFIG], folder))
        except Exception:  # noqa: BLE001 - a broken file is nbgrader's to report; skip it
            continue
    return merged


def settings(course: Path):
    """nbgrader's own reading of the course's nbgrader_config.py (its CourseDirectory)."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=config(course), root=str(course))


def in_folder(url: str, folder: Path) -> str:
    """A relative SQLite path is relative to the course folder (as for nbgrader run there)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite") and parsed.database \
            and parsed.database != ":memory:" and not os.path.isabs(parsed.database):
        parsed = parsed.set(database=str(folder / parsed.database))
    return parsed.render_as_string(hide_password=False)
