"""The instructor's commands: grade, roster, extend, release, gradescope, export, bundle,
similarity, student-build; and the exercise author's (`packlab.course.cli.author`). The student
install leaves this module out.
"""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import fields
from pathlib import Path

from packlab.course.cli import author, hub, submissions
from packlab.course.cli.terminal import console, shown
from packlab.manifest import ROOT, load, plain_assignments


def _is_submitted_folder(submitted: Path) -> bool:
    """Is SUBMITTED a folder? If not, say what was expected."""
    if not submitted.is_dir():
        console.print(f"There is no folder {shown(submitted)} "
                      "(expected SUBMITTED/<student>/<assignment>/).")
    return submitted.is_dir()


def _set_aside(submitted: Path, out: Path) -> bool:
    """Take out of SUBMITTED every submission that came from a hand-in another account wrote
    (`autograder.glue.forgeries`), the learner's own collected in its place; say which, loudly.
    False (having said why) when that could not be done."""
    from autograder import outfolder
    from autograder.glue.forgeries import set_aside, uncollected

    try:
        done = set_aside(submitted, out, Path.cwd())
    except OSError as exc:
        console.print(f"[bold red]Not grading.[/] A submission that came from a forged hand-in "
                      f"could not be set aside ({shown(exc)}); nothing was graded.")
        return False
    if done:
        console.print(f"[bold red]Set aside:[/] {len(done)} submission(s) came from a hand-in "
                      "that another account wrote than the learner it names (a forgery). "
                      "Nothing of it is graded or written to the gradebook; the rest of the "
                      "class is graded.")
    for entry in done:
        instead = f"graded instead: their own hand-in {entry.own!r}" if entry.own else \
            "nothing of their own was collected in its place (collect again in formgrader to " \
            "take their own, if they handed one in): their row says set aside"
        console.print(f"  {shown(entry.student)} / {shown(entry.assignment)}: "
                      f"{shown(entry.said())}; {shown(instead)}.")
    if done:
        console.print(f"Kept in {shown(out / outfolder.ASIDE)}; each forgery stays in the "
                      "exchange's inbound folder (it is the forger's) until root removes it.")
    _said_uncollected(uncollected(Path.cwd()))
    return True


def _said_uncollected(found: list[tuple[str, str]]) -> None:
    """Name the exchange's hand-ins that no collect takes (a learner may write one)."""
    if found:
        console.print(f"[bold red]Not collected:[/] {len(found)} hand-in(s) in the exchange's "
                      "inbound folder cannot be collected (the hub's collect sets them aside; "
                      "nbgrader's own would stop at the first). Ask their learner to submit "
                      "again; root may delete them.")
    for name, why in found:
        console.print(f"  {shown(repr(name))}: {shown(why)}.")


def cmd_grade(args: argparse.Namespace) -> int:
    """Grade a class of nbgrader submissions."""
    from rich.progress import track

    from autograder import outfolder
    from autograder.cohort import summary
    from autograder.cohort.classroom import grade_class
    from autograder.cohort.cluster import ClusterUnavailable
    from autograder.run import footprint
    from autograder.run.isolation import Limits, SandboxUnavailable
    from autograder.term.late import GradebookUnreadable

    submitted, out = Path(args.submitted), Path(args.out)
    if not _is_submitted_folder(submitted) or not _set_aside(submitted, out):
        return 2
    limits = Limits(**{f.name: getattr(args, f.name) for f in fields(Limits)})
    corrections = _corrections(args, submitted)
    if corrections is None:
        return 2
    if args.no_sandbox:
        console.print(NO_SANDBOX_WARNING)
    else:
        console.print(f"Memory: {shown(footprint.describe(limits.footprint_bytes))}")
    jobs = getattr(args, "jobs", None)
    if args.scheduler and jobs is not None:
        console.print("Note: --jobs is ignored with --scheduler (each Dask worker grades as many "
                      "submissions at once as it has threads).")
    book = _Book(args.gradebook, submitted, out)
    try:
        rows = grade_class(submitted, out, jobs=jobs, force=args.force, limits=limits,
                           progress=lambda it, n: track(it, total=n, description="Grading",
                                                        console=console),
                           sandboxed=not args.no_sandbox, scheduler=args.scheduler,
                           book=book, said=lambda line: console.print(shown(line)),
                           **corrections)
    except ClusterUnavailable as exc:
        console.print(f"[bold red]Not grading.[/] {shown(exc)}")
        return 2
    except SandboxUnavailable as exc:
        console.print(f"[bold red]Not grading.[/] {shown(exc)}")
        return 2
    except GradebookUnreadable as exc:
        console.print(f"[bold red]Not grading.[/] {shown(exc)}")
        return 2
    _said_overrides(corrections["overrides"], rows)
    console.print(shown(summary.summary(rows)))
    if args.no_sandbox:
        console.print(NO_SANDBOX_WARNING)
    console.print(f"Results: {shown(out / 'grades.csv')}, feedback per student in "
                  f"{shown(out / outfolder.STUDENTS)}, and the class picture "
                  f"{shown(out / 'class.png')}.")
    if not book.said():
        return 1
    ungraded = [r for r in rows if r.get("set_aside")
                or r["status"] != "graded" and r["reason"] != outfolder.NO_SUBMISSION]
    return 1 if ungraded else 0


