"""Grading a plain nbgrader assignment as `nbgrader autograde` does, in packlab's sandbox.

A plain assignment is a notebook of solutions/ that course.toml gives no suite
(`packlab.manifest.PlainAssignment`). Its cells run in order in one worker, in the same
bubblewrap sandbox and limits as the course's exercises, after nbgrader's rules for what is
whose: a cell whose grade_id the source notebook locks (its test cells, with their hidden test
blocks) runs as the instructor wrote it, whatever the student made of it; answer cells and the
student's own cells run as handed in. Each test cell then scores by nbgrader's own
`determine_grade`, on the trusted side, from what the worker says the cell did: an error or
anything written to stderr scores 0, a number as the cell's value is partial credit, anything else
the cell's points. A deleted test cell scores 0 (nbgrader's default, `add_missing_cells` off).
Answers a person grades wait for formgrader, except one left as released, which scores 0.

Trust: the test cells run in the student's process, as under nbgrader, so the student's code can
change what they see and the worker's replies can be forged. The replies are still bounded and
checked (a reply that is not one is the student's failure, and no later cell runs), every other
rule of the sandbox holds, and the grade says it was given at nbgrader's trust level (`TRUST`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace

import nbformat
from nbgrader.utils import determine_grade, is_locked

from autograder.checks.suite import Failure, Misconception, StudentError
from autograder.run import machine, submission
from autograder.run.engine import RAN, GroupScore, Result, confinement
from autograder.run.isolation import Limits
from autograder.run.sandbox import MAX_DETAIL, Sandbox
from autograder.worker import MAX_VALUE
from packlab.manifest import PlainAssignment

TRUST = ("a plain nbgrader assignment: its test cells ran in the student's own process, as "
         "under nbgrader, so its scores are only as trustworthy as nbgrader's")
NOTE = ("This is a plain nbgrader assignment: its test cells ran beside your code, as "
        "`nbgrader autograde` runs them.")
HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[ \t]*$(.*?)^[ \t]*### END HIDDEN TESTS[ \t]*$",
                    re.MULTILINE | re.DOTALL)
FAILED_TEST = Misconception("plain-test-cell", "A test cell of this assignment failed.", "")
SHOWN_LINE = 160


@dataclass(frozen=True)
class Planned:
    """One code cell to run: its place in the notebook and the source that runs."""

    position: int
    source: str
    grade_id: str | None
    instructors: bool  # locked in the source notebook: the instructor's text runs


@dataclass(frozen=True)
class Ran:
    """What the worker says one cell did (checked, not believed)."""

    error: str | None
    line: int | None
    stderr: bool
    value: str | None


def checked(reply, number: int) -> Ran:
    """The worker's reply about cell ``number``; `StudentError` ("interfered") if it is not one."""
    if type(reply) is not dict or set(reply) != {"ran", "error", "line", "stderr", "value"} \
            or reply["ran"] != number or type(reply["ran"]) is not int:
        raise StudentError("interfered", f"a reply that is not the worker's, about cell {number}")
    error, line, stderr, value = reply["error"], reply["line"], reply["stderr"], reply["value"]
    if not (error is None or type(error) is str and len(error) <= MAX_DETAIL + 20) \
            or not (line is None or type(line) is int) or type(stderr) is not bool \
            or not (value is None or type(value) is str and len(value) <= MAX_VALUE):
        raise StudentError("interfered", f"a malformed reply about cell {number}")
    return Ran(error, line, stderr, value)


def _source_cells(assignment: PlainAssignment) -> dict[str, nbformat.NotebookNode]:
    cells = nbformat.read(assignment.source, as_version=4).cells
    return {c.metadata["nbgrader"]["grade_id"]: c for c in cells
            if c.metadata.get("nbgrader", {}).get("grade_id")}


def _released(assignment: PlainAssignment) -> dict[str, nbformat.NotebookNode]:
    """The release's cells by grade_id (their checksums tell a blank answer), or {}."""
    if not assignment.release.is_file():
        return {}
    return {c.metadata["nbgrader"]["grade_id"]: c
            for c in nbformat.read(assignment.release, as_version=4).cells
            if c.metadata.get("nbgrader", {}).get("grade_id")}


