"""The room's JupyterHub service: learners' checks come in, the presenter's chart goes out.

Run by the hub as a hub-managed service (`packlab.course.room.hub.configure`), it reads its
address, prefix and token from the JUPYTERHUB_SERVICE_* variables the hub sets. Routes, under
its prefix (``/services/room/``):

- ``POST api/reports``: one check, sent with the learner's server token. Refused unless the hub
  says the token is a user's, that user is in the course's group, the body is at most
  `MAX_BYTES` of JSON naming this course, one of its exercises, its checks and misconceptions,
  and the learner has not sent more than the rate allows.
- ``POST api/predictions``: one committed prediction of a lesson's predict question, sent the
  same way; the service judges it itself (`packlab.course.predictions`) and keeps it normalised.
- ``DELETE api/reports/mine``: the learner opted out; what was counted of them goes.
- ``GET`` (the chart) and ``GET api/room`` (its numbers; ``?names=1`` adds who): only for those
  the hub lets use this service (its admins, and the presenters' group), through the hub's OAuth.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from jupyterhub.services.auth import HubAuth, HubOAuth, HubOAuthCallbackHandler, HubOAuthenticated
from jupyterhub.utils import url_path_join
from tornado import httpclient, ioloop, web

from packlab.course.predictions import MAX_GIVEN, Question, normal, questions
from packlab.course.room.catalogue import Exercise, catalogue
from packlab.course.room.store import Guess, Report, Store

MAX_BYTES = 16 * 1024  # a real report of the largest suite is about 3 KiB
MAX_CHECKS = 200
BURST = 10  # reports a learner may send at once...
REFILL_SECONDS = 2.0  # ...then one more every this many seconds
MEMBERSHIP_SECONDS = 30.0  # how long the hub's word that a user is in the course is trusted
CHART = Path(__file__).with_name("chart.html")
log = logging.getLogger("packlab.room")


class Refused(Exception):
    """A report the service will not count; the status and the reason, in words."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class Limiter:
    """A token bucket per learner: `BURST` reports at once, one per `REFILL_SECONDS` after."""

    buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def allow(self, user: str) -> bool:
        now = time.monotonic()
        tokens, then = self.buckets.get(user, (BURST, now))
        tokens = min(BURST, tokens + (now - then) / REFILL_SECONDS)
        if tokens < 1:
            self.buckets[user] = (tokens, now)
            return False
        self.buckets[user] = (tokens - 1, now)
        return True