def _corrections(args: argparse.Namespace, submitted: Path) -> dict | None:
    """grade_class's ``regrade``, ``overrides`` and ``gradebook`` from the options; None
    (having said why) when they cannot be used."""
    from autograder.cohort.classroom import Regrade
    from autograder.term import gradebook, overrides

    known = sorted({group for e in load().exercises for group in e.points})
    groups = [g for g in args.group if g not in known]
    if groups:
        console.print(f"There is no test group {shown(groups[0])}: --group takes one of "
                      f"{', '.join(known)}.")
        return None
    students = [s for s in args.student if not (submitted / s).is_dir()]
    if students:
        console.print(f"No folder {shown(submitted / students[0])}: --student takes a folder "
                      "name from SUBMITTED.")
        return None
    try:
        assignments = frozenset(_assignment(name, submitted) for name in args.assignment)
    except KeyError as exc:
        console.print(shown(exc.args[0]))
        return None
    found: dict | None = None
    if args.overrides:
        try:
            found, problems = overrides.read(Path(args.overrides))
        except overrides.OverridesUnreadable as exc:
            console.print(f"[bold]Not grading:[/] {shown(exc)}")
            return None
        for line in problems:
            console.print(f"[bold red]Override not applied:[/] {shown(line)}")
    try:
        target = gradebook.find(submitted, args.gradebook)
    except Exception:  # noqa: BLE001 - said after grading, when the scores are written there
        target = None
    return {"regrade": Regrade(frozenset(args.student), assignments, tuple(args.group)),
            "overrides": found, "gradebook": target.url if target else None,
            "course_id": target.course_id if target else ""}


def _assignment(name: str, submitted: Path) -> str:
    """An assignment folder's name as given, else the course's exercise it names ("02")."""
    for folder in submitted.iterdir():
        with contextlib.suppress(OSError):
            if (folder / name).is_dir():
                return name
    return load().exercise(name).name


def _said_overrides(found: dict | None, rows: list[dict]) -> None:
    """Name each override that matched no submission."""
    from autograder.term.overrides import unmatched

    for line in unmatched(found or {}, rows):
        console.print(f"[bold red]Override not applied:[/] {shown(line)}")


def _regrade_options(grade: argparse.ArgumentParser) -> None:
    """`packlab grade --student/--assignment/--group` and `--overrides`."""
    group = grade.add_argument_group(
        "regrading and corrections",
        "--student, --assignment and --group (each repeatable) grade again just those "
        "submissions or test groups; every other result is kept, and grades.csv and the "
        "summary are written again from all of them.")
    group.add_argument("--student", action="append", default=[], metavar="STUDENT",
                       help="regrade this student's submissions")
    group.add_argument("--assignment", action="append", default=[], metavar="ASSIGNMENT",
                       help="regrade this assignment (name or number, e.g. 02)")
    group.add_argument("--group", action="append", default=[],
                       help="regrade only this test group: visible, edge-cases or properties")
    group.add_argument("--overrides", metavar="FILE.csv",
                       help="CSV of corrections (student, assignment, points or score, reason), "
                       "applied after grading and any late penalty, shown to the student; it "
                       "replaces the overrides of earlier runs (without it they are kept)")


