"""The class's system accounts, made from the roster: one per learner, in a group of their own.

Each learner gets a home only they can read (mode 0700) and a first password (random, written to
a file only root can read); each instructor joins the instructors' group, which owns the course
folder. Accounts that exist already keep their password and files: running it again after new
learners joined adds only them.
"""

from __future__ import annotations

import csv
import grp
import pwd
import re
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from packlab.course.hub.layout import INSTRUCTORS, LEARNERS, HubError

# What useradd accepts everywhere (Debian's default NAME_REGEX), and nothing that could be read
# as an option or a path.
ACCOUNT = re.compile(r"[a-z_][a-z0-9_-]{0,31}")


@dataclass
class Accounts:
    """What `make` did: accounts created, found, refused, and the first passwords it set."""

    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    passwords: dict[str, str] = field(default_factory=dict)


def learners(roster: Path) -> list[str]:
    """The roster's ids (the learners' account names), as written."""
    from autograder.term.lms import read_roster

    return [row["id"] for row in read_roster(roster)]


def instructors() -> list[str]:
    """The members of the instructors' group (none when it does not exist yet)."""
    try:
        return sorted(grp.getgrnam(INSTRUCTORS).gr_mem)
    except KeyError:
        return []


def make(roster: Path, teachers: list[str], passwords: Path) -> Accounts:
    """Create the roster's learners and the ``teachers``; first passwords go to ``passwords``."""
    for group in (INSTRUCTORS, LEARNERS):
        _group(group)
    done = Accounts()
    people = [(name, LEARNERS) for name in learners(roster)]
    people += [(name, INSTRUCTORS) for name in teachers]
    for name, group in people:
        if not ACCOUNT.fullmatch(name):
            done.refused.append(f"{name!r} cannot be an account name (lower-case letters, digits, "
                                "'-' and '_', starting with a letter, at most 32)")
            continue
        if _exists(name):
            done.existing.append(name)
        else:
            _run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name])
            done.created.append(name)
            done.passwords[name] = secrets.token_urlsafe(9)
        _run(["usermod", "--append", "--groups", group, name])
        Path(pwd.getpwnam(name).pw_dir).chmod(0o700)
    if done.passwords:
        _run(["chpasswd"], given="".join(f"{n}:{p}\n" for n, p in done.passwords.items()))
        _write_passwords(passwords, done.passwords)
    return done


def remove(names: list[str]) -> None:
    """Delete these accounts and their homes (the end of a term; the tests' own accounts)."""
    for name in names:
        if ACCOUNT.fullmatch(name) and _exists(name):
            _run(["userdel", "--remove", name], ok=(0, 12))  # 12: the home was gone already


def _write_passwords(path: Path, passwords: dict[str, str]) -> None:
    path.touch(mode=0o600)
    path.chmod(0o600)
    new = not path.stat().st_size
    with path.open("a", newline="") as out:
        writer = csv.writer(out)
        if new:
            writer.writerow(["id", "password"])
        writer.writerows(passwords.items())


def _group(name: str) -> None:
    try:
        grp.getgrnam(name)
    except KeyError:
        _run(["groupadd", "--system", name], ok=(0, 9))  # 9: made meanwhile


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _run(command: list[str], given: str | None = None, ok: tuple[int, ...] = (0,)) -> None:
    try:
        done = subprocess.run(command, input=given, capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise HubError(f"{command[0]} is missing: accounts are made with the shadow tools "
                       "(apt-get install passwd)") from exc
    if done.returncode not in ok:
        raise HubError(f"{' '.join(command[:2])}… failed: {done.stderr.strip()} "
                       "(making accounts needs root)")