def plan(cells: list[submission.Cell], source: dict,
         released: dict) -> tuple[list[Planned], list[str]]:
    """The code cells to run, in the notebook's order, and notes on what the student changed
    (from the ``released`` cells, which have no hidden tests)."""
    planned, notes = [], []
    for cell in cells:
        original = source.get(cell.grade_id) if cell.grade_id else None
        kind = original.cell_type if original is not None else cell.kind
        if kind != "code":
            continue
        if original is not None and is_locked(original):
            if cell.source != released.get(cell.grade_id, original).source:
                notes.append(f"The cell `{cell.grade_id}` had been edited; the original ran.")
            planned.append(Planned(cell.position, original.source, cell.grade_id, True))
        else:
            planned.append(Planned(cell.position, cell.source, cell.grade_id, False))
    return planned, notes


def _as_python(cells: list[Planned]) -> list[str]:
    """Each cell's source as IPython reads it (magics, ``!``), as the worker runs it."""
    reader = None
    out = []
    for cell in cells:
        text = cell.source
        if "%" in text or "!" in text or "?" in text:
            reader = reader or submission._ipython_reader()
            text = reader(text)
        out.append(text)
    return out


def run(cells: list[Planned], limits: Limits, sandboxed: bool,
        started: float) -> tuple[dict[int, Ran], str, str | None]:
    """Run ``cells`` in order in one sandbox: what each did (by position), what the student's
    code printed before the first cell with hidden tests, and why the run stopped early (or None).
    """
    ran: dict[int, Ran] = {}
    stopped = None
    output = ""
    with Sandbox([], limits, sandboxed=sandboxed, started=started) as box:
        for cell, python in zip(cells, _as_python(cells), strict=True):
            if HIDDEN.search(cell.source) and cell.instructors and not output:
                output = box.output_tail() or " "
            try:
                ran[cell.position] = _hidden(checked(box.run_cell(python, cell.position),
                                                     cell.position), limits, sandboxed)
            except StudentError as exc:
                box.close()
                stopped = f"cell {cell.position}: {exc.detail}"
                break
        if not output:
            output = box.output_tail()
    return ran, output.strip() and output, stopped


def _hidden(did: Ran, limits: Limits, sandboxed: bool) -> Ran:
    """What a cell did, without this machine's details (`machine.hidden`)."""
    return replace(did, error=did.error and machine.hidden(did.error, limits, sandboxed),
                   value=did.value and machine.hidden(did.value, limits, sandboxed))


def _visible_line(source: str, line: int | None) -> str | None:
    """The test cell's line ``line``, unless it lies in a hidden block (or is not a line)."""
    lines = source.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return None
    offset = sum(len(text) + 1 for text in lines[:line - 1])
    if any(m.start() <= offset <= m.end() for m in HIDDEN.finditer(source)):
        return None
    text = lines[line - 1].strip()
    return text if len(text) <= SHOWN_LINE else text[:SHOWN_LINE] + " …"


def safe_message(error: str, hidden: str) -> str:
    """What a failed hidden test may say: its kind, and the message of an AssertionError (the
    instructor's words) only when no line or string of the hidden tests is in it: `assert f(3) ==
    9, "f(3) should be 9"` keeps its message to itself, and an error raised by the student's code
    (whose message may hold a hidden input) says only its kind."""
    kind, _, message = error.partition(": ")
    if kind != "AssertionError":
        return kind
    pieces = {line.strip() for line in hidden.splitlines() if len(line.strip()) >= 4}
    strings = set(re.findall(r"""(?:"([^"\n]{4,})"|'([^'\n]{4,})')""", hidden))
    pieces |= {a or b for a, b in strings}
    if not message or message.strip() in hidden or any(p in message for p in pieces):
        return kind
    return error


def _failure(cell: Planned, did: Ran | None, points: float, max_points: float,
             stopped: str | None) -> Failure:
    hidden = "\n".join(m.group(1) for m in HIDDEN.finditer(cell.source))
    if did is None:
        return Failure(f"test cell `{cell.grade_id}` did not run", "(not run)",
                       f"the notebook stopped before it ({stopped})", "the cell to run",
                       FAILED_TEST)
    if did.error is None:
        why = "wrote to stderr (nbgrader counts that as an error)" if did.stderr \
            else f"its output {did.value}"
        return Failure(f"test cell `{cell.grade_id}`: {points} of {max_points} points",
                       "(the whole cell)", why, "no error", FAILED_TEST)
    line = _visible_line(cell.source, did.line)
    if line is None and hidden:
        return Failure(f"a hidden test in test cell `{cell.grade_id}` failed", "(hidden)",
                       safe_message(did.error, hidden), "no error", FAILED_TEST)
    return Failure(f"test cell `{cell.grade_id}` failed", line or "(line unknown)", did.error,
                   "no error", FAILED_TEST)


