"""An nbgrader course folder as nbgrader itself reads it: its settings (nbgrader_config.py, by
nbgrader's own CourseDirectory) and its gradebook's database address. The term's gradebook
writes through it; a plain assignment's run reads the cells nbgrader stored."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import make_url

CONFIG = "nbgrader_config.py"


def config(course: Path):
    """The course's nbgrader_config.py as traitlets reads it (an empty config when missing)."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    if not (course / CONFIG).is_file():
        return Config()
    return PyFileConfigLoader(CONFIG, path=str(course)).load_config()


def settings(course: Path):
    """nbgrader's own reading of the course's nbgrader_config.py (its CourseDirectory)."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=config(course), root=str(course))


def in_folder(url: str, folder: Path) -> str:
    """A relative SQLite path is relative to the course folder (as for nbgrader run there)."""
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite") and parsed.database \
            and parsed.database != ":memory:" and not os.path.isabs(parsed.database):
        parsed = parsed.set(database=str(folder / parsed.database))
    return parsed.render_as_string(hide_password=False)
