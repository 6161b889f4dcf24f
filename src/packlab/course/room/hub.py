"""The room on a JupyterHub: the service in the hub's configuration, and the presenter's chart.

In ``jupyterhub_config.py``::

    from packlab.course.room.hub import configure
    configure(c, db="/srv/packlab/room.sqlite", port=10101)

runs the room as a hub-managed service at ``/services/room/``, tells every learner's server
where it is (``PACKLAB_ROOM_URL``), lets the service ask the hub which groups a user is in, and
lets the hub's admins and the ``presenters`` group open the chart (no consent page). Learners
are the members of the ``learners`` group (``learners=`` to change it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from packlab.course.room.report import URL_VARIABLE

NAME = "room"
PREFIX = f"/services/{NAME}/"


def configure(c, db: str | Path, port: int, learners: str = "learners",
              presenters: str = "presenters") -> None:
    """Add the room's service to JupyterHub's configuration object ``c``."""
    url = f"http://127.0.0.1:{port}"
    c.JupyterHub.services.append({
        "name": NAME, "url": url, "oauth_no_confirm": True,
        "command": [sys.executable, "-m", "packlab.course.room.service", "--db", str(db),
                    "--group", learners],
    })
    c.JupyterHub.load_roles.extend([
        {"name": "packlab-room-service", "services": [NAME],
         "scopes": ["read:users:name", "read:users:groups"]},
        {"name": "packlab-room-presenter", "groups": [presenters],
         "scopes": [f"access:services!service={NAME}"]},
    ])
    groups = c.JupyterHub.load_groups  # a dict once set, else traitlets' lazy value (update only)
    for group in (learners, presenters):  # a group the hub's config already fills stays as is
        if not isinstance(groups, dict) or group not in groups:
            c.JupyterHub.load_groups.update({group: {"users": []}})
    c.Spawner.environment.update({URL_VARIABLE: url + PREFIX.rstrip("/")})


def chart(height: int = 560):
    """The room's live chart, for the presenter's notebook on the hub (an IFrame of the
    service's page, which asks the hub who is looking); elsewhere, a line saying where it is."""
    from IPython.display import IFrame

    base = os.environ.get("JUPYTERHUB_BASE_URL")
    if not base:
        print("The room's chart runs on the hub (`packlab.course.room.hub.configure`): open this "
              "notebook from your server there.")
        return None
    return IFrame(base.rstrip("/") + PREFIX, width="100%", height=height)