def _graded(cell: nbformat.NotebookNode, did: Ran | None) -> nbformat.NotebookNode:
    """The test cell as nbgrader would hold it after running: its outputs from ``did``."""
    outputs = []
    if did is None or did.error is not None:
        kind, _, message = (did.error if did else "NotRun").partition(": ")
        outputs.append(nbformat.v4.new_output("error", ename=kind, evalue=message, traceback=[]))
    else:
        if did.stderr:
            outputs.append(nbformat.v4.new_output("stream", name="stderr", text=""))
        if did.value is not None:
            outputs.append(nbformat.v4.new_output("execute_result",
                                                  data={"text/plain": did.value}))
    graded = nbformat.v4.new_code_cell(cell.source, metadata=cell.metadata)
    graded.outputs = outputs
    return graded


def _answer_score(submitted: submission.Cell | None, source, released) -> float | None:
    """nbgrader's score of an answer a person grades: 0 when left as released, else None."""
    if submitted is None or released is None:
        return None
    cell = nbformat.from_dict({"cell_type": source.cell_type, "source": submitted.source,
                               "metadata": released.metadata})
    return determine_grade(cell)[0]


def _points(value: float) -> int | float:
    value = round(value, 2)
    return int(value) if float(value).is_integer() else value


def grade_plain(path, assignment: PlainAssignment, student: str, limits: Limits | None = None,
                sandboxed: bool = True,
                below=None) -> tuple[Result, list[submission.CellProblem]]:
    """Grade one submission of a plain nbgrader assignment; never raises for student code."""
    started = time.monotonic()
    limits = limits or Limits()
    result = Result(student, assignment.name, max_score=assignment.max_score,
                    sandbox=confinement(sandboxed))
    try:
        cells = submission.notebook_cells(path, below)
    except submission.Ungradable as exc:
        result.error = str(exc)
        return result, []
    source, released = _source_cells(assignment), _released(assignment)
    planned, notes = plan(cells, source, released)
    ran, result.output, stopped = run(planned, limits, sandboxed, started)
    result.notes = [NOTE, *notes]
    if stopped:
        result.notes.append(f"The notebook stopped at {stopped}; no later cell ran.")
    result.notes += [f"{RAN}cell {c.position} raised {ran[c.position].error}." for c in planned
                     if not c.instructors and c.position in ran and ran[c.position].error]
    by_id = {c.grade_id: c for c in planned if c.grade_id and c.instructors}
    submitted = {c.grade_id: c for c in cells if c.grade_id}
    for graded in assignment.cells:
        original = source[graded.grade_id]
        if graded.manual:
            score = _answer_score(submitted.get(graded.grade_id), original,
                                  released.get(graded.grade_id))
            what = "is blank as released: 0" if score == 0 else "needs manual grading (formgrader)"
            result.notes.append(f"The answer `{graded.grade_id}` ({_points(graded.points)} "
                                f"points) {what}.")
            if score == 0:  # nbgrader's auto score 0: nothing for a person to grade
                blank = Failure(f"the answer `{graded.grade_id}` was left as handed out",
                                "(your answer)", "the answer as handed out", "your answer",
                                FAILED_TEST)
                result.groups.append(GroupScore(graded.grade_id, "an answer a person grades",
                                                True, 0, _points(graded.points), [], [blank]))
            continue
        cell = by_id.get(graded.grade_id)
        if cell is None:
            result.notes.append(f"The test cell `{graded.grade_id}` was missing from the "
                                "notebook: 0 points (as nbgrader).")
            gone = Failure(f"test cell `{graded.grade_id}` was not in the notebook", "(deleted)",
                           "nothing: the cell was missing", "the test cell as handed out",
                           FAILED_TEST)
            result.groups.append(GroupScore(graded.grade_id, "a test cell (missing)", True, 0,
                                            _points(graded.points), [], [gone]))
            continue
        did = ran.get(cell.position)
        try:
            points = determine_grade(_graded(original, did))[0]
        except ValueError:  # partial credit over the cell's points
            points = 0
        points, most = _points(points), _points(graded.points)
        hidden = bool(HIDDEN.search(original.source))
        failures = [] if points == most else [_failure(cell, did, points, most, stopped)]
        result.groups.append(GroupScore(
            graded.grade_id, "a test cell" + (" with hidden tests" if hidden else ""),
            not hidden, points, most, [] if failures else ["the cell ran without an error"],
            failures))
    result.score = _points(sum(g.points for g in result.groups))
    return result, []
