"""Notebook runs whose kernels talk on unix sockets, never on TCP ports.

nbclient's kernel manager picks a kernel's five TCP ports by asking the system for free ones and
closing them; the kernel binds them a moment later. Two processes starting kernels in the same
second (the book's lessons run one per core) can pick the same port, and one kernel dies with
"Address already in use". Unix sockets are named by the kernel's own connection file instead.
A socket's path has a length limit (108 bytes on Linux, 104 on macOS): where Jupyter's runtime
folder is too deep for it, the kernel keeps nbclient's TCP ports.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import nbformat
from jupyter_core.paths import jupyter_runtime_dir
from nbclient import NotebookClient
from traitlets.config import Config

SOCKET_PATH_MAX = 100  # bytes: under both systems' limits, with room for the socket's number


def on_unix_sockets() -> Config:
    """Kernel-manager config for one kernel on unix sockets beside its connection file in
    Jupyter's runtime folder (both removed when the kernel shuts down); no config when the
    sockets' paths would be too long."""
    runtime = Path(jupyter_runtime_dir())
    connection = runtime / f"kernel-{uuid.uuid4()}.json"
    if len(os.fsencode(f"{connection.with_suffix('')}-ipc-99")) > SOCKET_PATH_MAX:
        return Config()
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    return Config({"KernelManager": {"transport": "ipc", "connection_file": str(connection)}})


def notebook_client(notebook: nbformat.NotebookNode, **options: Any) -> NotebookClient:
    """nbclient's ``NotebookClient(notebook, **options)`` with its kernel on unix sockets."""
    return NotebookClient(notebook, config=on_unix_sockets(), **options)
