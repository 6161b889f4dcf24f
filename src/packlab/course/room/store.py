"""The room's counts in SQLite: each learner's latest check of each exercise and their first
prediction of each predict question, kept on disk so a restart of the service loses nothing
already counted."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autograder.checks.ideas import leading

SCHEMA = """
CREATE TABLE IF NOT EXISTS latest (
    user TEXT NOT NULL,
    exercise TEXT NOT NULL,
    at REAL NOT NULL,
    passed INTEGER NOT NULL,
    misconceptions TEXT NOT NULL,
    PRIMARY KEY (user, exercise)
);
CREATE TABLE IF NOT EXISTS predictions (
    user TEXT NOT NULL,
    question TEXT NOT NULL,
    at REAL NOT NULL,
    given TEXT NOT NULL,
    right INTEGER NOT NULL,
    PRIMARY KEY (user, question)
);
"""


@dataclass(frozen=True)
class Report:
    """One learner's check of one exercise, as the service accepted it."""

    user: str
    exercise: str
    passed: bool
    misconceptions: tuple[str, ...]


@dataclass(frozen=True)
class Guess:
    """One learner's prediction of one question, as the service judged it (answers normalised)."""

    user: str
    question: str
    given: tuple[str, ...]
    right: bool


class Store:
    """The latest report of each learner for each exercise."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)  # autocommit: each write lands
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def record(self, report: Report) -> None:
        """Keep a learner's latest check, counted as the class summary counts a graded answer:
        under the idea most of its failed checks name (`leading`)."""
        counted = leading(Counter(report.misconceptions))
        self.db.execute(
            "INSERT OR REPLACE INTO latest VALUES (?, ?, ?, ?, ?)",
            (report.user, report.exercise, time.time(), int(report.passed),
             json.dumps(sorted(counted))))

    def predict(self, guess: Guess) -> None:
        """Count a prediction; a learner's first for a question stands, as on their page."""
        self.db.execute("INSERT OR IGNORE INTO predictions VALUES (?, ?, ?, ?, ?)",
                        (guess.user, guess.question, time.time(), json.dumps(guess.given),
                         int(guess.right)))

    def forget(self, user: str) -> int:
        """Remove every count of ``user`` (they opted out); how many rows went."""
        return sum(self.db.execute(f"DELETE FROM {table} WHERE user = ?", (user,)).rowcount
                   for table in ("latest", "predictions"))

    def predictions(self, names: bool = False) -> list[dict]:
        """By question, the latest predicted first: how many predicted, how many matched, and
        how many gave each answer (and who, when ``names``)."""
        found: dict[str, dict] = {}
        rows = self.db.execute("SELECT user, question, at, given, right FROM predictions "
                               "ORDER BY at DESC, user")
        for user, question, at, given, right in rows:
            counts = found.setdefault(question, {"question": question, "latest": at, "made": 0,
                                                 "right": 0, "answers": {},
                                                 **({"names": {}} if names else {})})
            answer = " | ".join(json.loads(given))
            counts["made"] += 1
            counts["right"] += right
            counts["answers"][answer] = counts["answers"].get(answer, 0) + 1
            if names:
                counts["names"].setdefault(answer, []).append(user)
        return list(found.values())

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