class _Book:
    """Writes the scores into nbgrader's gradebook (``url``, or the course's) while grading,
    and gives back what graders gave there; then says what it did."""

    def __init__(self, url: str | None, submitted: Path, out: Path) -> None:
        self.url, self.submitted, self.out = url, submitted, out
        self.target = self.written = None
        self.problem: str | None = None
        self.failed = False

    def __call__(self, rows: list[dict]) -> dict | None:
        from autograder.term import gradebook

        try:
            self.target = gradebook.find(self.submitted, self.url)
            if self.target is None:
                return None  # not an nbgrader course: grades.csv is the gradebook
            console.print(f"Writing {len(rows):,} rows into nbgrader's gradebook "
                          f"{shown(self.target.describe())}…")
            self.written = gradebook.record(self.target, self.submitted, self.out, rows)
        except gradebook.NoGradebook as exc:  # fails only when asked for by --gradebook
            self.problem, self.failed = f"Not written to nbgrader's gradebook: {exc}", bool(
                self.url)
            return None
        except Exception as exc:  # noqa: BLE001 - a config, database or file error: say which
            self.problem, self.failed = f"Not written to nbgrader's gradebook: {exc}", True
            return None
        return self.written.marks

    def said(self) -> bool:
        """Print what was written (or why not); False when writing failed."""
        from autograder.term import gradebook

        if self.problem:
            console.print(shown(self.problem), style="bold red" if self.failed else None)
        elif self.written is not None:
            for line in gradebook.summary(self.target, self.written):
                console.print(shown(line))
        return not self.failed


def cmd_roster(args: argparse.Namespace) -> int:
    """Put a class list's names and emails into nbgrader's gradebook."""
    from autograder.term import gradebook, lms

    try:
        entries = lms.read_roster(Path(args.roster))
        target = gradebook.in_course(Path(args.course).resolve(), args.gradebook)
    except (lms.InputError, gradebook.NoGradebook) as exc:
        console.print(f"[bold red]Roster not written:[/] {shown(exc)}")
        return 2
    if target is None:
        console.print(f"[bold red]Roster not written:[/] {shown(args.course)} is not an nbgrader "
                      "course folder (it has no nbgrader_config.py): give --course or --gradebook.")
        return 2
    done = gradebook.roster(target, entries)
    console.print(f"Gradebook {shown(target.describe())}: added {len(done.added)} and updated "
                  f"{len(done.updated)} students' names and emails.")
    for problem in done.problems:
        console.print(f"[bold red]Not written:[/] {shown(problem)}")
    return 1 if done.problems else 0


def _roster_parser(sub) -> None:
    roster = sub.add_parser(
        "roster", help="put a roster's names and emails into nbgrader's gradebook",
        description="Put each student of a roster CSV (columns id, name, email; or first_name "
        "and last_name for name) into nbgrader's gradebook: formgrader and `nbgrader export` "
        "then show their names. The same roster maps students for `packlab export`.")
    roster.add_argument("roster", help="CSV with the columns id, name, email")
    roster.add_argument("--course", default=".",
                        help="the nbgrader course folder (holding nbgrader_config.py)")
    roster.add_argument("--gradebook", metavar="URL",
                        help="nbgrader gradebook URL, e.g. sqlite:///course/gradebook.db "
                        "(default: the course's)")
    roster.set_defaults(run=cmd_roster)


