"""The `packlab` command: one parser, each user's commands in a module of their own.

Learners (`learner`): lab, check, hint, progress, reset, room. Presenters (`presenter`): demo.
Instructors (`instructor`): grade, similarity, release, gradescope, export, bundle, roster,
extend, counts, history, student-build, hub (`hub`), and for exercise authors (`author`):
new-exercise, author check, course-map.
The student install holds only the learner's commands.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version

from rich.console import Console

# jsonschema (under nbformat) imports rfc3987-syntax, when it is installed, only to check the
# "iri" string format, which no notebook schema uses; building that package's grammar costs about
# a second at every start of the command. Declared absent here, before anything imports nbformat,
# it is skipped: `packlab check` starts in well under a second. (The command's own process only.)
sys.modules.setdefault("rfc3987_syntax", None)

from packlab.course.cli import learner  # noqa: E402 - after the line above, on purpose
from packlab.course.cli.terminal import console, shown  # noqa: E402
from packlab.manifest import load, outside_note  # noqa: E402

# The commands the student install leaves out (the presenter's and the instructor's).
INSTRUCTOR_ONLY = frozenset({"grade", "release", "gradescope", "export", "bundle", "similarity",
                             "roster", "extend", "student-build", "demo", "new-exercise",
                             "author", "course-map", "history", "counts", "hub"})
DESCRIPTION = ("Learners: lab, check, hint, progress, reset, room. Instructors and presenters: "
               "grade, similarity, release, gradescope, export, bundle, roster, extend, counts, "
               "history, student-build, demo, hub; exercise authors: new-exercise, author check, "
               "course-map (the student install offers only the first six).")


def _student_install() -> bool:
    """Is this the student install? Its course.toml says so; and without the hidden tests it is
    one whatever manifest PACKLAB_COURSE_TOML names (asked only when the manifest does not say
    so)."""
    if load().student_install:
        return True
    from autograder.checks import hidden_installed

    return not hidden_installed()


def parser() -> argparse.ArgumentParser:
    student_install = _student_install()
    top = argparse.ArgumentParser(prog="packlab", description=(
        "The `packlab` command of the student install: lab, check, hint, progress, reset, room."
        if student_install else DESCRIPTION))
    top.add_argument("--version", action="version", version=f"%(prog)s {version('packlab')}")
    sub = top.add_subparsers(dest="command", required=True)
    learner.add_commands(sub)
    if not student_install:  # the presenter's and instructor's modules are not in that install
        from packlab.course.cli import instructor, presenter

        presenter.add_commands(sub)
        instructor.add_commands(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if command in INSTRUCTOR_ONLY and _student_install():
        console.print(f"`packlab {shown(command)}` is one of the instructor's commands: it is part "
                      "of the instructor's install of the course, not of this student install.")
        return 2
    if note := outside_note():
        Console(stderr=True, highlight=False).print(shown(note))
    args = parser().parse_args(argv)
    return args.run(args)

