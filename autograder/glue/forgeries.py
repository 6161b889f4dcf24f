"""`packlab grade`'s guard against a forged hand-in that reached SUBMITTED by another collect
(nbgrader's own takes a hand-in named for a learner whatever account wrote it).

`forged_in` finds each submission under SUBMITTED that is a copy of a hand-in in the exchange
which the learner it names did not write (`exchange.stranger`). `set_aside` takes each such copy
out of SUBMITTED into OUT/set-aside/, collects the learner's own latest hand-in in its place with
the hub's collect (`exchange.OwnedCollect`, for that learner alone), and records it
(`autograder.cohort.set_aside`): the rest of the class is graded, the forgery is not.
`uncollected` names the hand-ins of the exchange that no collect takes (nbgrader's own fails
on them, the hub's sets them aside), for `packlab grade` to say so.
"""

from __future__ import annotations

import contextlib
import filecmp
import logging
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config

from autograder import outfolder
from autograder.cohort.set_aside import SetAside, record
from autograder.run import nbgrader_course

# autograder.glue.exchange (nbgrader's exchange: 1.1 CPU-s to import) is imported only once the
# course has an exchange this account may list: most runs of `packlab grade` have none.


@dataclass(frozen=True)
class Forgery:
    """A submission of SUBMITTED copied from a hand-in its learner did not write."""

    student: str
    assignment: str
    hand_in: str  # the hand-in's folder name in the exchange's inbound folder
    why: str  # what in it the learner did not write, in words


def set_aside(submitted: Path, out: Path, course: Path) -> list[SetAside]:
    """Take every forged submission out of ``submitted`` (kept in OUT/set-aside/), collect the
    learner's own latest hand-in in its place when there is one, and record them; what was set
    aside on this run."""
    config = nbgrader_course.commands_config(course)
    done = []
    for forgery in forged_in(submitted, config):
        copy = submitted / forgery.student / forgery.assignment
        kept = outfolder.set_aside_folder(out, forgery.student, forgery.assignment) / \
            forgery.hand_in
        if kept.exists():  # the same forgery, collected again: one copy is enough
            shutil.rmtree(copy)
        else:
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(copy, kept)
        own = _collect_own(config, course, submitted, forgery)
        done.append(SetAside(forgery.student, forgery.assignment, forgery.hand_in, forgery.why,
                             own or ""))
    if done:
        record(out, done)
    return done


def forged_in(submitted: Path, config: Config) -> list[Forgery]:
    """The submissions under ``submitted`` copied from a hand-in of the exchange that another
    account wrote; none when nbgrader's settings (``config``) name no exchange this account
    may list."""
    inbound = _inbound(config)
    if inbound is None:
        return []
    from autograder.glue.exchange import account_uid, name_uid, stranger

    by_name = config.OwnedCollect.get("uids", "passwd") == "name"
    hand_ins: dict[tuple[str, str], list[str]] = {}
    for name in sorted(os.listdir(inbound)):
        parts = name.rsplit("+", 3)  # student+assignment+time+random, as nbgrader reads it
        if len(parts) == 4:
            hand_ins.setdefault((parts[0], parts[1]), []).append(name)
    found = []
    for copy in sorted(path for path in submitted.glob("*/*") if path.is_dir()):
        student, assignment = copy.parent.name, copy.name
        uid = name_uid(student) if by_name else account_uid(student)
        for name in hand_ins.get((student, assignment), []):
            wrong = stranger(str(inbound / name), uid)
            if wrong and _same_files(copy, inbound / name):
                found.append(Forgery(student, assignment, name, wrong))
                break
    return found


def uncollected(course: Path) -> list[tuple[str, str]]:
    """The hand-ins of the exchange's inbound folder that nbgrader cannot collect, each with
    why (in words); none when the course's nbgrader settings name no exchange this account
    may list."""
    inbound = _inbound(nbgrader_course.commands_config(course))
    if inbound is None:
        return []
    from autograder.glue.exchange import uncollectable, unreadable_name

    try:
        names = sorted(os.listdir(inbound))
    except OSError:  # gone since it was looked at
        return []
    found = []
    for name in names:
        with contextlib.suppress(OSError):  # a hand-in its learner removed meanwhile
            why = unreadable_name(name) or uncollectable(str(inbound / name))
            if why:
                found.append((name, why))
    return found


def _inbound(config: Config) -> Path | None:
    """The exchange's inbound folder of the course, when there is one this account may list."""
    if "root" not in config.Exchange:
        return None
    inbound = Path(config.Exchange.root) / config.CourseDirectory.get("course_id", "") / "inbound"
    return inbound if os.access(inbound, os.R_OK | os.X_OK) else None


def _collect_own(config: Config, course: Path, submitted: Path, forgery: Forgery) -> str | None:
    """The learner's own latest hand-in, collected by the hub's collect into SUBMITTED (when
    SUBMITTED is the course's submitted folder); its name, None when there is none."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.abc.exchange import ExchangeError

    from autograder.glue.exchange import OwnedCollect

    coursedir = CourseDirectory(config=config)
    if "root" not in config.CourseDirectory:
        coursedir.root = str(course.resolve())
    coursedir.assignment_id, coursedir.student_id = forgery.assignment, forgery.student
    into = Path(coursedir.format_path(coursedir.submitted_directory, forgery.student,
                                      forgery.assignment))
    if into.resolve() != (submitted / forgery.student / forgery.assignment).resolve():
        return None
    quiet = logging.getLogger("packlab.forgeries.collect")  # the caller says what happened
    quiet.propagate, quiet.handlers = False, [logging.NullHandler()]
    collect = OwnedCollect(coursedir=coursedir, authenticator=Authenticator(config=config),
                           config=config, log=quiet)
    with contextlib.suppress(ExchangeError):  # it names the forgeries set aside, as we do
        collect.start()
    taken = [r["filename"] for r in getattr(collect, "src_records", [])
             if r["username"] == forgery.student]
    return taken[0] if taken and into.is_dir() else None


def _names(root: Path) -> list[str]:
    """Every name in ``root`` but its folders, walked without following a link."""
    return sorted(os.path.relpath(os.path.join(folder, name), root)
                  for folder, _, files in os.walk(root) for name in files)


def _same_files(copy: Path, source: Path) -> bool:
    """Is ``copy`` (as collect wrote it) ``source``? The same names, and the same bytes in each
    of the source's regular files (a link or a FIFO is never opened)."""
    names = _names(source)
    if _names(copy) != names:
        return False
    regular = [n for n in names if stat.S_ISREG(os.lstat(source / n).st_mode)]
    same, _, _ = filecmp.cmpfiles(copy, source, regular, shallow=False)
    return len(same) == len(regular)
