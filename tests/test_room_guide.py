"""The presenters' guide's hub configuration for the room does what the page says (its ```python
block is not run by tests/test_guides.py, which runs ```bash blocks only)."""

from __future__ import annotations

import re

from traitlets.config import Config

from packlab.course.book import BOOK
from packlab.course.room import hub


def test_the_guides_configuration_adds_the_room_to_a_hub():
    page = (BOOK / "presenters.md").read_text(encoding="utf-8")
    block = re.search(r"## The room, live.*?```python\n(.*?)```", page, re.S).group(1)
    c = Config()
    exec(block, {"c": c})  # noqa: S102 - the course's own guide
    service = next(s for s in c.JupyterHub.services.get_value([]) if s["name"] == "room")
    assert service["url"] == "http://127.0.0.1:10101" and service["oauth_no_confirm"]
    assert service["command"][-4:] == ["--db", "/srv/packlab/room.sqlite", "--group", "learners"]
    roles = {role["name"]: role for role in c.JupyterHub.load_roles.get_value([])}
    assert roles["packlab-room-presenter"]["groups"] == ["presenters"]
    assert c.Spawner.environment.get_value({})["PACKLAB_ROOM_URL"] == \
        "http://127.0.0.1:10101" + hub.PREFIX.rstrip("/")
