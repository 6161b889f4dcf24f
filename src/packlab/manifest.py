"""The course manifest (course.toml): lessons, exercises, their functions, points and hints.

A foundation below the course (packlab.course) and the grader (autograder): both read it, it
imports neither."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout packlab is installed from (its code)


def _course_here(folder: Path) -> Path | None:
    """course.toml of the course `folder` is in: the folder's own, else the nearest one above."""
    return next((f / "course.toml" for f in (folder, *folder.parents)
                 if (f / "course.toml").is_file()), None)


# The course is the folder packlab runs in, as nbgrader's is (or the nearest folder above it with
# a course.toml, so a notebook's kernel in lessons/ finds it). Outside any course, packlab reads
# the course it is installed with, and the command line says so (`outside_note`).
# PACKLAB_COURSE_TOML names another manifest (a test tries a policy in nbgrader's own kernels).
HERE = Path(os.environ["PACKLAB_COURSE_TOML"]) if os.environ.get("PACKLAB_COURSE_TOML") \
    else _course_here(Path.cwd())
MANIFEST = HERE or ROOT / "course.toml"


def outside_note() -> str:
    """What the command line says when it runs outside any course (empty inside one)."""
    if HERE is not None:
        return ""
    return (f"No course.toml in {Path.cwd()} or any folder above it, so this is the course packlab "
            f"is installed with, {ROOT}. To work on another course, run packlab in its folder.")


# How a test group that fails some of its checks scores (course.toml's `partial_credit`).
ALL_OR_NOTHING = "all-or-nothing"  # the group's points when every check passes, else 0
PROPORTIONAL = "proportional"  # the points times the share of the group's checks that passed
POLICIES = (ALL_OR_NOTHING, PROPORTIONAL)
# The student install's course.toml ends with this table (`packlab student-build` writes it):
# the learner commands only, no reference answers, no hidden tests.
STUDENT_MARKER = "[build]\nstudent = true\n"


MISSING_TIMESTAMP = ("on-time", "when-graded", "zero")  # see course.toml's late_policy


@dataclass(frozen=True)
class LatePolicy:
    """What late work costs (course.toml's `late_policy`): nothing, a share of the points per
    day late (a started day counts), and/or everything after a cutoff."""

    per_day: float = 0.0  # share of the exercise's points taken off per day late
    zero_after: datetime | None = None  # handed in after this: the score is 0
    missing_timestamp: str = "on-time"  # how a missing, unreadable or future time counts


@dataclass(frozen=True)
class Lesson:
    """A lesson notebook. Its exercises name it (`Exercise.lesson`); it may have none."""

    slug: str
    title: str

    @property
    def path(self) -> Path:
        return ROOT / "lessons" / f"{self.slug}.ipynb"


@dataclass(frozen=True)
class Step:
    """One graded step of a big exercise: one idea, with visible and hidden checks of its own.

    Its test groups are ``<name>-visible`` and ``<name>-hidden`` (`group`)."""

    number: int
    name: str
    title: str
    teaches: str
    points: dict[str, int]  # "visible" and "hidden"
    hints: tuple[str, ...] = ()

    def group(self, kind: str) -> str:
        """The test group of this step that runs the ``kind`` ("visible", "hidden") checks."""
        return f"{self.name}-{kind}"


