"""Grading a plain nbgrader assignment as `nbgrader autograde` does, in packlab's sandbox.

A plain assignment is a folder of solutions/ that course.toml gives no suite, holding one notebook
or several (`packlab.manifest.PlainAssignment`). Each notebook is run as nbgrader's autograde runs
it, by nbgrader's own `Execute` and a real kernel (`autograder.run.kernel`), inside the same
bubblewrap sandbox as the course's exercises, with the course environment's packages and the files
that sat beside the notebooks there, read-only, ``NBGRADER_EXECUTION=autograde`` and nbgrader's
per-cell timeout from nbgrader_config.py (a cell past it is interrupted, the rest still run). What
runs follows nbgrader's rules for what is whose: a cell whose grade_id the source notebook locks
(its test cells, with their hidden test blocks) runs as the instructor wrote it, whatever the
student made of it; answer cells and the student's own cells run as handed in. Each test cell then
scores by nbgrader's own `determine_grade`, on the trusted side, from its outputs. A deleted test
cell is left ungraded, as nbgrader leaves it (with `add_missing_cells` off, its default). Answers
and tasks a person grades wait for formgrader, except an answer left as released, which scores 0. A
notebook the student did not hand in scores 0 in every graded cell, as nbgrader's autograde scores
it; the assignment's score is the sum of its notebooks'.

Trust: the test cells run in the student's process, as under nbgrader, so the student's code can
change what they see and the run notebook can be forged. It is still bounded and parsed, every
other rule of the sandbox holds, what the student's code printed or raised after hidden tests ran
is held back (`without_hidden`), and the grade says it was given at nbgrader's trust level
(`TRUST`).
"""

from __future__ import annotations

import base64
import binascii
import builtins
import codecs
import contextlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.checks.suite import Failure, Misconception, StudentError
from autograder.run import kernel, machine, nbgrader_course, submission
from autograder.run.engine import RAN, GroupScore, Result, confinement
from autograder.run.isolation import Limits, SandboxUnavailable
from autograder.run.sandbox import MAX_DETAIL, OUTPUT_TAIL
from packlab import manifest
from packlab.manifest import GradedCell, PlainAssignment

TRUST = ("a plain nbgrader assignment: its test cells ran in the student's own process, as "
         "under nbgrader, so its scores are only as trustworthy as nbgrader's")
NOTE = ("This is a plain nbgrader assignment: its test cells ran beside your code, as "
        "`nbgrader autograde` runs them.")
HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[ \t]*$(.*?)^[ \t]*### END HIDDEN TESTS[ \t]*$",
                    re.MULTILINE | re.DOTALL)
FAILED_TEST = Misconception("plain-test-failed", "A test in a test cell failed.", "")
TIMED_OUT = Misconception("plain-timeout", "A cell ran past nbgrader's time limit for one cell "
                          "and was interrupted (an endless loop?).", "")
STDERR = Misconception("plain-stderr", "The cell wrote to stderr, which nbgrader counts as an "
                       "error.", "")
PARTIAL = Misconception("plain-partial", "The test cell gave partial credit.", "")
NOT_RUN = Misconception("plain-not-run", "The notebook stopped before this test cell ran.", "")
BLANK = Misconception("plain-blank-answer", "An answer was left as it was handed out.", "")
NOT_HANDED_IN = Misconception("plain-not-handed-in", "A notebook of the assignment was not "
                              "handed in.", "")
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
CELL_LINE = re.compile(r"Cell In\[(\d*)\], line (\d+)")  # IPython's traceback, colours removed
ANSI = re.compile(r"\x1b\[[0-9;]*m")
HIDDEN_PIECE = 6  # letters of a hidden line or string: a shorter one is too common to hold back
HELD_BACK = "(not shown: it held text of a hidden test)"
SHOWN_LINE = 160
Ran = nbformat.NotebookNode  # one cell as nbgrader's Execute left it


@dataclass(frozen=True)
class Planned:
    """One code cell to run: its place in the notebook and the source that runs."""

    position: int
    source: str
    grade_id: str | None
    instructors: bool  # locked in the source notebook: the instructor's text runs


