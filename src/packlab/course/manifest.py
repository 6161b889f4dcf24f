"""The course manifest (course.toml): lessons, exercises, their functions, points and hints."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
MANIFEST = ROOT / "course.toml"


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    exercise: str

    @property
    def path(self) -> Path:
        return ROOT / "lessons" / f"{self.slug}.ipynb"


@dataclass(frozen=True)
class Exercise:
    name: str
    lesson: str
    function: str
    signature: str
    suite: str
    points: dict[str, int]
    teaches: str
    leaves_out: str
    hints: tuple[str, ...]
    starter: str | None = None

    @property
    def max_score(self) -> int:
        return sum(self.points.values())

    @property
    def source(self) -> Path:
        """The nbgrader source notebook (with the reference solution and hidden tests)."""
        return ROOT / "solutions" / self.name / f"{self.name}.ipynb"

    @property
    def release(self) -> Path:
        """The released notebook learners start from."""
        return ROOT / "exercises" / self.name / f"{self.name}.ipynb"

    def grade_id(self, group: str) -> str:
        """The nbgrader grade_id of the test cell that runs one test group."""
        return f"{self.function}-{group}"


@dataclass(frozen=True)
class Course:
    title: str
    tagline: str
    lessons: tuple[Lesson, ...]
    exercises: tuple[Exercise, ...] = field(default=())

    def exercise(self, key: str) -> Exercise:
        """Find an exercise by its name ("02-greedy-pack"), number ("02") or function ("pack")."""
        matches = [
            e for e in self.exercises
            if key in (e.name, e.name[:2], e.function) or e.name.startswith(key)
        ]
        if not matches:
            names = ", ".join(e.name for e in self.exercises)
            raise KeyError(f"No exercise called {key!r}. The exercises are: {names}.")
        if len(matches) > 1:
            names = ", ".join(e.name for e in matches)
            raise KeyError(f"{key!r} fits more than one exercise ({names}): give its number, "
                           f"e.g. {matches[-1].name[:2]}.")
        return matches[0]

    def lesson(self, slug: str) -> Lesson:
        return next(lesson for lesson in self.lessons if lesson.slug == slug)


@cache
def load(path: Path = MANIFEST) -> Course:
    """Read course.toml."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lessons = tuple(Lesson(**entry) for entry in data["lessons"])
    exercises = tuple(
        Exercise(**{**entry, "hints": tuple(entry["hints"])}) for entry in data["exercises"]
    )
    return Course(
        title=data["course"]["title"],
        tagline=data["course"]["tagline"],
        lessons=lessons,
        exercises=exercises,
    )
