"""Answers that are suspiciously alike: a report for a person to judge, never a grade.

Per assignment, every student's answer code (the cells the grader runs: the answer cells and any
cell the student added, read as `autograder.run.submission` reads them) is compared with every other
student's by copydetect. It tokenizes the code with pygments and writes every variable as ``V``,
every function name as ``F`` and every string as ``S``, drops comments and spacing, then compares
fingerprints of 25-character runs (its default noise threshold): renamed variables, new comments
and moved helpers do not hide a copy. Nothing is imported or run: copydetect only reads text.

What everyone was given never counts (copydetect's boilerplate): the released notebook's code,
and the course's reference answer. The reference counts as boilerplate on evidence, from the
mutant gallery (each gallery answer is the reference with one known mistake; measured by
`benchmarks/similarity.py` on the answers read as `normalise` reads them), copydetect's defaults,
and with a pair flagged when one side's similarity is at least 70 %:
- with only the release as boilerplate, 360 of the 493 pairs of gallery answers (73 %) were
  flagged: answers that follow the course's own solution look like copies of each other, and an
  exercise whose natural answer is short would flag most of a class;
- with the reference too, 19 of 493 (3.9 %) were (24 before answers were normalised); a copy of
  a gallery answer with its names changed, its comments rewritten and its functions reordered
  was still flagged in 85 of 88 cases (97 %; 79 before: normalising undoes most of that
  disguise), and two differently written correct answers of 02 and 04 shared nothing;
- the price: two students who both hand in the reference answer are never flagged. That is
  what the course teaches, and no evidence that one copied the other.

Apart from the pairs, an answer that is mostly code the course gave out is listed on its own
(`Given`): the reference answer (the solution notebook's, or a module of
`autograder.checks.reference`, the grader's), or a module of `packlab.packing`, which the student
install holds. It is listed when at least `GIVEN_SHARE` of it is found in that code and the code
they share is long (`GIVEN_MIN_SHARED` of copydetect's overlapping tokens): the reference answers of
01 to 05 are shorter than that (31 to 119), since a right answer there is the lesson's loop written
again; those of 06 to 10 are longer (195 to 1,141), and so is any whole module pasted in.

An answer that runs code it builds while it runs (it names exec, eval, compile, __import__ or
the builtins) is listed on its own too (`Runs`): a classmate's code packed into a compressed,
encoded string shares no text with its original, so no pair could show it.

Every answer is first read for what it does (`autograder.cohort.normalise`: Python's parser, names
written canonically, comments, type hints, layout, statements that do nothing (`pass`, bare
constants, docstrings, unreachable code) and the order of its functions set aside), and copydetect
compares those forms, with the release and the reference set aside in that form too. So an answer
that is the reference with its parameters renamed or its type hints dropped leaves nothing behind
(before, its `def` line was left over, and two such answers were flagged at 100 %). An answer that
is, in that form, the reference, the released starter, or either with one word changed (exercise
03's fix, `break` made `continue`, or one classic mistake such as `<=` made `<`) is never compared:
it is listed as what it is (`Known`). The flagged pairs are grouped into clusters (the connected
components of the pairs: classmates who share one answer are one cluster, listed once), the most
alike first, each shown with its members' own code side by side.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.cohort.normalise import normalised, recognise
from autograder.escape import for_csv, for_html, for_terminal, visible
from packlab.manifest import Exercise, load

if TYPE_CHECKING:
    import numpy as np
    from copydetect import CodeFingerprint

# copydetect (numpy, matplotlib) and the grader's reading of notebooks are imported where they
# are used: `packlab` builds this command's options from the constants below at every start.

THRESHOLD = 0.7  # a pair is flagged when this share of one answer is found in the other
MAX_PAIRS = 30  # flagged pairs reported per assignment, most similar first
MAX_CODE_CHARS = 20_000  # of one answer compared and shown (the longest reference has 4,629)
MAX_NOTEBOOK_BYTES = 20_000_000
NOISE = 25  # copydetect's default: the shortest run of (abstracted) code that counts
GIVEN_SHARE = 0.8  # an answer is listed when this share of it is code the course gave out
GIVEN_MIN_SHARED = 150  # ... and the code they share is at least this long (copydetect tokens)
CSV_FIELDS = ["assignment", "student_a", "student_b", "similarity_a", "similarity_b",
              "shared_tokens", "cluster"]
REFERENCE, STARTER = "the course's reference answer", "the released starter"


class NotCompared(Exception):
    """A submission that cannot be compared; the message says why, in plain words."""


@dataclass(frozen=True)
class Answer:
    student: str
    code: str
    cut: int = 0  # characters left out past MAX_CODE_CHARS


@dataclass(frozen=True)
class Pair:
    """Two answers, how much of each is found in the other, and where."""

    a: Answer
    b: Answer
    similarity_a: float  # the share of a's compared code also found in b's
    similarity_b: float
    shared: int  # copydetect's overlapping tokens (characters of abstracted code)

    @property
    def similarity(self) -> float:
        return max(self.similarity_a, self.similarity_b)

    @property
    def students(self) -> tuple[str, str]:
        return self.a.student, self.b.student


@dataclass(frozen=True)
class Cluster:
    """Classmates whose answers are alike: the flagged pairs joining them, and each member's own
    code with what it shares with its closest classmate in the cluster marked."""

    number: int  # 1 is the most alike
    pairs: list[Pair]  # most similar first
    shown: list[tuple[Answer, str, np.ndarray]] = field(repr=False, compare=False)
    # ... (answer, the classmate its marks are shared with, copydetect's slices of answer.code)

    @property
    def students(self) -> list[str]:
        return sorted({s for pair in self.pairs for s in pair.students})

    @property
    def similarity(self) -> float:
        return self.pairs[0].similarity


@dataclass(frozen=True)
class Known:
    """An answer that is, names and layout set aside, code the course gave out (perhaps with one
    word changed): never compared, listed as what it is."""

    student: str
    what: str


@dataclass(frozen=True)
class Given:
    """An answer that is mostly code the course gave out: its reference, or shipped code."""

    student: str
    source: str  # what it matches, in words
    share: float  # the share of the answer found there
    shared: int


@dataclass(frozen=True)
class Runs:
    """An answer that runs code it builds while it runs: copydetect reads text, so a classmate's
    code packed into a string (``exec(zlib.decompress(b64decode(...)))``) shares none with its
    original, and such an answer is listed on its own, for a person to read."""

    student: str
    names: tuple[str, ...]  # what it calls of `RUNS_BUILT_CODE`, in order of first use


@dataclass
class Assignment:
    name: str
    compared: int = 0
    pairs: list[Pair] = field(default_factory=list)  # flagged, most similar first
    clusters: list[Cluster] = field(default_factory=list)  # of all flagged pairs, most alike first
    known: list[Known] = field(default_factory=list)  # answers that are given code (normalised)
    given: list[Given] = field(default_factory=list)  # answers that are code the course gave out
    runs: list[Runs] = field(default_factory=list)  # answers that run code built while they run
    more: int = 0  # flagged pairs left out past the limit
    not_compared: list[tuple[str, str]] = field(default_factory=list)  # (student, why)
    problem: str | None = None  # why nothing in it was compared


def answer(student: str, notebook: Path, exercise: Exercise) -> Answer:
    """The student's answer code, cut to MAX_CODE_CHARS; `NotCompared` when it cannot be read."""
    from autograder.run import submission

    try:
        size = notebook.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            raise NotCompared(f"the notebook is {size / 1e6:.0f} MB, more than the "
                              f"{MAX_NOTEBOOK_BYTES / 1e6:.0f} MB read for this report")
        code = "\n\n".join(submission.read(notebook, exercise).cells)
    except submission.Ungradable as exc:
        raise NotCompared(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - one odd notebook must not stop the report
        raise NotCompared(f"the notebook could not be read ({type(exc).__name__})") from None
    code = visible(code)  # no control characters, no lone surrogates
    return Answer(student, code[:MAX_CODE_CHARS], max(0, len(code) - MAX_CODE_CHARS))


def _fingerprint(code: str, boilerplate: list[int] | None = None) -> CodeFingerprint:
    from copydetect import CodeFingerprint

    return CodeFingerprint("answer.py", NOISE, 1, boilerplate, language="python",
                           fp=io.StringIO(code))


def _read(code: str) -> str:
    """What copydetect compares: the code read for what it does (`normalise`), or as written
    when it does not parse."""
    return normalised(code) or code


def code_cells(path: Path, answers_only: bool) -> list[str]:
    """A notebook's code cells, or only its answer cells (nbgrader `solution`)."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "code" and (
        not answers_only or cell.metadata.get("nbgrader", {}).get("solution"))]


def boilerplate(exercise: Exercise, reference: bool = True) -> list[int]:
    """The fingerprints that never count: the release's code and the reference answer (without
    it only with ``reference=False``, as `benchmarks/similarity.py` compares)."""
    given = code_cells(exercise.release, False)
    given += code_cells(exercise.source, True) if reference else []
    return sorted(set().union(*(_fingerprint(_read(code)).hashes for code in given)))


def compare(answers: list[Answer], given: list[int], threshold: float = THRESHOLD
            ) -> tuple[list[Pair], list[tuple[str, str]]]:
    """The flagged pairs (most similar first), and the answers with nothing of their own."""
    from copydetect import compare_files

    prints = {a.student: _fingerprint(_read(a.code), given) for a in answers}
    empty = [(a.student, "nothing of its own to compare: apart from the released starter and "
              "the course's reference answer (perhaps with other names), it has no run of code "
              "long enough to match")
             for a in answers if not prints[a.student].hashes]
    own = [a for a in answers if prints[a.student].hashes]
    pairs = []
    for a, b in itertools.combinations(own, 2):
        shared, (sim_a, sim_b), _ = compare_files(prints[a.student], prints[b.student])
        if shared and max(sim_a, sim_b) >= threshold:
            pairs.append(Pair(a, b, float(sim_a), float(sim_b), int(shared)))
    pairs.sort(key=lambda p: (-p.similarity, -p.shared, p.a.student, p.b.student))
    return pairs, empty


def given_code(exercise: Exercise) -> list[tuple[str, str]]:
    """The code the course gave out or grades by, in words and as text: the reference answer
    (the solution notebook's, and the grader's in `autograder.checks.reference`, which a copy of the
    instructor's install would hold), and every module of `packlab.packing` (the student
    install holds them)."""
    import autograder.checks.reference
    import packlab.packing

    sources = [("the course's reference answer",
                "\n\n".join(code_cells(exercise.source, True)))]
    for package, where, said in ((autograder.checks.reference, "autograder/checks/reference",
                                  "the grader's reference answers"),
                                 (packlab.packing, "packlab/packing",
                                  "which the student install holds")):
        folder = Path(package.__file__).parent
        sources += [(f"{where}/{path.name}, {said}", path.read_text(encoding="utf-8"))
                    for path in sorted(folder.glob("*.py"))
                    if path.name not in ("__init__.py", "record.py")]
    return sources


def given(answers: list[Answer], exercise: Exercise) -> list[Given]:
    """The answers that are mostly code the course gave out (each with its closest source)."""
    from copydetect import compare_files

    release = boilerplate(exercise, reference=False)
    sources = [(label, _fingerprint(code, release)) for label, code in given_code(exercise)]
    found = []
    for one in answers:
        mine = _fingerprint(one.code, release)
        if not mine.hashes:
            continue
        matches = []
        for label, source in sources:
            shared, (share, _), _ = compare_files(mine, source)
            if shared >= GIVEN_MIN_SHARED and share >= GIVEN_SHARE:
                matches.append(Given(one.student, label, float(share), int(shared)))
        if matches:
            found.append(max(matches, key=lambda m: (m.share, m.shared)))
    return sorted(found, key=lambda m: (-m.share, m.student))


# What runs code given as data (or reaches for what does): no answer to these exercises needs it.
RUNS_BUILT_CODE = ("exec", "eval", "compile", "__import__", "__builtins__", "builtins")


def runs_built_code(answers: list[Answer]) -> list[Runs]:
    """The answers that name anything of `RUNS_BUILT_CODE` in their code (read as Python
    tokens, so a name in a string or a comment does not count; code that does not tokenize is
    read up to where it stops)."""
    found = []
    for one in answers:
        names: list[str] = []
        with contextlib.suppress(tokenize.TokenError, SyntaxError):
            for token in tokenize.generate_tokens(io.StringIO(one.code).readline):
                if token.type == tokenize.NAME and token.string in RUNS_BUILT_CODE \
                        and token.string not in names:
                    names.append(token.string)
        if names:
            found.append(Runs(one.student, tuple(names)))
    return sorted(found, key=lambda runs: runs.student)


def known(answers: list[Answer], exercise: Exercise) -> list[Known]:
    """The answers that are, read for what they do, the reference or the released starter, or
    one of them with one word changed (`normalise.recognise`)."""
    given = [(REFERENCE, "\n\n".join(code_cells(exercise.source, True))),
             (STARTER, "\n\n".join(code_cells(exercise.release, True)))]
    keep = frozenset({exercise.function})
    found = [Known(one.student, what) for one in answers
             if (what := recognise(one.code, given, keep))]
    return sorted(found, key=lambda k: (k.what, k.student))


def _components(pairs: Iterable[Pair]) -> list[list[Pair]]:
    """The flagged pairs grouped by connected component (a student is in one group only)."""
    parent: dict[str, str] = {}

    def root(student: str) -> str:
        while parent.setdefault(student, student) != student:
            student = parent[student]
        return student

    pairs = list(pairs)
    for pair in pairs:
        parent[root(pair.a.student)] = root(pair.b.student)
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(root(pair.a.student), []).append(pair)
    return list(groups.values())


def _marked(pairs: list[Pair], release: list[int]) -> list[tuple[Answer, str, np.ndarray]]:
    """Each member's own code, marked with what it shares with its closest classmate here (as
    written, only the release set aside, so what a person reads is what is marked)."""
    from copydetect import compare_files

    closest: dict[str, tuple[Answer, Answer]] = {}
    for pair in pairs:  # most similar first: the first pair naming a student is its closest
        closest.setdefault(pair.a.student, (pair.a, pair.b))
        closest.setdefault(pair.b.student, (pair.b, pair.a))
    shown = []
    for student in sorted(closest):
        mine, theirs = closest[student]
        _, _, (slices, _) = compare_files(_fingerprint(mine.code, release),
                                          _fingerprint(theirs.code, release))
        shown.append((mine, theirs.student, slices))
    return shown


def clusters(pairs: list[Pair], release: list[int]) -> list[Cluster]:
    """The flagged pairs as clusters: most alike first, then the largest, each listed once."""
    groups = sorted(_components(pairs), key=lambda g: (-g[0].similarity, -len(g),
                                                        min(s for p in g for s in p.students)))
    return [Cluster(number, group, _marked(group, release))
            for number, group in enumerate(groups, 1)]


def find(submitted: Path, threshold: float = THRESHOLD, max_pairs: int = MAX_PAIRS
         ) -> list[Assignment]:
    """Every assignment under SUBMITTED, its flagged pairs and what was not compared."""
    from autograder.cohort.classroom import discover
    from autograder.outfolder import NO_SUBMISSION

    exercises = {e.name: e for e in load().exercises}
    found: dict[str, tuple[Assignment, list[Answer]]] = {}
    for task in discover(submitted):
        entry, answers = found.setdefault(task.assignment, (Assignment(task.assignment), []))
        if task.assignment not in exercises:
            entry.problem = "not an assignment of this course: nothing in it was compared"
            continue
        if task.problem == NO_SUBMISSION:  # nothing to compare, nothing wrong: not listed
            continue
        try:
            if task.problem is not None:
                raise NotCompared(task.problem)
            answers.append(answer(task.student, task.notebook, exercises[task.assignment]))
        except NotCompared as exc:
            entry.not_compared.append((task.student, str(exc)))
    for name, (entry, answers) in found.items():
        if entry.problem:
            continue
        exercise = exercises[name]
        entry.runs = runs_built_code(answers)  # before any answer is set aside as the course's
        entry.known = known(answers, exercise)
        recognised = {k.student for k in entry.known}
        answers = [one for one in answers if one.student not in recognised]
        pairs, empty = compare(answers, boilerplate(exercise), threshold)
        entry.clusters = clusters(pairs, boilerplate(exercise, reference=False))
        entry.given = given(answers, exercise)
        entry.compared = len(answers) - len(empty)
        entry.not_compared += empty
        entry.pairs, entry.more = pairs[:max_pairs], max(0, len(pairs) - max_pairs)
    return [entry for entry, _ in found.values()]


# --- what is written and printed ----------------------------------------------------------------

def _percent(share: float) -> str:
    return f"{share:.0%}"


def _cluster_of(entry: Assignment) -> dict[frozenset[str], int]:
    return {frozenset(pair.students): cluster.number
            for cluster in entry.clusters for pair in cluster.pairs}


def write_csv(out: Path, assignments: list[Assignment]) -> Path:
    """OUT/similarity.csv: one row per flagged pair (with its cluster's number), every text cell
    safe for a spreadsheet."""
    from autograder.outfolder import write_atomically

    handle = io.StringIO()
    writer = csv.writer(handle)
    writer.writerow(CSV_FIELDS)
    for entry in assignments:
        number = _cluster_of(entry)
        for pair in entry.pairs:
            writer.writerow([for_csv(entry.name), for_csv(pair.a.student), for_csv(pair.b.student),
                             round(pair.similarity_a, 2), round(pair.similarity_b, 2), pair.shared,
                             number[frozenset(pair.students)]])
    path = out / "similarity.csv"
    write_atomically(path, handle.getvalue())
    return path


def _code(answer: Answer, slices: np.ndarray) -> str:
    """The answer as HTML, the shared code marked (copydetect escapes the code itself)."""
    from copydetect.utils import highlight_overlap

    marked, _ = highlight_overlap(answer.code, slices, "<mark>", "</mark>", escape_html=True)
    cut = (f"\n<span class='cut'>… {answer.cut:,} more characters were cut and not compared."
           "</span>") if answer.cut else ""
    return f"<pre>{marked}{cut}</pre>"


def _cluster_html(cluster: Cluster) -> str:
    names = ", ".join(for_html(s) for s in cluster.students)
    rows = "".join(f"<li>{for_html(p.a.student)} and {for_html(p.b.student)}: "
                   f"{_percent(p.similarity_a)} of {for_html(p.a.student)}'s answer and "
                   f"{_percent(p.similarity_b)} of {for_html(p.b.student)}'s, {p.shared:,} "
                   "tokens shared</li>" for p in cluster.pairs)
    sides = "".join(f"<div><h4>{for_html(answer.student)}</h4><p class='note'>marked: what it "
                    f"shares with {for_html(partner)}'s</p>{_code(answer, slices)}</div>"
                    for answer, partner, slices in cluster.shown)
    return (f"<section class='cluster'><h3>Cluster {cluster.number}: {names}</h3>"
            f"<p>{len(cluster.students)} students share an answer, names, comments and layout "
            f"set aside (up to {_percent(cluster.similarity)} of one answer):</p><ul>{rows}</ul>"
            f"<p>Their code side by side, as handed in:</p><div class='sides'>{sides}</div>"
            "</section>")


def _assignment_html(entry: Assignment, threshold: float) -> str:
    if entry.problem:
        return (f"<section class='assignment'><h2>{for_html(entry.name)}</h2>"
                f"<p>{entry.problem}</p></section>")
    students = sum(len(c.students) for c in entry.clusters)
    parts = [f"<h2>{for_html(entry.name)}</h2>",
             f"<p>{entry.compared} answers compared; {len(entry.clusters)} "
             f"cluster{'s' * (len(entry.clusters) != 1)} of classmates sharing at least "
             f"{_percent(threshold)} of one answer's code ({students} students), the most "
             "alike first.</p>"]
    parts += [_cluster_html(cluster) for cluster in entry.clusters]
    if entry.more:
        parts.append(f"<p class='cut'>similarity.csv lists the {len(entry.pairs):,} most alike "
                     f"pairs; {entry.more:,} more were found (packlab similarity --max-pairs "
                     "lists more).</p>")
    if entry.known:
        items = "".join(f"<li>{for_html(k.student)}: {for_html(k.what)}</li>"
                        for k in entry.known)
        parts.append("<h3>Answers that are code the course gave out</h3><p>Names, comments, "
                     "docstrings, type hints and layout set aside, these answers are the course's "
                     "reference answer or the released starter, or one of them with one word "
                     "changed (a lesson's one-word fix, or one classic mistake). They are what "
                     "the course teaches, not copies, and were not compared.</p>"
                     f"<ul>{items}</ul>")
    if entry.given:
        items = "".join(f"<li>{for_html(m.student)}: {_percent(m.share)} of the answer is "
                        f"{for_html(m.source)}</li>" for m in entry.given)
        parts.append(f"<h3>Answers that are mostly code the course gave out</h3><ul>{items}</ul>")
    if entry.runs:
        items = "".join(f"<li>{for_html(r.student)}: calls {for_html(', '.join(r.names))}</li>"
                        for r in entry.runs)
        parts.append("<h3>Answers that run code they build while they run</h3><p>Code packed "
                     "into a string (compressed, encoded) shares nothing with the code it came "
                     "from, so no pair above can show it: read these answers.</p>"
                     f"<ul>{items}</ul>")
    if entry.not_compared:
        items = "".join(f"<li>{for_html(student)}: {for_html(why)}</li>"
                        for student, why in entry.not_compared)
        parts.append(f"<h3>Not compared</h3><ul>{items}</ul>")
    return "<section class='assignment'>" + "".join(parts) + "</section>"


STYLE = """body{font-family:sans-serif;margin:2em;max-width:110em}
.sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(28em,1fr));gap:1em}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto;white-space:pre-wrap}
mark{background:#ffd54f}.cut{color:#a33}.note{color:#555;font-size:90%}
.cluster{border-top:1px solid #ccc;margin-top:1em}"""


def write_html(out: Path, assignments: list[Assignment], threshold: float) -> Path:
    """OUT/similarity.html: per assignment the clusters of alike answers, the most alike first,
    each with its members' code side by side; then the answers that are given code."""
    from autograder.outfolder import write_atomically

    body = "".join(_assignment_html(entry, threshold) for entry in assignments)
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Similar answers</title>"
            f"<style>{STYLE}</style></head><body><h1>Answers that are alike</h1>"
            "<p>For a person to judge; no score depends on it. Classmates are put in one cluster "
            f"when at least {_percent(threshold)} of one answer's code (names, comments, "
            "docstrings, type hints and layout set aside) is also in another's. The released "
            "starter and the course's reference answer never count between classmates, and an "
            "answer that is one of them (perhaps with one word changed) is listed apart as what "
            "it is. Alike is not proof of copying: short answers, a common mistake or working "
            "together as allowed can all look alike.</p>"
            f"{body}</body></html>")
    path = out / "similarity.html"
    write_atomically(path, page)
    return path


def _shown(text: str) -> str:
    """A name for the terminal: on one line, never markup or terminal control."""
    return for_terminal(visible(text, keep_lines=False))


def _are(listed: list) -> str:
    return "is" if len(listed) == 1 else "are"


def summary(assignments: list[Assignment], threshold: float) -> list[str]:
    """Lines for the terminal (rich markup; every student-controlled name escaped)."""
    lines = [f"Clusters of classmates sharing at least {_percent(threshold)} of one answer's "
             "code:"]
    for entry in assignments:
        if entry.problem:
            lines.append(f"  {_shown(entry.name)}: {entry.problem}")
            continue
        found = len(entry.clusters)
        lines.append(f"  {_shown(entry.name)}: {entry.compared} compared, {found} "
                     f"cluster{'s' if found != 1 else ''} to look at"
                     + (f", {len(entry.known)} that {_are(entry.known)} code the course gave "
                        "out" if entry.known else "")
                     + (f", {len(entry.given)} that {_are(entry.given)} mostly code the course "
                        "gave out" if entry.given else "")
                     + (f", {len(entry.not_compared)} not compared" if entry.not_compared else "")
                     + (f", {len(entry.runs)} that run code built while they run (read them)"
                        if entry.runs else ""))
        for cluster in entry.clusters[:3]:
            lines.append(f"    cluster {cluster.number}: "
                         + ", ".join(_shown(s) for s in cluster.students)
                         + f" (up to {_percent(cluster.similarity)})")
        for one in entry.known[:3]:
            lines.append(f"    {_shown(one.student)}: {_shown(one.what)}")
        for match in entry.given[:3]:
            lines.append(f"    {_shown(match.student)}: {_percent(match.share)} is "
                         f"{_shown(match.source)}")
        for runs in entry.runs[:3]:
            lines.append(f"    {_shown(runs.student)}: calls {_shown(', '.join(runs.names))}")
    return lines
