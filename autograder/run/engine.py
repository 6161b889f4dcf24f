"""Grading one submission: run the exercise's suite against the student's code in a sandbox."""

from __future__ import annotations

import gc
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from autograder.checks import example_cache
from autograder.checks.suite import Failure, Suite, passed_shown, run_group, seed_key
from autograder.checks.suites import NOT_INSTALLED
from autograder.checks.suites import load as load_suite
from autograder.run import footprint, machine, submission
from autograder.run.isolation import Limits
from autograder.run.sandbox import Sandbox
from packlab.manifest import Exercise


@dataclass
class GroupScore:
    name: str
    description: str
    visible: bool
    points: int | float  # a fraction only under the exercise's proportional partial credit
    max_points: int
    passed: list[str]
    failures: list[Failure]


@dataclass
class Result:
    """Everything the reports need about one student's attempt at one assignment."""

    student: str
    assignment: str
    score: int | float = 0
    max_score: int = 0
    groups: list[GroupScore] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    output: str = ""
    sandbox: str = "bubblewrap"  # how the student's code was confined: see `confinement`
    memory: str = ""  # how its processes' memory was bounded together: `footprint.kind`

    def to_dict(self) -> dict:
        return asdict(self)


RAN = "When your notebook's code ran, "  # how the notes on the student's failing cells begin


def _named(result: Result,
           written: list[tuple[int, str]]) -> tuple[Result, list[submission.CellProblem]]:
    notes, failed = [], []
    for note in result.notes:
        named = submission.cell_problem(note.removeprefix(RAN).removesuffix("."), written) \
            if note.startswith(RAN) else None
        notes.append(f"{RAN}{named.problem}." if named else note)
        failed += [named] if named else []
    return replace(result, notes=notes), failed


def confinement(sandboxed: bool) -> str:
    """What `Result.sandbox` says: "bubblewrap", or "none" when graded without a sandbox."""
    return "bubblewrap" if sandboxed else "none"


def grade_notebook(path, exercise: Exercise, student: str, limits: Limits | None = None,
                   groups: tuple[str, ...] | None = None, sandboxed: bool = True) -> Result:
    """Grade one notebook (all test groups, or just ``groups``); never raises for student code.

    The hidden edge cases are varied for ``student`` and the exercise
    (`autograder.checks.suite.seeded`); what the student's code printed is kept up to the end of the
    visible groups only, and of a hidden group only how many of its checks passed (`passed_shown`).

    With ``sandboxed`` (the default) the student's code runs in a bubblewrap sandbox that sees
    nothing of this machine but the interpreter; without it, in a plain confined process.
    """
    return grade_submission(path, exercise, student, limits, groups, sandboxed)[0]


def grade_submission(path, exercise: Exercise, student: str, limits: Limits | None = None,
                     groups: tuple[str, ...] | None = None, sandboxed: bool = True,
                     below: Path | None = None) -> tuple[Result, list[submission.CellProblem]]:
    """`grade_notebook`, with the student's cells that failed to run named by their place in the
    notebook and their first line ("cell 3 (`def pack(parts, budget)`)"), and those cells' code.

    The notebook is read once, and reading it counts against the submission's time; ``below``
    is SUBMITTED when it is a submission's (no link followed under it, `handed_in.opened`).
    """
    started = time.monotonic()
    limits = limits or Limits()
    result = Result(student, exercise.name, max_score=exercise.max_score,
                    sandbox=confinement(sandboxed))
    suite = load_suite(exercise.suite)
    example_cache.prepare([exercise.suite])
    if _lacks_groups(suite, exercise, groups):
        result.error = NOT_INSTALLED
        return result, []
    try:
        code = submission.read(path, exercise, below)
    except submission.Ungradable as exc:
        result.error = str(exc)
        return result, []
    if time.monotonic() - started > limits.submission_seconds:
        result.error = (f"reading the notebook took longer than the whole submission may take "
                        f"({limits.submission_seconds:g} s)")
        return result, []
    result.notes = code.notes
    result.memory = footprint.kind()
    with Sandbox(code.cells, limits, sandboxed=sandboxed, started=started) as box:
        caller = box.caller(suite.function)
        result.output = box.output_tail()
        for group in suite.groups:
            if groups is not None and group.name not in groups:
                continue
            outcome = run_group(group, caller, seed_key(student, exercise.name))
            points = exercise.earned(group.name, len(outcome.passed),
                                     len(outcome.passed) + len(outcome.failures))
            result.groups.append(GroupScore(group.name, group.description, group.visible, points,
                                            exercise.points[group.name],
                                            passed_shown(group, outcome.passed),
                                            outcome.failures))
            if group.visible:  # what the code prints during hidden groups shows their inputs
                result.output = box.output_tail()
        result.notes += [f"{RAN}{p}." for p in box.problems]
        if box.over_memory:  # said where each check failed, and here for the student's row
            result.notes.append(f"{RAN}{footprint.too_much(limits.footprint_bytes)}, so the "
                                "grader ended it.")
    _hide_machine(result, limits, sandboxed)
    _free_cycles(exercise.suite)
    result.score = round(sum(g.points for g in result.groups), 2)
    if code.untouched and result.score < result.max_score:
        result.notes.insert(0, submission.UNTOUCHED)
    return _named(result, code.written)


_FROZEN: set[str] = set()  # the suites whose first submission this process has frozen after


def _free_cycles(suite: str) -> None:
    """Free, before the next submission, the reference cycles a Hypothesis search leaves
    (exceptions whose tracebacks hold the student's replies, up to 8 MB each): left to the
    garbage collector's own pace they piled up from one student to the next.

    After the first submission of each suite in this process, what is left (the imports, the
    suite, its stored examples, what its checks worked out once) is frozen (`gc.freeze`): it
    stays, and is never scanned again, so each collection scans only what one submission made.
    Frozen once, after the first submission only, a process that loads its suites one by one
    scanned about 43,000 objects for nothing at every submission (20-30 ms each); `packlab
    grade` reads every suite's examples before it starts its processes, so there the first
    freeze held most of them already. A freeze happens at most once per suite, so what it
    keeps of that submission is bounded."""
    gc.collect()
    if suite not in _FROZEN:
        _FROZEN.add(suite)
        gc.freeze()


def _hide_machine(result: Result, limits: Limits, sandboxed: bool) -> None:
    """Keep this machine's details out of every text the student's code made (`machine`)."""
    result.notes = [machine.hidden(note, limits, sandboxed) for note in result.notes]
    for group in result.groups:
        group.failures = [replace(f, got=machine.hidden(f.got, limits, sandboxed))
                          for f in group.failures]


def _lacks_groups(suite: Suite, exercise: Exercise, groups: tuple[str, ...] | None) -> bool:
    """Whether a group asked for (every one the exercise gives points to, by default) is not
    in the suite: grading without it would score a submission on part of its tests."""
    wanted = exercise.points if groups is None else set(groups) & set(exercise.points)
    return not set(wanted) <= {group.name for group in suite.groups}