def _source_cells(assignment: PlainAssignment, notebook: str) -> dict[str, nbformat.NotebookNode]:
    """One source notebook's cells by grade_id, each with the text nbgrader's gradebook holds
    for it when there is one (what nbgrader's OverwriteCells puts back: `### AUTOTEST` and
    hashed tests expanded at `nbgrader generate_assignment`)."""
    cells = nbformat.read(assignment.source(notebook), as_version=4).cells
    stored = gradebook_sources(assignment.name, notebook)
    found = {}
    for cell in cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id:
            found[grade_id] = nbformat.from_dict({**cell, "source": stored.get(grade_id,
                                                                               cell.source)})
    return found


def gradebook_sources(name: str, notebook: str, course: Path | None = None) -> dict[str, str]:
    """grade_id -> the cell's text in the course's nbgrader gradebook, for one notebook of an
    assignment ({} when the gradebook, the assignment or the notebook is not there)."""
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.engine import make_url

    folder = course or manifest.MANIFEST.parent
    if not (folder / nbgrader_course.CONFIG).is_file():
        return {}
    found = nbgrader_course.settings(folder)
    url = nbgrader_course.in_folder(found.db_url, folder)
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite") and not Path(parsed.database or "").is_file():
        return {}
    with Gradebook(url, found.course_id) as gb:
        try:
            stored = gb.find_notebook(notebook, name)
        except MissingEntry:
            return {}
        return {cell.name: cell.source for cell in stored.source_cells}


def _released(assignment: PlainAssignment, notebook: str) -> dict[str, nbformat.NotebookNode]:
    """One released notebook's cells by grade_id (their checksums tell a blank answer), or {}."""
    path = assignment.release(notebook)
    if not path.is_file():
        return {}
    return {c.metadata["nbgrader"]["grade_id"]: c
            for c in nbformat.read(path, as_version=4).cells
            if c.metadata.get("nbgrader", {}).get("grade_id")}


# nbgrader's own rules, imported when a plain assignment is graded: importing nbgrader loads its
# server extensions (1.6 CPU-s), which a class of the course's exercises alone never needs.
def is_locked(cell) -> bool:
    from nbgrader.utils import is_locked as locked

    return locked(cell)


def determine_grade(cell) -> tuple[float | None, float | None]:
    from nbgrader.utils import determine_grade as grade

    return grade(cell)


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


def to_run(planned: list[Planned], source: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook nbgrader would run: the planned code cells, the locked ones' metadata and
    the kernelspec the instructor's (nbgrader's OverwriteCells and OverwriteKernelspec)."""
    by_id = {c.metadata["nbgrader"]["grade_id"]: c for c in source.cells
             if c.metadata.get("nbgrader", {}).get("grade_id")}
    cells = [nbformat.v4.new_code_cell(cell.source, metadata=by_id[cell.grade_id].metadata
                                       if cell.instructors else {}) for cell in planned]
    return nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": source.metadata.get("kernelspec", KERNELSPEC)})


def ran_at(planned: list[Planned], run: nbformat.NotebookNode) -> dict[int, Ran]:
    """Each planned cell as it ran (by position); a cell the kernel never reached is left out."""
    return {cell.position: done for cell, done in zip(planned, run.cells, strict=True)
            if done.get("execution_count") is not None or done.get("outputs")}


def printed(planned: list[Planned], ran: dict[int, Ran], hidden: list[str]) -> str:
    """What the student's code printed, up to the first test cell with hidden tests (whose
    code may be printed by it), without any text of a hidden block."""
    text = []
    for cell in planned:
        if cell.instructors and HIDDEN.search(cell.source):
            break
        for output in ran.get(cell.position, {}).get("outputs", []):
            if output.get("output_type") == "stream" and type(output.get("text")) is str:
                text.append(output["text"])
    return without_hidden(machine.hidden("".join(text)[-OUTPUT_TAIL:], kernel=True), hidden).strip()


def run(planned: list[Planned], source: nbformat.NotebookNode, files: dict[str, str],
        limits: Limits, sandboxed: bool) -> tuple[dict[int, Ran], str | None]:
    """Run the planned cells as `nbgrader autograde` runs them, in the sandbox: what each did
    (by position), and why the run stopped early (or None)."""
    try:
        done, stopped = kernel.execute(to_run(planned, source), files, execute_settings(),
                                       limits, sandboxed)
    except StudentError as exc:
        return {}, exc.detail
    said = "its kernel died (os._exit, a crash?)" if stopped == "DeadKernelError" \
        else "its kernel stopped answering"
    return ran_at(planned, done), stopped and said


def execute_settings(course: Path | None = None) -> dict:
    """nbgrader's `Execute` settings from the course's nbgrader_config.py (its own defaults for
    the rest), as JSON."""
    section = nbgrader_course.config(course or manifest.MANIFEST.parent).Execute
    settings = {}
    for name, value in section.items():
        try:
            settings[name] = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            continue  # not a setting the sandbox's nbgrader can be sent
    return settings


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
    instructor's words) only when no line or string of the hidden tests is in it, even
    re-encoded (`without_hidden`): `assert f(3) == 9, "f(3) should be 9"` keeps its message to
    itself, and an error raised by the student's code (whose message may hold a hidden input)
    says only its kind."""
    kind, _, message = error.partition(": ")
    if kind != "AssertionError":
        return error_kind(kind)
    pieces = {line.strip() for line in hidden.splitlines() if len(line.strip()) >= 4}
    strings = set(re.findall(r"""(?:"([^"\n]{4,})"|'([^'\n]{4,})')""", hidden))
    pieces |= {a or b for a, b in strings}
    if not message or message.strip() in hidden or any(p in message for p in pieces) \
            or without_hidden(message, [hidden]) != message:
        return kind
    return error