def _strings(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Refused(400, f"{what} must be a list of strings")
    return value


def parse(body: bytes, course: str, exercises: dict[str, Exercise], user: str) -> Report:
    """The report in ``body``, checked against the course; `Refused` says what is wrong."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise Refused(400, "the report is not JSON") from None
    if not isinstance(data, dict) or set(data) != {"course", "exercise", "passed", "failed"}:
        raise Refused(400, "a report has exactly: course, exercise, passed, failed")
    if data["course"] != course:
        raise Refused(403, "the report is of another course")
    exercise = exercises.get(data["exercise"]) if isinstance(data["exercise"], str) else None
    if exercise is None:
        raise Refused(400, "the report names no exercise of this course")
    passed = _strings(data["passed"], "passed")
    failed = data["failed"]
    if not isinstance(failed, list) or not all(
            isinstance(item, dict) and set(item) == {"check", "misconception"} for item in failed):
        raise Refused(400, "failed must be a list of {check, misconception}")
    checks = passed + _strings([item["check"] for item in failed], "a failed check")
    keys = _strings([item["misconception"] for item in failed], "a misconception")
    if not checks or len(checks) > MAX_CHECKS or not set(checks) <= exercise.checks:
        raise Refused(400, f"the report names checks {data['exercise']} does not have")
    if not set(keys) <= set(exercise.misconceptions):
        raise Refused(400, f"the report names misconceptions {data['exercise']} does not have")
    return Report(user, exercise.name, passed=not failed, misconceptions=tuple(keys))


def parse_prediction(body: bytes, course: str, known: dict[str, Question], user: str) -> Guess:
    """The prediction in ``body``, judged; `Refused` says what is wrong."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise Refused(400, "the prediction is not JSON") from None
    if not isinstance(data, dict) or set(data) != {"course", "question", "given"}:
        raise Refused(400, "a prediction has exactly: course, question, given")
    if data["course"] != course:
        raise Refused(403, "the prediction is of another course")
    question = known.get(data["question"]) if isinstance(data["question"], str) else None
    if question is None:
        raise Refused(400, "the prediction names no question of this course")
    given = _strings(data["given"], "given")
    if len(given) != len(question.asks) or any(len(text) > MAX_GIVEN for text in given):
        raise Refused(400, f"{question.id} takes {len(question.asks)} answers of at most "
                           f"{MAX_GIVEN} characters")
    for ask, text in zip(question.asks, given, strict=True):
        if ask.kind == "choice" and text not in ask.options:
            raise Refused(400, f"{text[:40]!r} is no option of {question.id}")
    return Guess(user, question.id,
                 tuple(normal(ask.kind, text)[:MAX_GIVEN] or "?"
                       for ask, text in zip(question.asks, given, strict=True)),
                 right=all(ask.matches(text) for ask, text in zip(question.asks, given,
                                                                    strict=True)))


class Room:
    """The service's state: the course, the counts, the limits, who is in the course."""

    def __init__(self, db: Path, group: str, hub_auth: HubAuth) -> None:
        self.course, self.exercises = catalogue()
        self.questions = questions()
        self.store = Store(db)
        self.group = group
        self.hub_auth = hub_auth
        self.limiter = Limiter()
        self.members: dict[str, float] = {}  # user -> when the hub last said they are in

    async def in_course(self, user: str) -> bool:
        """Is ``user`` in the course's group? Asked of the hub with the service's own token."""
        if time.monotonic() - self.members.get(user, -MEMBERSHIP_SECONDS) < MEMBERSHIP_SECONDS:
            return True
        url = url_path_join(self.hub_auth.api_url, "users", user)
        request = httpclient.HTTPRequest(
            url, headers={"Authorization": f"token {self.hub_auth.api_token}"})
        try:
            answer = await httpclient.AsyncHTTPClient().fetch(request)
        except httpclient.HTTPClientError as error:
            log.warning("the hub did not say whether %s is in the course: %s", user, error)
            return False
        if self.group not in json.loads(answer.body).get("groups", []):
            return False
        self.members[user] = time.monotonic()
        return True


class Learner(web.RequestHandler):
    """The learners' side: identified by their server's token, as the hub says."""

    room: Room

    def initialize(self, room: Room) -> None:
        self.room = room

    def check_xsrf_cookie(self) -> None:
        """Reports come with a token in a header, never a cookie: no cross-site form can send
        one."""

    async def learner(self) -> str:
        header = self.request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token.strip():
            raise Refused(401, "send the report with your server's hub token")
        model = await self.room.hub_auth.user_for_token(token.strip(), sync=False)
        if not model or model.get("kind", "user") != "user":
            raise Refused(401, "the hub does not know this token as a learner's")
        if not await self.room.in_course(model["name"]):
            raise Refused(403, "you are not a learner of this course on this hub")
        return model["name"]


class Reports(Learner):
    """One check in."""

    async def post(self) -> None:
        try:
            if len(self.request.body) > MAX_BYTES:
                raise Refused(413, f"a report is at most {MAX_BYTES} bytes")
            user = await self.learner()
            if not self.room.limiter.allow(user):
                raise Refused(429, "too many reports in a short time")
            report = parse(self.request.body, self.room.course, self.room.exercises, user)
        except Refused as refused:
            self.set_status(refused.status)
            self.finish({"refused": str(refused)})
            return
        self.room.store.record(report)
        self.set_status(201)
        self.finish({"counted": report.exercise})


class Predictions(Learner):
    """One committed prediction in."""

    async def post(self) -> None:
        try:
            if len(self.request.body) > MAX_BYTES:
                raise Refused(413, f"a prediction is at most {MAX_BYTES} bytes")
            user = await self.learner()
            if not self.room.limiter.allow(user):
                raise Refused(429, "too many reports in a short time")
            guess = parse_prediction(self.request.body, self.room.course, self.room.questions,
                                     user)
        except Refused as refused:
            self.set_status(refused.status)
            self.finish({"refused": str(refused)})
            return
        self.room.store.predict(guess)
        self.set_status(201)
        self.finish({"counted": guess.question})


class Mine(Learner):
    """All of a learner's counts out: they opted out."""

    async def delete(self) -> None:
        try:
            user = await self.learner()
        except Refused as refused:
            self.set_status(refused.status)
            self.finish({"refused": str(refused)})
            return
        self.room.store.forget(user)
        self.set_status(204)
        self.finish()


class Presenter(HubOAuthenticated, web.RequestHandler):
    """The presenter's side: only users the hub lets use this service (its access scope)."""

    room: Room

    def initialize(self, room: Room) -> None:
        self.room = room


class Numbers(Presenter):
    @web.authenticated
    def get(self) -> None:
        names = self.get_argument("names", "") == "1"
        self.set_header("Cache-Control", "no-store")
        self.finish({"course": self.room.course, "room": self.room.store.room(names),
                     "predictions": self.room.store.predictions(names),
                     "misconceptions": {name: e.misconceptions
                                        for name, e in self.room.exercises.items()},
                     "exercises": list(self.room.exercises)})


class Chart(Presenter):
    @web.authenticated
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        token = html.escape(self.xsrf_token.decode(), quote=True)
        self.finish(CHART.read_text(encoding="utf-8").replace("XSRF_TOKEN", token))


def application(room: Room, prefix: str) -> web.Application:
    return web.Application([
        (url_path_join(prefix, "api/reports"), Reports, {"room": room}),
        (url_path_join(prefix, "api/reports/mine"), Mine, {"room": room}),
        (url_path_join(prefix, "api/predictions"), Predictions, {"room": room}),
        (url_path_join(prefix, "api/room"), Numbers, {"room": room}),
        (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        (prefix, Chart, {"room": room}),
    ], cookie_secret=os.urandom(32))


def main(argv: list[str] | None = None) -> None:
    """Serve the room where the hub says (JUPYTERHUB_SERVICE_URL)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, type=Path, help="the counts' SQLite file")
    parser.add_argument("--group", default="learners",
                        help="the hub group of the course's learners")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/room/")
    # One HubOAuth for every handler (the mixin and the OAuth callback use its instance); it reads
    # the hub's address and the service's token from the environment the hub gives it.
    room = Room(args.db, args.group, HubOAuth.instance(cache_max_age=60))
    where = urlsplit(os.environ["JUPYTERHUB_SERVICE_URL"])
    application(room, prefix).listen(where.port, where.hostname, max_body_size=4 * MAX_BYTES,
                                     xheaders=True)
    log.info("the room of %s listens at %s%s", room.course, where.netloc, prefix)
    with contextlib.suppress(KeyboardInterrupt):  # the hub stops its services with SIGINT
        ioloop.IOLoop.current().start()


if __name__ == "__main__":
    main()