@dataclass(frozen=True)
class Exercise:
    name: str
    function: str
    signature: str
    suite: str
    points: dict[str, int]
    teaches: str
    leaves_out: str
    hints: tuple[str, ...]
    lesson: str | None = None  # the lesson it goes with, if any (several may share one)
    starter: str | None = None
    partial_credit: str = ALL_OR_NOTHING
    due: datetime | None = None  # course.toml's `due` (nbgrader's gradebook may give one too)
    late_policy: LatePolicy = LatePolicy()
    counts: str = ""  # which submission counts: latest, on-time or best ("": the course's)
    steps: tuple[Step, ...] = ()  # graded steps, one idea each (none: one whole exercise)

    def step_of(self, group: str) -> Step | None:
        """The step a test group belongs to (None when the exercise has no steps)."""
        return next((s for s in self.steps for kind in s.points if s.group(kind) == group), None)

    @property
    def visible_groups(self) -> tuple[str, ...]:
        """The test groups of the visible checks: "visible", or each step's."""
        return tuple(step.group("visible") for step in self.steps) or ("visible",)

    def group_title(self, group: str, titles: dict[str, str]) -> str:
        """How a learner reads a test group's name: ``titles``' words for a whole exercise's
        groups, "Step 2 of 4, required items: hidden tests" for a step's."""
        step = self.step_of(group)
        if step is None:
            return titles.get(group, group)
        kind = group.removeprefix(f"{step.name}-")
        return f"Step {step.number} of {len(self.steps)}, {step.title}: {kind} tests"

    def earned(self, group: str, passed: int, checks: int) -> int | float:
        """The points a test group earns when ``passed`` of its ``checks`` pass.

        Proportional credit is rounded to two decimals: the notebook's test cell prints the same
        number for nbgrader, so both graders agree to the last digit.
        """
        points = self.points[group]
        if passed >= checks:
            return points
        if self.partial_credit == ALL_OR_NOTHING:
            return 0
        share = round(points * passed / checks, 2)
        return int(share) if share.is_integer() else share

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
    student_install: bool = False  # course.toml's [build] student = true (STUDENT_MARKER)
    free_late_days: int = 0  # each student's budget of days late without a penalty

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

    def exercises_of(self, slug: str) -> tuple[Exercise, ...]:
        """The exercises that go with a lesson, in course order (none, one or several)."""
        return tuple(e for e in self.exercises if e.lesson == slug)

    @property
    def unattached(self) -> tuple[Exercise, ...]:
        """The exercises that go with no lesson."""
        return tuple(e for e in self.exercises if e.lesson is None)

    def short_key(self, exercise: Exercise) -> str:
        """The shortest name `exercise` finds this one by: its number ("02"), else its name."""
        number = exercise.name[:2]
        return number if [e.name[:2] for e in self.exercises].count(number) == 1 else exercise.name


@cache
def load(path: Path = MANIFEST) -> Course:
    """Read course.toml."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lessons = tuple(_lesson(entry, path.name) for entry in data.get("lessons", []))
    default = data["course"].get("partial_credit", ALL_OR_NOTHING)
    exercises = tuple(_exercise({"partial_credit": default, **entry}, path.name)
                      for entry in data.get("exercises", []))
    slugs = {lesson.slug for lesson in lessons}
    for exercise in exercises:
        if exercise.lesson is not None and exercise.lesson not in slugs:
            raise ValueError(f"{path.name}: exercise {exercise.name} has lesson = "
                             f"{exercise.lesson!r}, which is no lesson's slug; the lessons are "
                             f"{', '.join(sorted(slugs)) or 'none'} (or leave `lesson` out).")
        if exercise.partial_credit not in POLICIES:
            raise ValueError(f"{path.name}: exercise {exercise.name} has partial_credit = "
                             f"{exercise.partial_credit!r}; it must be one of "
                             f"{', '.join(map(repr, POLICIES))}.")
    exercises = tuple(_counted(_dated(e, data["course"].get("late_policy", "none"), path.name),
                               data["course"].get("counts", "latest"), path.name)
                      for e in exercises)
    return Course(
        title=data["course"]["title"],
        tagline=data["course"]["tagline"],
        lessons=lessons,
        exercises=exercises,
        student_install=data.get("build", {}).get("student") is True,
        free_late_days=_free_late_days(data["course"].get("free_late_days", 0), path.name),
    )


def _exercise(entry: dict, manifest: str) -> Exercise:
    """One [[exercises]] entry; with [[exercises.steps]], its points and hints are its steps'."""
    steps = tuple(Step(number, **{**step, "hints": tuple(step.get("hints", ()))})
                  for number, step in enumerate(entry.pop("steps", ()), 1))
    if steps and "points" in entry:
        raise ValueError(f"{manifest}: exercise {entry['name']} has steps and its own points; "
                         "with steps, each step gives its points (delete the exercise's).")
    if steps:
        entry["points"] = {step.group(kind): points for step in steps
                           for kind, points in step.points.items()}
        entry["hints"] = [f"Step {step.number} ({step.title}): {hint}"
                          for step in steps for hint in step.hints]
    return Exercise(**{**entry, "hints": tuple(entry["hints"]), "steps": steps})