def error_kind(name: str) -> str:
    """An error's kind as shown: Python's own exception names only (a student's class can be
    named with anything, a hidden input too)."""
    return name if isinstance(getattr(builtins, name, None), type) else "an error of its own kind"


def _plain_letters(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _decoded(text: str) -> list[str]:
    """``text``, and what its runs of hex or base64 decode to."""
    found = [text]
    for run in re.findall(r"[0-9a-fA-F]{8,}", text):
        with contextlib.suppress(ValueError):
            found.append(bytes.fromhex(run[:len(run) // 2 * 2]).decode("utf-8", "replace"))
    for run in re.findall(r"[A-Za-z0-9+/]{8,}={0,2}", text):
        with contextlib.suppress(ValueError, binascii.Error):
            found.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("utf-8",
                                                                               "replace"))
    return found


def without_hidden(text: str, hidden: list[str]) -> str:
    """``text``, or a note saying it was held back when it holds a piece of a hidden block:
    a line or string of it, even reversed, in other letter case, spaced or punctuated
    differently, in rot13, hex or base64. What a student's code raises or prints after hidden
    tests ran passes through here; what it cannot catch (any other encoding, one bit per pass
    or fail) is stated in the guide."""
    pieces = set()
    for block in hidden:
        for piece in [*block.splitlines(), *re.findall(r"""["']([^"'\n]+)["']""", block)]:
            letters = _plain_letters(piece.replace("assert", ""))
            if len(letters) >= HIDDEN_PIECE:
                pieces.add(letters)
    if not pieces or not text:
        return text
    for form in _decoded(text):
        letters = _plain_letters(form)
        for shown in (letters, letters[::-1], codecs.encode(letters, "rot13")):
            if any(piece in shown for piece in pieces):
                return HELD_BACK
    return text


def _timed_out(done: Ran) -> bool:
    return any(o.get("ename") == "CellTimeoutError" for o in done.get("outputs", []))


def _error(done: Ran) -> tuple[str, int | None] | None:
    """The cell's error as ``"Kind: message"`` and the line it failed on (None: no error)."""
    for output in done.get("outputs", []):
        if output.get("output_type") == "error":
            kind, message = str(output.get("ename", "")), str(output.get("evalue", ""))
            line = None
            for frame in output.get("traceback", []) if type(output.get("traceback")) is list \
                    else []:
                found = CELL_LINE.search(ANSI.sub("", str(frame)))
                if found and found.group(1) == str(done.get("execution_count")):
                    line = int(found.group(2))  # the cell's own frame, not a function's
            shown = machine.hidden(f"{kind}: {message}" if message else kind, kernel=True)
            return shown[:MAX_DETAIL], line
    return None


def _failure(cell: Planned, done: Ran | None, points: float, max_points: float,
             stopped: str | None, hidden: list[str]) -> Failure:
    secret = "\n".join(m.group(1) for m in HIDDEN.finditer(cell.source))
    if done is None:
        return Failure(f"test cell `{cell.grade_id}` did not run", "(not run)",
                       f"the notebook stopped before it ({stopped})", "the cell to run", NOT_RUN)
    if _timed_out(done):
        return Failure(f"test cell `{cell.grade_id}` ran past nbgrader's time limit for a cell",
                       "(the whole cell)", "it was interrupted", "the cell to finish in time",
                       TIMED_OUT)
    error = _error(done)
    if error is None:
        stderr = any(o.get("name") == "stderr" for o in done.get("outputs", []))
        if stderr:
            return Failure(f"test cell `{cell.grade_id}`: 0 of {max_points} points",
                           "(the whole cell)", "it wrote to stderr", "nothing on stderr", STDERR)
        return Failure(f"test cell `{cell.grade_id}`: {points} of {max_points} points",
                       "(the whole cell)", "its last value gave partial credit",
                       f"{max_points} points", PARTIAL)
    message, line = error
    shown = _visible_line(cell.source, line)
    if shown is None and secret:
        return Failure(f"a hidden test in test cell `{cell.grade_id}` failed", "(hidden)",
                       safe_message(message, secret), "no error", FAILED_TEST)
    kind, _, said = message.partition(": ")
    message = without_hidden(f"{error_kind(kind)}: {said}" if said else error_kind(kind), hidden)
    return Failure(f"test cell `{cell.grade_id}` failed", shown or "(line unknown)", message,
                   "no error", FAILED_TEST)


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


def _student_notes(planned: list[Planned], ran: dict[int, Ran], hidden: list[str]) -> list[str]:
    """"cell N raised ..." for the student's own cells; after a cell with hidden tests ran, the
    error's kind only passes `without_hidden`, its message never."""
    notes, after_hidden = [], False
    for cell in planned:
        done = ran.get(cell.position)
        if done is None:
            continue
        if cell.instructors and HIDDEN.search(cell.source):
            after_hidden = True
        error = None if cell.instructors else _error(done)
        if error is None:
            continue
        kind, _, message = error[0].partition(": ")
        said = error_kind(kind) if after_hidden else \
            without_hidden(f"{error_kind(kind)}: {message}" if message else error_kind(kind),
                           hidden)
        notes.append(f"{RAN}cell {cell.position} raised {said}.")
    return notes


def _manual(graded: GradedCell, group: str, submitted: dict, source: nbformat.NotebookNode,
            released: dict, result: Result) -> None:
    """An answer (or task) a person grades: waits for formgrader, or 0 when left as released."""
    score = _answer_score(submitted.get(graded.grade_id), source,
                          released.get(graded.grade_id)) if not graded.task else None
    what = "is blank as released: 0" if score == 0 else "needs manual grading (formgrader)"
    kind = "task" if graded.task else "answer"
    result.notes.append(f"The {kind} `{group}` ({_points(graded.points)} points) {what}.")
    if score == 0:  # nbgrader's auto score 0: nothing for a person to grade
        blank = Failure(f"the answer `{group}` was left as handed out",
                        "(your answer)", "the answer as handed out", "your answer", BLANK)
        result.groups.append(GroupScore(group, "an answer a person grades",
                                        True, 0, _points(graded.points), [], [blank]))


def _not_handed_in(assignment: PlainAssignment, notebook: str, result: Result) -> None:
    """A notebook missing from the submission: every graded cell of it scores 0, nothing
    waits for a person, as `nbgrader autograde` scores it ("No submitted file")."""
    result.notes.append(f"{notebook}.ipynb was not handed in: its cells score 0, as nbgrader "
                        "scores a missing notebook.")
    for graded in (c for c in assignment.cells if c.notebook == notebook):
        group = assignment.group(graded)
        missing = Failure(f"`{group}` is in {notebook}.ipynb, which was not handed in",
                          "(the notebook)", "no notebook", f"{notebook}.ipynb", NOT_HANDED_IN)
        result.groups.append(GroupScore(group, f"a graded cell of {notebook}.ipynb", True, 0,
                                        _points(graded.points), [], [missing]))


def _grade_notebook(path: Path, assignment: PlainAssignment, notebook: str, files: dict,
                    hidden: list[str], limits: Limits, sandboxed: bool, below,
                    result: Result) -> None:
    """Run and score one notebook of the submission as `nbgrader autograde` does, into
    ``result``; `submission.Ungradable` and `SandboxUnavailable` pass up."""
    cells = submission.notebook_cells(path, below)
    source, released = _source_cells(assignment, notebook), _released(assignment, notebook)
    planned, notes = plan(cells, source, released)
    ran, stopped = run(planned, nbformat.read(assignment.source(notebook), as_version=4), files,
                       limits, sandboxed)
    several = len(assignment.notebooks) > 1
    where = f"{notebook}.ipynb: " if several else ""
    output = printed(planned, ran, hidden)
    result.output += (f"--- {notebook}.ipynb ---\n{output}\n" if several and output else output)
    result.notes += [where + note for note in notes]
    if stopped:
        result.notes.append(f"{where}The notebook stopped: {stopped}; no later cell ran.")
    result.notes += _student_notes(planned, ran, hidden)
    by_id = {c.grade_id: c for c in planned if c.grade_id and c.instructors}
    submitted = {c.grade_id: c for c in cells if c.grade_id}
    for graded in (c for c in assignment.cells if c.notebook == notebook):
        group = assignment.group(graded)
        if graded.manual:
            _manual(graded, group, submitted, source.get(graded.grade_id), released, result)
            continue
        cell = by_id.get(graded.grade_id)
        if cell is None:
            result.notes.append(f"The test cell `{group}` was missing from the notebook: left "
                                "ungraded, as nbgrader leaves it (formgrader can grade it by "
                                "hand).")
            continue
        done = ran.get(cell.position)
        try:
            points = 0 if done is None else determine_grade(done)[0]
        except ValueError:  # partial credit over the cell's points
            points = 0
        points, most = _points(points), _points(graded.points)
        secret = bool(HIDDEN.search(cell.source))
        failures = [] if points == most else [_failure(cell, done, points, most, stopped,
                                                       hidden)]
        result.groups.append(GroupScore(
            group, "a test cell" + (" with hidden tests" if secret else "")
            + (f" of {notebook}.ipynb" if several else ""),
            not secret, points, most, [] if failures else ["the cell ran without an error"],
            failures))


def hidden_blocks(assignment: PlainAssignment) -> list[str]:
    """The text of every hidden test block of the assignment's notebooks (held back from what
    the student's code printed or raised, whichever notebook it ran in)."""
    return [m.group(1) for notebook in assignment.notebooks
            for cell in _source_cells(assignment, notebook).values() if is_locked(cell)
            for m in HIDDEN.finditer(cell.source)]


def grade_plain(path, assignment: PlainAssignment, student: str, limits: Limits | None = None,
                sandboxed: bool = True,
                below=None) -> tuple[Result, list[submission.CellProblem]]:
    """Grade one submission of a plain nbgrader assignment, every notebook of it (``path``:
    one of its notebooks, in the submission's folder); never raises for student code."""
    limits = limits or Limits()
    result = Result(student, assignment.name, max_score=assignment.max_score,
                    sandbox=confinement(sandboxed))
    folder = Path(path).parent
    try:
        files = kernel.files_beside([folder, assignment.folder])
    except (StudentError, OSError) as exc:
        result.error = f"the files handed in beside the notebook could not be used: " \
            f"{getattr(exc, 'detail', type(exc).__name__)}"
        return result, []
    hidden = hidden_blocks(assignment)
    result.notes = [NOTE]
    for notebook in assignment.notebooks:
        handed = folder / f"{notebook}.ipynb"
        if not (handed.is_file() or handed.is_symlink()):
            _not_handed_in(assignment, notebook, result)
            continue
        try:
            _grade_notebook(handed, assignment, notebook, files, hidden, limits, sandboxed,
                            below, result)
        except submission.Ungradable as exc:
            result.error = f"{notebook}.ipynb: {exc}" if len(assignment.notebooks) > 1 \
                else str(exc)
            return result, []
        except SandboxUnavailable as exc:
            result.error = str(exc)
            return result, []
    result.output = result.output.strip()[-OUTPUT_TAIL:]
    result.score = _points(sum(g.points for g in result.groups))
    return result, []