def _when(text: str):
    """A date on the command line: ISO 8601 ("2026-11-05", "2026-11-05T17:00+01:00"); UTC when
    it names no zone."""
    from datetime import UTC, datetime

    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date: {text!r} (e.g. "
                                         "2026-11-05T17:00Z)") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def cmd_extend(args: argparse.Namespace) -> int:
    """Give one student a later due date for one assignment, in nbgrader's gradebook."""
    from autograder.term import gradebook

    try:
        exercise = plain_assignments().get(args.assignment) or load().exercise(args.assignment)
        target = gradebook.in_course(Path(args.course).resolve(), args.gradebook)
        if target is None:
            raise gradebook.NoGradebook(f"{args.course} is not an nbgrader course folder (it "
                                        "has no nbgrader_config.py): give --course or "
                                        "--gradebook")
        extension = gradebook.extend(target, exercise, args.student, args.until, args.new)
    except (KeyError, gradebook.NoGradebook, gradebook.CannotExtend) as exc:
        console.print(f"[bold red]No extension given:[/] {shown(str(exc).strip(chr(39)))}")
        return 2
    console.print(f"Gradebook {shown(target.describe())}: {shown(args.student)} has until "
                  f"{args.until.isoformat()} for {exercise.name} (an extension of "
                  f"{shown(str(extension))}); `packlab grade` counts it, and the student's "
                  "feedback names the due date it gives.")
    return 0


def _extend_parser(sub) -> None:
    extend = sub.add_parser(
        "extend", help="give one student a later due date for an assignment",
        description="Give STUDENT until DATE for ASSIGNMENT: nbgrader's extension in the "
        "gradebook (the time added to the assignment's due date, the gradebook's or else "
        "course.toml's). `packlab grade` counts lateness from it; the student's feedback page, "
        "results.json and grades.csv's due column show the extended date (formgrader has no "
        "page that shows extensions). A student the gradebook and submitted/ do not know is "
        "refused, with the close ids named, unless --new is given.")
    extend.add_argument("assignment", help="the assignment (its name, number or function)")
    extend.add_argument("student", help="the student's id (their folder in submitted/)")
    extend.add_argument("--until", required=True, type=_when, metavar="DATE",
                        help="the student's own due date, ISO 8601 (UTC when no zone is given)")
    extend.add_argument("--new", action="store_true",
                        help="add STUDENT to the gradebook if it does not know them yet")
    extend.add_argument("--course", default=".",
                        help="the nbgrader course folder (holding nbgrader_config.py)")
    extend.add_argument("--gradebook", metavar="URL",
                        help="nbgrader gradebook URL (default: the course's)")
    extend.set_defaults(run=cmd_extend)


def _gradebook_option(grade: argparse.ArgumentParser) -> None:
    """`packlab grade --gradebook URL`: nbgrader's gradebook to write the scores into."""
    grade.add_argument("--gradebook", metavar="URL",
                       help="nbgrader gradebook to write the scores into, e.g. "
                       "sqlite:///course/gradebook.db (default: that of the nbgrader course "
                       "SUBMITTED is in, when its folder holds nbgrader_config.py)")


NO_SANDBOX_WARNING = ("[bold red]WARNING: grading WITHOUT a sandbox (--no-sandbox).[/] Every "
                      "student's code runs with your rights: it can read and change your files, "
                      "the class's work and these results. grades.csv, summary.md and every "
                      "feedback page say so.")


def cmd_release(args: argparse.Namespace) -> int:
    """Regenerate exercises/ from solutions/ with nbgrader: every assignment, or those named."""
    from packlab.course.release import release

    try:
        chosen = [load().exercise(name) for name in args.exercise] or list(load().exercises)
    except KeyError as exc:
        console.print(shown(exc.args[0]))
        return 2
    release([exercise.name for exercise in chosen], ROOT)
    for exercise in chosen:
        console.print(f"released {exercise.release.relative_to(ROOT)}")
    _store_examples(list(dict.fromkeys(exercise.suite for exercise in chosen)))
    return 0


def _store_examples(suites: list[str]) -> None:
    """Draw the property checks' examples of the released exercises' suites once for this
    version of the grader, for grading (another exercise's are drawn when it is first graded:
    a new exercise, released alone, does not wait for every other exercise's)."""
    from autograder.checks import example_cache

    drawn = example_cache.prepare(suites)
    where = example_cache.path().relative_to(ROOT) if example_cache.path().is_relative_to(
        ROOT) else example_cache.path()
    console.print(f"property examples: {drawn} checks drawn and stored in {where}" if drawn
                  else f"property examples: already stored in {where}")


