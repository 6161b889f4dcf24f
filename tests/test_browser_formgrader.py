"""formgrader, nbgrader's own grading page, lists the students by the names `packlab roster` put
into the gradebook, in a real Chromium (formgrader builds its students table in the browser).

A course folder gets a gradebook with one student the roster does not name (cy, as `packlab grade`
adds a student it finds in submitted/); `packlab roster` names ada. nbgrader's formgrader is
served by a real Jupyter server in that folder, and its "Manage Students" page is read as shown.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import WAIT_MS, chromium, free_port, require_browser, stop_group, wait_for_http

from packlab.manifest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("formgrader"),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # alembic, for nbgrader


@contextlib.contextmanager
def formgrader(course: Path, seconds: float = 90) -> Iterator[str]:
    """A Jupyter server in ``course`` with nbgrader's formgrader on; yields the students page's
    URL. The whole process group is ended afterwards."""
    port, token = free_port(), secrets.token_hex(16)
    log = course.parent / "server.log"
    env = {**ENV, "JUPYTER_RUNTIME_DIR": str(course.parent / "runtime")}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(BIN / "jupyter"), "server", "--no-browser", "--allow-root", f"--port={port}",
             f"--ServerApp.token={token}",
             '--ServerApp.jpserver_extensions={"nbgrader.server_extensions.formgrader": True}'],
            cwd=course, env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/formgrader/api/students?token={token}", process, seconds, log)
        yield f"{base}/formgrader/manage_students?token={token}"
    finally:
        stop_group(process)


def test_formgrader_lists_the_rosters_names_instead_of_none_none(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook

    require_browser()  # before paying for a server
    monkeypatch.setenv("PATH", ENV["PATH"])
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
        gb.add_student("cy")  # as `packlab grade` adds a student it finds in submitted/
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada King Lovelace,ada@example.org\n")
    done = subprocess.run([str(BIN / "packlab"), "roster", str(roster), "--course", str(course)],
                          env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr

    with formgrader(course) as url, chromium() as context:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function("() => document.querySelectorAll('tbody tr td.name').length >= 2",
                               timeout=WAIT_MS)
        rows = {row.locator("td.id").inner_text().strip(): row.locator("td.name").inner_text()
                .strip() for row in page.locator("tbody tr").all()
                if row.locator("td.name").count()}
    assert rows["ada"] == "Lovelace, Ada King"
    assert rows["cy"] == "None, None"  # a student the roster does not name: as before
