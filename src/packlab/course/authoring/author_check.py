"""`packlab author check NAME`: what an exercise still lacks, or gets wrong, said in words.

It checks what grading and the release rely on without saying so: the suite's files import and
hold every misconception key the grader names; each test group has checks; the reference passes
every group and so does the solution notebook's answer; the released starter fails ("not
started", or for a bug-fix exercise its bug is caught); every gallery mutant of the exercise is
caught and counted under its own misconception (the one most of its failing checks name); the
recorded answers of the visible checks and the release are current; the notebook's text,
grade_ids and points are course.toml's; no "FILL IN" is left. An error of the exercise's own
code is said in words, never as a traceback.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import tomllib
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from importlib import import_module
from pathlib import Path

import nbformat

from packlab.course.authoring.scaffold import FILL_IN, Answers, paths
from packlab.manifest import MANIFEST, ROOT, Exercise

SOLUTION = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$", re.M)
STUB = "raise NotImplementedError()"


def _defined(code: str, where: str, function: str) -> Callable | str:
    """The function ``code`` defines, or why there is none (in words)."""
    scope: dict = {}
    try:
        exec(compile(code, where, "exec"), scope)  # noqa: S102 - the course's own code
    except Exception as exc:  # noqa: BLE001 - said to the author
        return f"{where} does not run: {type(exc).__name__}: {exc}"
    found = scope.get(function)
    return found if callable(found) else f"{where} defines no function {function}"


def _answer_cell(path: Path, exercise: Exercise) -> str | None:
    """The source of the notebook's answer cell (its grade_id), or None."""
    cells = [c for c in nbformat.read(path, as_version=4).cells
             if c.metadata.get("nbgrader", {}).get("grade_id") == exercise.grade_id("answer")]
    return cells[0].source if len(cells) == 1 else None


class SuiteBroken(Exception):
    """The suite's own code raised while judging an answer."""


def _failures(suite, function: Callable, what: str) -> dict[str, list]:
    """Each group's failures for ``function`` (quietly: a mutant may warn)."""
    from autograder.checks.suite import in_process_caller, run_group

    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for group in suite.groups:
            try:
                found[group.name] = run_group(group, in_process_caller(function)).failures
            except Exception as exc:  # noqa: BLE001 - the suite's bug, said to its author
                raise SuiteBroken(
                    f"the suite's own code raised {type(exc).__name__}: {exc} while judging "
                    f"{what} in the {group.name} group (a diagnose that returns a key the "
                    "misconception table lacks? a test that fails on some answers?)") from exc
    return found


