"""The room's counts in SQLite: each learner's latest check of each exercise, kept on disk so a
restart of the service loses nothing already counted."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS latest (
    user TEXT NOT NULL,
    exercise TEXT NOT NULL,
    at REAL NOT NULL,
    passed INTEGER NOT NULL,
    misconceptions TEXT NOT NULL,
    PRIMARY KEY (user, exercise)
);
"""


@dataclass(frozen=True)
class Report:
    """One learner's check of one exercise, as the service accepted it."""

    user: str
    exercise: str
    passed: bool
    misconceptions: tuple[str, ...]


class Store:
    """The latest report of each learner for each exercise."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)  # autocommit: each write lands
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def record(self, report: Report) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO latest VALUES (?, ?, ?, ?, ?)",
            (report.user, report.exercise, time.time(), int(report.passed),
             json.dumps(sorted(set(report.misconceptions)))))

    def forget(self, user: str) -> int:
        """Remove every count of ``user`` (they opted out); how many rows went."""
        return self.db.execute("DELETE FROM latest WHERE user = ?", (user,)).rowcount

    def room(self, names: bool = False) -> dict[str, dict]:
        """By exercise: how many ran it, how many pass, how many hold each misconception (and
        who, when ``names``)."""
        room: dict[str, dict] = {}
        rows = self.db.execute(
            "SELECT user, exercise, passed, misconceptions FROM latest ORDER BY user")
        for user, exercise, passed, wrong in rows:
            counts = room.setdefault(exercise, {"ran": 0, "passed": 0, "misconceptions": {},
                                                **({"names": {}} if names else {})})
            counts["ran"] += 1
            counts["passed"] += passed
            for key in json.loads(wrong):
                counts["misconceptions"][key] = counts["misconceptions"].get(key, 0) + 1
            if names:
                for group in ("ran", *(["passed"] if passed else []), *json.loads(wrong)):
                    counts["names"].setdefault(group, []).append(user)
        return room

    def close(self) -> None:
        self.db.close()