def cmd_gradescope(args: argparse.Namespace) -> int:
    """Build a Gradescope autograder zip that runs packlab's own grader on one assignment."""
    from autograder.glue.gradescope import build

    try:
        exercise = load().exercise(args.assignment)
    except KeyError as exc:
        console.print(shown(exc.args[0]))
        return 2
    out = Path(args.out or f"{exercise.name}-gradescope.zip")
    try:
        names = build(exercise.name, out)
    except FileNotFoundError as exc:
        console.print(f"Could not build the zip: {shown(exc)}")
        return 1
    console.print(f"Wrote {shown(out)} ({len(names)} files). On Gradescope: a programming "
                  "assignment, autograder \"Zip file upload\", Ubuntu 24.04 base image; learners "
                  f"submit {exercise.name}.ipynb.")
    return 0


LIMIT_HELP = {
    "call_seconds": "seconds one call of the student's function may take (wall clock: code "
                    "that sleeps or blocks)",
    "call_cpu_seconds": "CPU seconds one call of the student's function may use (the "
                        "references need at most a few milliseconds)",
    "setup_seconds": "seconds the notebook's own cells may take to run",
    "submission_seconds": "seconds for everything one submission does",
    "cpu_seconds": "CPU seconds for one sandbox process",
    "memory_bytes": "address space of one sandbox process, in bytes",
    "processes": "processes the sandbox may run at once",
    "file_bytes": "largest file (or printed output) the sandbox may write, in bytes",
    "open_files": "files the sandbox may hold open",
    "scratch_bytes": "size of each of the sandbox's private folders (/tmp, /dev/shm, its "
                     "working folder), in bytes",
    "footprint_bytes": "memory all of one submission's processes may hold together (and its "
                       "private folders' files), in bytes: the sandbox ends there",
    "restarts": "fresh sandboxes after a timeout or crash before giving up",
}


def _limit_options(command: argparse.ArgumentParser) -> None:
    """One option per sandbox limit, defaults from `Limits`."""
    from autograder.run.isolation import Limits

    group = command.add_argument_group("limits for each submission's sandbox")
    for field in fields(Limits):
        group.add_argument(f"--{field.name.replace('_', '-')}", dest=field.name,
                           type=type(field.default), default=field.default,
                           help=LIMIT_HELP[field.name])


LMS_NEXT = {
    "canvas": "In Canvas: Grades, Import, choose this file, and check the preview (Canvas "
              "matches students by SIS Login ID, then name; columns by assignment title).",
    "moodle": "In Moodle: Grades, Import, CSV file; on the preview map from \"Email address\" "
              "to \"Email address\" and each column to its grade item.",
}


def cmd_export(args: argparse.Namespace) -> int:
    """Write the gradebook CSV that Canvas or Moodle imports, students mapped by a roster."""
    from autograder.outfolder import write_atomically
    from autograder.term import lms

    pairs = [item.rpartition("=") for item in args.canvas_id]
    if not all(name and sep for name, sep, _ in pairs):
        console.print("--canvas-id takes ASSIGNMENT=ID, e.g. --canvas-id 02-greedy-pack=1234.")
        return 2
    try:
        result = lms.export(Path(args.out), Path(args.roster), args.lms,
                            {name: number for name, _, number in pairs})
        write_atomically(Path(args.to), result.text)
    except (lms.InputError, OSError) as exc:
        console.print(f"[bold]Not exported:[/] {shown(exc)}")
        return 2
    for line in result.notes:
        console.print(f"Note: {shown(line)}")
    for line in result.lost:
        console.print(f"[bold red]Left out:[/] {shown(line)}")
    console.print(f"Wrote {shown(args.to)}: {result.grades} grade(s) for {args.lms}. "
                  + LMS_NEXT[args.lms])
    return 1 if result.lost else 0


def cmd_bundle(args: argparse.Namespace) -> int:
    """Gather each student's feedback pages into a folder (or zip) of their own."""
    from autograder.term.bundle import bundle
    from autograder.term.lms import InputError

    try:
        result = bundle(Path(args.out), Path(args.to), zipped=args.zip)
    except (InputError, OSError) as exc:
        console.print(f"[bold]No bundles written:[/] {shown(exc)}")
        return 2
    for line in result.problems:
        console.print(f"Left out: {shown(line)}")
    console.print(f"Wrote {len(result.written)} bundle(s) in {shown(args.to)}, one per "
                  "student, each with index.html listing the scores.")
    return 1 if result.problems else 0


