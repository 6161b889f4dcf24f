"""The learner's side of the room: a check on the hub tells the room's service what passed and
which misconception it named, unless the learner opted out (`packlab room off`).

Only on a hub whose configuration runs the room (`PACKLAB_ROOM_URL` and the server's
`JUPYTERHUB_API_TOKEN` in the environment, see `packlab.course.room.hub`): anywhere else nothing
is sent and nothing is printed. The hub identifies the learner by that token; the report holds
no name. A room that does not answer within `TIMEOUT_SECONDS` never fails the check.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path

URL_VARIABLE = "PACKLAB_ROOM_URL"  # the service's address, set by the hub for each server
TIMEOUT_SECONDS = 3.0  # 30 servers starting at once on 2 cores made a report take over 1 s
ON_LINE = "The room's chart counts this check (no names shown); `packlab room off` to opt out."


def opt_out_file() -> Path:
    """Where the learner's choice to stay out of the room's chart is kept (their home)."""
    return Path.home() / ".packlab" / "room-off"


def on_hub() -> bool:
    """Is this a server of a hub that runs the room?"""
    return bool(os.environ.get(URL_VARIABLE) and os.environ.get("JUPYTERHUB_API_TOKEN"))


def counted() -> bool:
    """Does this learner's check reach the room's chart?"""
    return on_hub() and not opt_out_file().exists()


def payload(course: str, exercise: str, passed: Iterable[str],
            failed: Iterable[tuple[str, str]]) -> dict:
    """What a check tells the room: the checks that passed, and each failed check's
    misconception key."""
    return {"course": course, "exercise": exercise, "passed": list(passed),
            "failed": [{"check": check, "misconception": key} for check, key in failed]}


def _request(method: str, path: str, body: dict | None = None) -> int:
    """Send to the room's service with the server's hub token; the HTTP status (0: no answer)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        os.environ[URL_VARIABLE].rstrip("/") + path, data=data, method=method,
        headers={"Authorization": f"token {os.environ['JUPYTERHUB_API_TOKEN']}",
                 "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except (OSError, ValueError):
        return 0


def send(report: dict) -> str | None:
    """Tell the room about one check; the line the learner reads (None off the hub or opted
    out: then nothing was sent)."""
    if not counted():
        return None
    status = _request("POST", "/api/reports", report)
    if status == 201:
        return ON_LINE
    if status == 429:
        return ("The room's chart skipped this check: many checks in a short time. It counts "
                "the next.")
    return "The room's chart could not count this check; your check itself is unaffected."


def set_counted(on: bool) -> str:
    """`packlab room on` / `off`: the learner's choice, kept in their home; turning it off also
    asks the service to forget what it counted of them."""
    flag = opt_out_file()
    if on:
        flag.unlink(missing_ok=True)
        return status_line()
    flag.parent.mkdir(parents=True, exist_ok=True)
    flag.write_text("The room's chart does not count my checks (`packlab room on` undoes it).\n",
                    encoding="utf-8")
    if not on_hub():
        return status_line()
    forgot = _request("DELETE", "/api/reports/mine") == 204
    return status_line() + ("" if forgot else " (The room's service did not answer: what it "
                                              "counted before stays until it does.)")


def status_line() -> str:
    """Whether this learner's checks are counted, in words."""
    if opt_out_file().exists():
        return "Your checks are not counted in the room's chart (`packlab room on` to join)."
    if not on_hub():
        return ("No room's chart here: checks are only counted on a hub that runs one "
                "(`packlab room off` to stay out of it there).")
    return "Your checks are counted in the room's chart, without your name (`packlab room off`)."


def send_prediction(course: str, question: str, given: list[str]) -> str | None:
    """Tell the room one committed prediction (the room judges it); the line the learner could
    read (None off the hub or opted out: then nothing was sent)."""
    if not counted():
        return None
    status = _request("POST", "/api/predictions",
                      {"course": course, "question": question, "given": list(given)})
    return ON_LINE if status == 201 else None