def _free_late_days(value: object, manifest: str) -> int:
    """`free_late_days`: a whole number of days, 0 or more."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{manifest}: free_late_days is a whole number of days, 0 or more; "
                         f"got {value!r}.")
    return value


def _lesson(entry: dict, manifest: str) -> Lesson:
    """One [[lessons]] entry: its slug and title (an exercise names its lesson, not the reverse)."""
    if "exercise" in entry:
        raise ValueError(f"{manifest}: lesson {entry.get('slug')!r} names an exercise; a lesson "
                         "no longer does. Put `lesson = \"<the lesson's slug>\"` in the exercise's "
                         "[[exercises]] entry instead, and delete the lesson's `exercise` line.")
    return Lesson(**entry)


def _when(value: object, where: str) -> datetime:
    """A date from course.toml (a TOML date-time or an ISO 8601 string), in UTC.

    A date without a time zone is taken as UTC, as nbgrader takes it.
    """
    try:
        when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not a date and time such as "
                         "\"2026-12-01T17:00:00+00:00\".") from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _late_policy(value: object, where: str) -> LatePolicy:
    """`late_policy`: "none", { per_day = 0.1 }, { zero_after = DATE } or both keys."""
    if value == "none":
        return LatePolicy()
    if not isinstance(value, dict) or not value or set(value) - {"per_day", "zero_after",
                                                                 "missing_timestamp"}:
        raise ValueError(f"{where}: late_policy must be \"none\", {{ per_day = 0.1 }}, "
                         f"{{ zero_after = \"2026-12-08T17:00:00+00:00\" }} or both keys "
                         f"(and missing_timestamp if you like); got {value!r}.")
    missing = value.get("missing_timestamp", "on-time")
    if missing not in MISSING_TIMESTAMP:
        raise ValueError(f"{where}: late_policy's missing_timestamp is one of "
                         f"{', '.join(map(repr, MISSING_TIMESTAMP))}; got {missing!r}.")
    per_day = value.get("per_day", 0.0)
    if isinstance(per_day, bool) or not isinstance(per_day, int | float) or not 0 <= per_day <= 1:
        raise ValueError(f"{where}: late_policy's per_day is the share of the points taken off "
                         f"per day late, from 0 to 1 (0.1 is 10 %); got {per_day!r}.")
    cutoff = value.get("zero_after")
    return LatePolicy(float(per_day), None if cutoff is None else _when(cutoff, where), missing)


def _dated(exercise: Exercise, default_policy: object, manifest: str) -> Exercise:
    """The exercise with its `due` date and `late_policy` read (the course's policy by default)."""
    where = f"{manifest}: exercise {exercise.name}"
    due = None if exercise.due is None else _when(exercise.due, where)
    policy = exercise.late_policy
    policy = _late_policy(default_policy if policy == LatePolicy() else policy, where)
    return replace(exercise, due=due, late_policy=policy)


# --- plain nbgrader assignments ----------------------------------------------------------------
# A folder solutions/<name>/ (beside course.toml) with no [[exercises]] entry that holds one or
# more notebooks is a plain nbgrader assignment, as nbgrader's ps1 (problem1.ipynb and
# problem2.ipynb) is one: `packlab grade` grades it as `nbgrader autograde` would, each notebook
# from its own test cells (`autograder.run.plain`). Its notebooks are those at the top of the
# folder, as nbgrader's are (a notebook in a sub-folder is no notebook of the assignment to
# nbgrader either). An optional [[plain]] entry gives it a due date, a late policy and which
# submission counts, as an exercise's entry does; its points are those of its notebooks' graded
# cells and tasks.


@dataclass(frozen=True)
class GradedCell:
    """One graded cell of a plain assignment's source notebooks."""

    notebook: str  # the notebook it is in, without .ipynb (nbgrader's notebook id)
    grade_id: str  # unique within its notebook only, as in nbgrader
    points: float
    manual: bool  # an answer or task a person grades (markdown, code marked as a solution)
    task: bool = False  # nbgrader's task cell: a person grades it, from nothing


@dataclass(frozen=True)
class PlainAssignment:
    name: str
    due: datetime | None = None
    late_policy: LatePolicy = LatePolicy()
    counts: str = "latest"  # which submission counts, as an exercise's `counts`

    @property
    def folder(self) -> Path:
        """The nbgrader source folder: the instructor's notebooks (hidden tests included) and
        the files beside them."""
        return MANIFEST.parent / "solutions" / self.name

    @property
    def notebooks(self) -> tuple[str, ...]:
        """Its notebooks' names without .ipynb (nbgrader's notebook ids), in order."""
        return tuple(sorted(p.stem for p in self.folder.glob("*.ipynb") if p.is_file()))

    def source(self, notebook: str) -> Path:
        """One source notebook, with the instructor's test cells, hidden blocks included."""
        return self.folder / f"{notebook}.ipynb"

    def release(self, notebook: str) -> Path:
        return MANIFEST.parent / "exercises" / self.name / f"{notebook}.ipynb"

    @property
    def cells(self) -> tuple[GradedCell, ...]:
        return tuple(c for notebook in self.notebooks
                     for c in _graded_cells(self.source(notebook)))

    def group(self, cell: GradedCell) -> str:
        """The test group (results.json, grades.csv, the feedback) of a graded cell: its
        grade_id, after its notebook's name when there are several ("problem1/squares")."""
        return cell.grade_id if len(self.notebooks) == 1 else f"{cell.notebook}/{cell.grade_id}"

    def cell_of(self, group: str) -> tuple[str, str]:
        """(notebook, grade_id) of a test group (`group`'s reverse)."""
        notebook, _, grade_id = group.rpartition("/")
        return notebook or self.notebooks[0], grade_id

    @property
    def points(self) -> dict[str, float]:
        """group -> points of each test cell (the cells `packlab grade` scores)."""
        return {self.group(c): _whole(c.points) for c in self.cells if not c.manual}

    @property
    def max_score(self) -> float:
        return _whole(sum(c.points for c in self.cells))

    def grade_id(self, group: str) -> str:
        return self.cell_of(group)[1]


def _whole(points: float) -> int | float:
    return int(points) if float(points).is_integer() else points


@cache
def _graded_cells(source: Path) -> tuple[GradedCell, ...]:
    import json

    cells = json.loads(source.read_text(encoding="utf-8")).get("cells", [])
    found = []
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("task") and meta.get("grade_id"):
            found.append(GradedCell(source.stem, meta["grade_id"], float(meta.get("points", 0)),
                                    True, True))
        elif meta.get("grade") and meta.get("grade_id"):
            manual = bool(meta.get("solution")) or cell.get("cell_type") != "code"
            found.append(GradedCell(source.stem, meta["grade_id"], float(meta.get("points", 0)),
                                    manual))
    return tuple(found)


COUNTS = ("latest", "on-time", "best")  # see course.toml's `counts`


def _counted(exercise: Exercise, default: object, manifest: str) -> Exercise:
    """The exercise with its `counts` read (the course's by default)."""
    counts = exercise.counts or default
    if counts not in COUNTS:
        raise ValueError(f"{manifest}: exercise {exercise.name} counts {counts!r}; `counts` is "
                         f"one of {', '.join(map(repr, COUNTS))}.")
    return replace(exercise, counts=counts)


@cache
def plain_assignments(path: Path = MANIFEST) -> dict[str, PlainAssignment]:
    """The course's plain nbgrader assignments, by name (see above)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    exercises = {e.name for e in load(path).exercises}
    solutions = path.parent / "solutions"
    folders = sorted(p.name for p in solutions.iterdir()
                     if p.is_dir() and any(n.is_file() for n in p.glob("*.ipynb"))) \
        if solutions.is_dir() else []
    entries = {entry.get("name"): entry for entry in data.get("plain", [])}
    default = data["course"].get("late_policy", "none")
    unknown = sorted(set(entries) - set(folders) - exercises, key=str)
    if unknown:
        raise ValueError(f"{path.name}: the [[plain]] entry {unknown[0]!r} names no folder "
                         f"solutions/{unknown[0]}/ holding a notebook")
    found = {}
    for name in folders:
        if name in exercises:
            continue
        entry = entries.get(name, {})
        where = f"{path.name}: plain assignment {name}"
        if set(entry) - {"name", "due", "late_policy", "counts"}:
            raise ValueError(f"{where}: a [[plain]] entry sets only name, due, late_policy and "
                             "counts (its points are its notebooks')")
        due = entry.get("due")
        counts = entry.get("counts") or data["course"].get("counts", "latest")
        if counts not in COUNTS:
            raise ValueError(f"{where} counts {counts!r}; `counts` is one of "
                             f"{', '.join(map(repr, COUNTS))}.")
        found[name] = PlainAssignment(name, None if due is None else _when(due, where),
                                      _late_policy(entry.get("late_policy", default), where),
                                      counts)
    return found
