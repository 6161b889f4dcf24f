"""The course's own notebook runs (the book's lessons, the slides, the tests) start their kernels
on unix sockets, so two runs starting at once cannot pick the same TCP port."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from jupyter_core.paths import jupyter_runtime_dir

from packlab.course.kernels import SOCKET_PATH_MAX, notebook_client, on_unix_sockets


def test_a_notebook_runs_on_unix_sockets_and_leaves_nothing_behind(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import ipykernel.connect\nprint(ipykernel.connect.get_connection_info())")])
    client = notebook_client(notebook, timeout=120, kernel_name="python3",
                             resources={"metadata": {"path": str(tmp_path)}})
    connection_file = Path(client.config.KernelManager.connection_file)
    client.execute()
    info = json.loads(notebook.cells[0].outputs[0].text)
    assert info["transport"] == "ipc", info
    assert info["ip"] == str(connection_file.with_suffix("")) + "-ipc", info
    assert connection_file.parent == Path(jupyter_runtime_dir())
    left = [p.name for p in connection_file.parent.iterdir() if p.name.startswith(
        connection_file.stem)]
    assert left == [], left  # the connection file and the five sockets are gone
    assert list(tmp_path.iterdir()) == []  # nothing in the notebook's own folder


def test_every_run_gets_its_own_connection_file():
    first, second = (notebook_client(nbformat.v4.new_notebook()) for _ in range(2))
    assert first.config.KernelManager.connection_file != second.config.KernelManager.connection_file


def test_a_runtime_folder_too_deep_for_a_socket_keeps_tcp(tmp_path, monkeypatch):
    """A unix socket's path has a length limit; past it the kernel keeps nbclient's TCP ports
    (and nothing is made in that folder) rather than failing to start."""
    deep = tmp_path / ("d" * SOCKET_PATH_MAX)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(deep))
    assert "KernelManager" not in on_unix_sockets()
    assert not deep.exists()