class Check:
    """The checks of one exercise; `problems` lists what is wrong."""

    def __init__(self, exercise: Exercise, root: Path = ROOT, manifest: Path = MANIFEST):
        self.exercise, self.root, self.manifest = exercise, root, manifest
        self.found: list[str] = []

    def say(self, problem: str) -> None:
        self.found.append(problem)

    def problems(self) -> list[str]:
        """Everything wrong, in the order an author would fix it; an error of the exercise's own
        code stops the list, said in words with where it was raised (never a traceback)."""
        try:
            return self._problems()
        except Exception as exc:  # noqa: BLE001 - the exercise's code, said to its author
            self.say(f"checking stopped: the exercise's code raised {type(exc).__name__}: {exc}"
                     f"{_where(exc, self.root)} (a diagnose that returns a key, or a "
                     "misconception the table lacks? it must return MISCONCEPTIONS[key])")
            return self.found

    def _problems(self) -> list[str]:
        suite = self._suite()
        if suite is None:
            return self.found
        self._fill_ins()
        self._groups(suite)
        try:
            # The property checks' stored examples, as `packlab grade` uses them: drawn again only
            # when the grader changed since they were stored (then stored for the next run). A
            # strategy that raises is left to the groups' run below, which says where it raised.
            from autograder.checks import example_cache

            with contextlib.suppress(Exception):
                example_cache.prepare([self.exercise.suite])
            self._passes(suite, suite.reference.real(), "the reference answer")
            self._solution(suite)
            self._starter(suite)
            self._mutants(suite)
            broken = False
        except SuiteBroken as exc:
            self.say(str(exc))
            broken = True
        self._release()
        if not broken:  # the recorded answers would only repeat it
            self._recorded()
        self._notebook()
        return self.found

    def _rel(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def _suite(self):
        """The suite, loaded; None (having said why) when it cannot be."""
        from autograder.checks.suites import load

        exercise = self.exercise
        modules = (f"autograder.checks.suites.{exercise.suite}",
                   f"autograder.checks.hidden.{exercise.suite}")
        for module in modules:
            try:
                import_module(module)
            except Exception as exc:  # noqa: BLE001 - said to the author, in words
                where = module.replace(".", "/") + ".py"
                self.say(f"{where} does not import: {type(exc).__name__}: {exc}")
                return None
        try:
            suite = load(exercise.suite)
            suite.reference.real()
        except Exception as exc:  # noqa: BLE001
            self.say(f"the suite {exercise.suite} has no reference answer it can call: "
                     f"{type(exc).__name__}: {exc}")
            return None
        return suite

    def _fill_ins(self) -> None:
        answers = Answers(self.exercise.name, self.exercise.suite, "", {})
        for path in paths(answers, self.root).values():
            if not path.is_file():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if f"{FILL_IN}:" in line:
                    self.say(f"{self._rel(path)} still says {FILL_IN} (line {number}): "
                             f"{line.strip()[:100]}")
                    break
        entry = [self.exercise.teaches, self.exercise.leaves_out, *self.exercise.hints]
        if any(f"{FILL_IN}:" in text for text in entry):
            self.say(f"course.toml's entry for {self.exercise.name} still says {FILL_IN} (its "
                     "teaches, leaves_out or hints)")

    def _groups(self, suite) -> None:
        names = [group.name for group in suite.groups]
        if names != list(self.exercise.points):
            self.say(f"the suite's test groups are {', '.join(names)} but course.toml gives "
                     f"points to {', '.join(self.exercise.points)}")
        for group in suite.groups:
            if not group.checks:
                self.say(f"the {group.name} group has no checks: add some (see the top of its "
                         "file)")

    def _passes(self, suite, function: Callable, what: str) -> bool:
        failed = {group: failures for group, failures in _failures(suite, function, what).items()
                  if failures}
        for group, failures in failed.items():
            first = failures[0]
            self.say(f"{what} fails the {group} group: ✗ {first.check} (the call "
                     f"{first.call} came back {first.got}, expected {first.expected})")
        return not failed

    def _solution(self, suite) -> None:
        source = self.exercise.source
        if not source.is_file():
            self.say(f"there is no solution notebook {self._rel(source)}")
            return
        cell = _answer_cell(source, self.exercise)
        if cell is None:
            self.say(f"{self._rel(source)} needs exactly one answer cell with grade_id "
                     f"{self.exercise.grade_id('answer')!r}")
            return
        function = _defined(SOLUTION.sub("", cell), self._rel(source), self.exercise.function)
        if isinstance(function, str):
            self.say(function)
            return
        self._passes(suite, function, "the solution notebook's answer")

    def _starter(self, suite) -> None:
        """The released starter must fail: "not started", or the starter's bug caught."""
        from autograder.checks.unwritten import KEY

        cell = _answer_cell(self.exercise.release, self.exercise) if (
            self.exercise.release.is_file()) else None
        code = cell if cell is not None else (
            f"def {self.exercise.signature}:\n    # YOUR CODE HERE\n    {STUB}")
        function = _defined(code, "the released starter", self.exercise.function)
        if isinstance(function, str):
            self.say(function)
            return
        failures = [f for group in _failures(suite, function, "the released starter").values()
                    for f in group]
        if not failures:
            self.say("the released starter passes every group: a learner who changes nothing "
                     "would get full marks")
        elif self.exercise.starter is None and any(f.misconception.key != KEY for f in failures):
            other = next(f for f in failures if f.misconception.key != KEY)
            self.say(f"the released starter is not told it is \"not started\": ✗ {other.check} "
                     f"names {other.misconception.key!r} instead")

    def _mutants(self, suite) -> None:
        from autograder.checks import gallery

        mutants = [m for m in gallery.every() if m.suite == self.exercise.suite]
        if not mutants:
            self.say(f"the gallery has no wrong answers for {self.exercise.suite}: add one file "
                     f"per likely mistake in autograder/checks/mutants/{self.exercise.suite}/, "
                     "each starting `# misconception: <key>` and a line saying what it does")
        left = tomllib.loads(self.manifest.read_text(encoding="utf-8")).get("left_to_hidden", {})
        for mutant in mutants:
            self._mutant(suite, mutant, mutant.key in left)

    def _mutant(self, suite, mutant, hidden_only: bool) -> None:
        if mutant.misconception not in _misconceptions(self.exercise.suite):
            self.say(f"the mutant {mutant.key} names the misconception {mutant.misconception!r}, "
                     "which the suite's table does not hold")
            return
        function = _defined(mutant.code, mutant.key, suite.function)
        if isinstance(function, str):
            self.say(function)
            return
        from autograder.checks.ideas import GENERIC, leading

        failed = _failures(suite, function, f"the mutant {mutant.key}")
        named = Counter(f.misconception.key for group in failed.values() for f in group)
        counted = " and ".join(map(repr, sorted(leading(named) - GENERIC)))
        if not named:
            self.say(f"the mutant {mutant.key} is not caught: it passes every group (no check "
                     f"catches {mutant.misconception!r})")
        elif mutant.misconception not in named:
            self.say(f"the mutant {mutant.key} is caught but named {', '.join(sorted(named))}, "
                     f"not {mutant.misconception!r}: diagnose does not recognise it")
        elif counted != repr(mutant.misconception):
            self.say(f"the mutant {mutant.key} is named {_named_where(failed, named, mutant)}; "
                     "the class summary counts a learner under the idea most of their failing "
                     f"checks name, so this mistake would count as {counted}: make diagnose "
                     f"name {mutant.misconception!r} for more of the answers this mistake gives")
        elif not any(failed[g.name] for g in suite.groups if g.visible) and not hidden_only:
            self.say(f"the mutant {mutant.key} passes the visible checks: add a visible example "
                     "that catches it, or list it in course.toml's [left_to_hidden] with why")

    def _recorded(self) -> None:
        from autograder.checks.recorded import FOLDER
        from autograder.checks.reference import record

        path = FOLDER / f"{self.exercise.suite}.json"
        command = f"python -m autograder.checks.reference.record {self.exercise.name}"
        if not path.is_file():
            self.say(f"the visible checks' answers are not recorded (the student install needs "
                     f"them): run `{command}`")
        elif path.read_text(encoding="utf-8") != record.text(record.answers(self.exercise.suite)):
            self.say(f"the recorded answers {self._rel(path)} are stale (the reference, the "
                     f"visible checks or the gallery changed since): run `{command}`")

    def _release(self) -> None:
        from packlab.course.release import recorded_current, release

        command = f"packlab release {self.exercise.name}"
        if not self.exercise.release.is_file():
            self.say(f"the exercise is not released: run `{command}`")
            return
        if recorded_current(self.exercise.name, self.root):
            return
        with tempfile.TemporaryDirectory(prefix="packlab-author-") as folder:
            course = Path(folder)
            shutil.copytree(self.exercise.source.parent, course / "solutions" / self.exercise.name)
            shutil.copy(self.root / "nbgrader_config.py", course)
            try:
                release(self.exercise.name, course)
            except RuntimeError as exc:
                self.say(f"nbgrader cannot release it: {exc}")
                return
            made = course / "exercises" / self.exercise.name / self.exercise.release.name
            if made.read_bytes() != self.exercise.release.read_bytes():
                self.say(f"the release {self._rel(self.exercise.release)} is stale (the solution "
                         f"notebook changed since): run `{command}`")

    def _notebook(self) -> None:
        exercise = self.exercise
        if not exercise.source.is_file():
            return
        notebook = nbformat.read(exercise.source, as_version=4)
        intro = notebook.cells[0].source if notebook.cells else ""
        for key, text in (("teaches", exercise.teaches), ("leaves_out", exercise.leaves_out)):
            if text not in intro:
                self.say(f"the notebook's first cell does not say course.toml's {key} word for "
                         f"word: {text!r}")
        graded = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader.get("points")
                  for c in notebook.cells
                  if c.metadata.get("nbgrader", {}).get("grade")}
        wanted = {exercise.grade_id(group): points for group, points in exercise.points.items()}
        if graded != wanted:
            self.say(f"the notebook's graded cells are {graded} (grade_id: points) but "
                     f"course.toml asks for {wanted}")


def _where(exc: BaseException, root: Path) -> str:
    """ " at FILE line N": the last place in the course's own files the error passed."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if Path(f.filename).is_relative_to(root / "autograder" / "checks")]
    if not frames:
        return ""
    return f" at {Path(frames[-1].filename).relative_to(root)} line {frames[-1].lineno}"


def _named_where(failed: dict[str, list], named: Counter, mutant) -> str:
    """How many failing checks name the mutant's own idea, then each other idea, with the first
    check that names it: "'a' by 2 failing checks, 'b' by 3 (edge-cases: ✗ ...)"."""
    own = mutant.misconception
    seen: dict[str, str] = {}
    for group, failures in failed.items():
        for failure in failures:
            if failure.misconception.key != own:
                seen.setdefault(failure.misconception.key, f"{group}: ✗ {failure.check}")
    checks = "failing check" if named[own] == 1 else "failing checks"
    return f"{own!r} by {named[own]} {checks}, " + ", ".join(
        f"{key!r} by {named[key]} ({where})" for key, where in seen.items())


def _misconceptions(suite: str) -> dict:
    return import_module(f"autograder.checks.suites.{suite}").MISCONCEPTIONS