def cmd_similarity(args: argparse.Namespace) -> int:
    """Report clusters of answers that are alike, for the instructor to look at (never a grade)."""
    from autograder.cohort import similarity

    submitted, out = Path(args.submitted), Path(args.out)
    if not _is_submitted_folder(submitted) or not _set_aside(submitted, out):
        return 2
    if not 0 < args.threshold <= 1:
        console.print("--threshold is a share of an answer, more than 0 and at most 1 (e.g. 0.7).")
        return 2
    if args.max_pairs < 1:
        console.print("--max-pairs is how many pairs similarity.csv lists per assignment: 1 or "
                      "more.")
        return 2
    found = similarity.find(submitted, args.threshold, args.max_pairs)
    out.mkdir(parents=True, exist_ok=True)
    paths = [similarity.write_csv(out, found), similarity.write_html(out, found, args.threshold)]
    for line in similarity.summary(found, args.threshold):
        console.print(line)
    console.print(f"Wrote {shown(paths[1])} (side by side) and {shown(paths[0])}. Alike is not "
                  "proof of copying: look at each cluster before you decide anything.")
    return 0


def _similarity_parser(sub: argparse._SubParsersAction) -> None:
    from autograder.cohort.similarity import MAX_PAIRS, THRESHOLD

    similar = sub.add_parser(
        "similarity", help="clusters of answers that are alike, for you to look at",
        description="Compare the students' answer code per assignment with copydetect (renamed "
        "variables and new comments do not hide a copy; the released starter and the reference "
        "answer never count; an answer that is one of them, names set aside, is listed apart) "
        "and write OUT/similarity.html and OUT/similarity.csv. No score changes; nothing is "
        "run.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    similar.add_argument("submitted", metavar="SUBMITTED")
    similar.add_argument("--out", required=True, help="folder for similarity.html and .csv")
    similar.add_argument("--threshold", type=float, default=THRESHOLD,
                         help="list a pair when at least this share of one answer is in the other")
    similar.add_argument("--max-pairs", type=int, default=MAX_PAIRS,
                         help="pairs similarity.csv lists per assignment, most similar first (the "
                         "report's clusters are made of every pair)")
    similar.set_defaults(run=cmd_similarity)


def _handing_back(sub: argparse._SubParsersAction) -> None:
    """`packlab export` (grades for Canvas or Moodle) and `packlab bundle` (feedback)."""
    export = sub.add_parser(
        "export", help="write OUT/grades.csv as a Canvas or Moodle gradebook CSV",
        description="Write the gradebook CSV that Canvas or Moodle imports. Students are "
        "mapped through a roster CSV with the columns id (the nbgrader student id), name and "
        "email; for Canvas it may add canvas_id, sis_user_id, sis_login_id and section. Grades "
        "of students missing from the roster, and roster entries without grades, are listed.")
    export.add_argument("out", metavar="OUT", help="the folder `packlab grade --out` wrote")
    export.add_argument("--roster", required=True, help="CSV with the columns id, name, email")
    export.add_argument("--lms", required=True, choices=["canvas", "moodle"],
                        help="the learning platform that imports the file")
    export.add_argument("--to", required=True, metavar="FILE.csv", help="the CSV file to write")
    export.add_argument("--canvas-id", action="append", default=[], metavar="ASSIGNMENT=ID",
                        help="the Canvas assignment id of an assignment (its column is then "
                        "titled 'ASSIGNMENT (ID)'; without it Canvas matches the title)")
    export.set_defaults(run=cmd_export)
    bundles = sub.add_parser(
        "bundle", help="one folder (or zip) of feedback per student",
        description="Gather OUT/students/<student>/<assignment>/ feedback.html and "
        "results.json into FOLDER/<student>/ with an index.html of the scores.")
    bundles.add_argument("out", metavar="OUT", help="the folder `packlab grade --out` wrote")
    bundles.add_argument("--to", required=True, metavar="FOLDER",
                         help="the folder to write the bundles in")
    bundles.add_argument("--zip", action="store_true", help="write FOLDER/<student>.zip instead")
    bundles.set_defaults(run=cmd_bundle)


def cmd_student_build(args: argparse.Namespace) -> int:
    """Write the student install: lessons, released exercises, visible checks, nothing hidden."""
    from packlab.course.student import BuildRefused, build

    folder = Path(args.folder)
    try:
        written = build(folder)
    except BuildRefused as exc:
        console.print(f"[bold]No student install written:[/] {shown(exc)}")
        return 2
    console.print(f"Wrote the student install to {shown(folder)}: {len(written.paths)} files, "
                  f"{len(written.modules)} Python modules, no solutions and no hidden tests. "
                  f"Install it with `pip install -e {shown(folder)}`.")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Every instructor's command."""
    grade = sub.add_parser(
        "grade", help="grade SUBMITTED/<student>/<assignment>/*.ipynb",
        description="Grade a class. Each submission's code runs in a bubblewrap sandbox of its "
        "own, whoever runs this: new user, PID, mount, network and IPC namespaces, an "
        "unprivileged uid, nothing of this machine but the interpreter, private size-limited "
        "/tmp and /dev/shm, resource and time limits. Without bubblewrap it refuses to grade. "
        "Only regular files and folders are read: a link (to a classmate's work, say), FIFO, "
        "device or socket in SUBMITTED is never opened, and a notebook larger than 16 MB is "
        "refused unread; each such row says why.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    grade.add_argument("submitted")
    grade.add_argument("--out", required=True, help="folder for grades.csv and feedback")
    grade.add_argument("--jobs", type=int, default=argparse.SUPPRESS,
                       help="submissions graded at once on this machine (default: one per core)")
    grade.add_argument("--scheduler", metavar="ADDRESS",
                       help="grade on the Dask cluster whose scheduler is at ADDRESS (e.g. "
                       "tcp://10.0.0.5:8786) instead of this machine; each worker must have "
                       "packlab installed from the same checkout, and bubblewrap")
    grade.add_argument("--force", action="store_true", help="regrade what is already graded")
    grade.add_argument("--no-sandbox", action="store_true",
                       help="grade even where bubblewrap cannot build a sandbox: the students' "
                       "code then runs with your rights (every output says so)")
    _gradebook_option(grade)
    _regrade_options(grade)
    _limit_options(grade)
    grade.set_defaults(run=cmd_grade)
    release = sub.add_parser(
        "release", help="regenerate exercises/ with nbgrader (and store the property checks' "
        "examples for grading)",
        description="Run nbgrader generate_assignment for each exercise named (every exercise "
        "when none is), then store the property checks' examples for grading.")
    release.add_argument("exercise", nargs="*", help="name or number, e.g. 11-trim-history or 11 "
                         "(default: every exercise)")
    release.set_defaults(run=cmd_release)
    author.add_commands(sub)
    hub.add_commands(sub)
    gradescope = sub.add_parser(
        "gradescope", help="build a Gradescope autograder zip for one assignment",
        description="Build a Gradescope autograder zip (setup.sh, run_autograder and the course) "
        "that grades each submission with packlab's sandboxed grader.")
    gradescope.add_argument("assignment", help="name or number, e.g. 02-greedy-pack or 02")
    gradescope.add_argument("--out", help="the zip to write (default: ASSIGNMENT-gradescope.zip)")
    gradescope.set_defaults(run=cmd_gradescope)
    _handing_back(sub)
    _roster_parser(sub)
    _extend_parser(sub)
    submissions.add_commands(sub)
    _similarity_parser(sub)
    build = sub.add_parser(
        "student-build", help="write the student install (no solutions, no hidden tests)",
        description="Write the learners' install of the course into FOLDER: the lessons, the "
        "released exercises, their visible checks and hints, and the code the learner commands "
        "need; not solutions/, the hidden tests, the mutant gallery or the speaker notes. "
        "Install it with `pip install -e FOLDER`.")
    build.add_argument("folder", metavar="FOLDER",
                       help="a new or empty folder, or a previous student install to replace")
    build.set_defaults(run=cmd_student_build)
