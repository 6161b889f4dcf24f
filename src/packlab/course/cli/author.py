"""The exercise author's commands: new-exercise, author check, course-map (the instructor's
install only)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from packlab.course.cli.terminal import console, shown
from packlab.manifest import MANIFEST, ROOT, load

ASKED = (("name", "The exercise's name, its number first (e.g. 11-trim-history)"),
         ("function", "The function learners write (e.g. trim_history)"),
         ("signature", "Its signature (e.g. trim_history(turns: list[dict], budget: int) -> "
          "list[dict])"),
         ("lesson", "The lesson it goes with (a slug; leave empty for none)"),
         ("points", "Points for the visible tests, edge cases and properties (e.g. 1,2,2)"))


def _elsewhere() -> bool:
    """Is the command run outside the course it would write to? (It would write there anyway.)"""
    if Path.cwd().resolve() == ROOT.resolve():
        return False
    console.print(f"This packlab writes into the course at {shown(ROOT)}, not into the folder you "
                  f"are in ({shown(Path.cwd())}): run it from {shown(ROOT)}, or use the packlab "
                  "of the course you mean (its own .venv, or PYTHONPATH=src:. from its folder).")
    return True


def _asked(args: argparse.Namespace) -> dict[str, str] | None:
    """The answers from the flags, asking for the missing ones when someone is at a terminal."""
    from rich.prompt import Prompt

    given = {key: getattr(args, key) for key, _ in ASKED}
    missing = [key for key, value in given.items() if value is None and key != "lesson"]
    if missing and not sys.stdin.isatty():
        console.print("Not written: give " + ", ".join(f"--{key}" for key in missing) +
                      " (or run the command at a terminal to be asked).")
        return None
    if missing:
        for key, question in ASKED:
            if given[key] is None:
                given[key] = Prompt.ask(question, default="" if key == "lesson" else None,
                                        console=console)
    return given


def _points(text: str) -> dict[str, int] | str:
    from packlab.course.authoring.scaffold import GROUPS

    try:
        values = [int(part) for part in text.replace(" ", "").split(",")]
    except ValueError:
        values = []
    if len(values) != len(GROUPS):
        return f"--points takes three whole numbers such as 1,2,2, not {text!r}"
    return dict(zip(GROUPS, values, strict=True))


def cmd_new_exercise(args: argparse.Namespace) -> int:
    """Write every file of a new exercise from a few answers."""
    from packlab.course.authoring import scaffold

    if _elsewhere():
        return 2
    given = _asked(args)
    if given is None:
        return 2
    points = _points(given["points"])
    if isinstance(points, str):
        console.print(f"Not written: {shown(points)}.")
        return 2
    extra = {key: value for key, value in (("title", args.title), ("teaches", args.teaches),
                                           ("leaves_out", args.leaves_out)) if value}
    if args.hint:
        extra["hints"] = tuple(args.hint)
    if args.raises:
        extra["raises"] = True
    answers = scaffold.Answers(name=given["name"], function=given["function"],
                               signature=given["signature"], points=points,
                               lesson=given["lesson"] or None, **extra)
    course = load()
    problems = scaffold.problems(answers, course, ROOT)
    if problems:
        for problem in problems:
            console.print(f"[bold red]Not written:[/] {shown(problem)}.")
        return 2
    for path in scaffold.create(answers, course, ROOT, MANIFEST):
        console.print(f"wrote {shown(path.relative_to(ROOT))}")
    console.print(f"Next: fill in what each file's top says, add wrong answers to "
                  f"autograder/checks/mutants/{shown(answers.suite)}/, then run "
                  f"`packlab author check {shown(answers.name)}`: it says what is still missing.")
    return 0


def cmd_author_check(args: argparse.Namespace) -> int:
    """Say in words what an exercise lacks or gets wrong."""
    from packlab.course.authoring.author_check import Check

    try:
        exercise = load().exercise(args.exercise)
    except KeyError as exc:
        console.print(shown(exc.args[0]))
        return 2
    problems = Check(exercise).problems()
    for problem in problems:
        console.print(f"✗ {shown(problem)}")
    if problems:
        console.print(f"{shown(exercise.name)}: {len(problems)} thing"
                      f"{'s' if len(problems) > 1 else ''} to fix.")
        return 1
    starter = "fails" if exercise.starter else "is \"not started\""
    console.print(f"{shown(exercise.name)}: ready. The reference passes every group, the released "
                  f"starter {starter}, every gallery mutant is caught and counted under its own "
                  "idea (the one most of its failing checks name), the recorded answers and the "
                  "release are current, and the notebook says what course.toml says.")
    return 0


def cmd_course_map(args: argparse.Namespace) -> int:
    """Write the course map into the README's block (or, with --check, say whether it is)."""
    from packlab.course import course_map

    try:
        if args.check:
            ok = course_map.current(load())
            console.print("The README's course map is current." if ok else
                          "The README's course map is stale: run `packlab course-map`.")
            return 0 if ok else 1
        if _elsewhere():
            return 2
        changed = course_map.write(load())
    except course_map.MapError as exc:
        console.print(shown(exc))
        return 2
    console.print("README.md: course map written." if changed else
                  "README.md: the course map was current already.")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """new-exercise, author check, course-map."""
    new = sub.add_parser(
        "new-exercise", help="write every file of a new exercise from a few answers",
        description="Write a new exercise of the course's own kind: its reference answer, "
        "visible suite with a table of misconceptions, hidden edge cases and properties, "
        "solution notebook and course.toml entry (inserted after the last exercise; comments "
        "stay). Missing answers are asked for at a terminal. Each file says at its top what to "
        "fill in; then run `packlab author check NAME`.")
    new.add_argument("--name", help="its number and words, e.g. 11-trim-history")
    new.add_argument("--function", help="the function learners write, e.g. trim_history")
    new.add_argument("--signature", help="e.g. 'trim_history(turns: list[dict], budget: int) "
                     "-> list[dict]'")
    new.add_argument("--lesson", help="the slug of the lesson it goes with (default: none)")
    new.add_argument("--points", help="visible,edge-cases,properties, e.g. 1,2,2")
    new.add_argument("--title", help="the notebook's heading (default: Write `FUNCTION`)")
    new.add_argument("--teaches", help="what it teaches, one sentence (course.toml and notebook)")
    new.add_argument("--leaves-out", dest="leaves_out", help="what it leaves out, one sentence")
    new.add_argument("--raises", action="store_true",
                     help="the function must also raise ValueError for input it refuses")
    new.add_argument("--hint", action="append", default=[],
                     help="a hint (repeat; the first should ask a question)")
    new.set_defaults(run=cmd_new_exercise)
    author = sub.add_parser("author", help="check an exercise you are writing")
    author_sub = author.add_subparsers(dest="author_command", required=True)
    check = author_sub.add_parser(
        "check", help="say what an exercise lacks or gets wrong",
        description="Check one exercise as grading and the release need it: the suite imports "
        "with every misconception key the grader names; each group has checks; the reference "
        "and the solution notebook's answer pass every group; the released starter fails (\"not "
        "started\"); every gallery mutant is caught and counted under its own idea (the one "
        "most of its failing checks name); the recorded answers and the release are current; "
        "the notebook's text, grade_ids and points are course.toml's.")
    check.add_argument("exercise", help="name or number, e.g. 11-trim-history or 11")
    check.set_defaults(run=cmd_author_check)
    course_map = sub.add_parser(
        "course-map", help="write the course map from course.toml into README.md",
        description="Write the table of lessons and exercises, generated from course.toml, "
        "between README.md's <!-- course-map:start --> and <!-- course-map:end --> lines.")
    course_map.add_argument("--check", action="store_true",
                            help="only say whether the README's map is current")
    course_map.set_defaults(run=cmd_course_map)
