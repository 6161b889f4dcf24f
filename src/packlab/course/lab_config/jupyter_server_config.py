"""Jupyter server config of the course's JupyterLab (packlab.course.workspace.LAB_CONFIG).

A terminal runs the user's shell as an ordinary interactive shell, not a login shell: a login
shell reads /etc/profile, which on many systems sets PATH afresh and so loses the course's Python
(and `packlab`) that `packlab lab` put first on it. The user's ~/.bashrc (or ~/.zshrc) still runs.
"""

import os
import shutil

c = get_config()  # noqa: F821 - provided by Jupyter when it loads this file
c.ServerApp.terminado_settings = {"shell_command": [os.environ.get("SHELL") or shutil.which("sh")]}
