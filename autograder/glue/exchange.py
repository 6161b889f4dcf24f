"""nbgrader's collect, taking a hand-in only from the account it is named for.

nbgrader's exchange names a hand-in by its folder, ``STUDENT+ASSIGNMENT+TIME+RANDOM`` in the
course's inbound folder, which every learner may write: learner B can write a folder named for A,
and nbgrader's own collect takes it as A's (it logs a warning and carries on). `OwnedCollect`
(``c.ExchangeFactory.collect``) sets aside every hand-in with anything in it that the named
account did not write: the folder and each file in it must be owned by that account's uid (the
kernel's word, which no learner can change) and hold no link. It sets aside likewise a hand-in
that would stop nbgrader's own collect for the whole class: a folder whose name's time part is
not a time (nbgrader's collect fails on the first), one holding a pipe, socket or device or
what the collecting account may not read (its copy fails), or whose timestamp.txt is not a time
(the next collect fails on the copy). The named
learner's latest genuine hand-in and everyone else's are collected as usual; then the collect
fails, naming each hand-in set aside, so that formgrader says "There was an error collecting"
instead of "Successfully collected".

Which uid an account has: the machine's own accounts (``passwd``, the one-machine hub), or, on
Kubernetes where a pod has no such accounts, the uid the hub's spawner gives the name
(``name``: `name_uid`, hub/k8s/values.yaml).

`autograder.glue.forgeries` is `packlab grade`'s own check of the same, for submissions that
another collect (nbgrader's own) put in the submitted folder: the exchange still holds the
forged hand-in.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import pwd
import stat

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.utils import parse_utc
from traitlets import Enum

SET_ASIDE = "\0set-aside:"  # a record's user, for a hand-in that is no one's to collect
FIRST_NAME_UID = 100_000  # name_uid's range starts here, above every ordinary account
NAME_UIDS = 2**30
TIMESTAMP = "timestamp.txt"  # nbgrader's submit writes the hand-in's time in it
LONGEST_TIME = 200  # characters of a timestamp.txt read; a longer one is no time


def name_uid(name: str) -> int:
    """The uid that an account named ``name`` runs as on Kubernetes (hub/k8s/values.yaml)."""
    digest = hashlib.sha256(name.encode()).digest()
    return FIRST_NAME_UID + int.from_bytes(digest[:8], "big") % NAME_UIDS


def account_uid(name: str) -> int | None:
    """The machine's account ``name``'s uid, None when there is no such account."""
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


def stranger(folder: str, uid: int | None) -> str | None:
    """What in ``folder`` was not written by ``uid`` (in words), None when all of it was."""
    if uid is None:
        return "no account has that name"
    inside = (os.path.join(root, name) for root, dirs, files in os.walk(folder)
              for name in [*dirs, *files])
    for path in (folder, *inside):
        info = os.lstat(path)
        where = os.path.relpath(path, folder)
        if stat.S_ISLNK(info.st_mode):
            return f"{where} is a link"
        if info.st_uid != uid:
            return f"{where} was written by {_owner(info.st_uid)}"
        if path == folder and not stat.S_ISDIR(info.st_mode):
            return "it is not a folder"
    return None


def unreadable_name(name: str) -> str | None:
    """What in the hand-in folder's ``name`` nbgrader's collect cannot read (in words), None
    when it reads it: its time part (STUDENT+ASSIGNMENT+TIME+RANDOM) must be a time."""
    parts = name.rsplit("+", 3)
    if len(parts) < 3:
        return "its name is not STUDENT+ASSIGNMENT+TIME+RANDOM"
    return None if _a_time(parts[2]) else \
        f"its name's time part {parts[2]!r} is not a time nbgrader can read"


def uncollectable(folder: str) -> str | None:
    """What in the hand-in ``folder`` stops nbgrader collecting it (in words), None when
    nothing: anything but folders and files (a pipe would stop the copy), what this account
    may not read, or a timestamp.txt that is not a time."""
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        return "it is not a folder"
    inside = (os.path.join(root, name) for root, dirs, files in os.walk(folder)
              for name in [*dirs, *files])
    for path in (folder, *inside):
        mode = os.lstat(path).st_mode
        where = os.path.relpath(path, folder)
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            return f"{where} is not a file"
        wanted = os.R_OK | os.X_OK if stat.S_ISDIR(mode) else os.R_OK
        if not stat.S_ISLNK(mode) and not os.access(path, wanted):
            return f"{where} cannot be read by this account"
    said = _read_time(os.path.join(folder, TIMESTAMP))
    if said is not None and (len(said) > LONGEST_TIME or said.strip() and
                             not _a_time(said.strip())):
        return f"its {TIMESTAMP} holds no time nbgrader can read"
    return None


def _read_time(path: str) -> str | None:
    """The start of the file ``path`` when it is a file, never blocking (a learner may have
    made it a pipe since it was looked at); None when there is no such file."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        return os.read(handle, LONGEST_TIME + 1).decode("utf-8", "replace")
    finally:
        os.close(handle)


def _a_time(text: str) -> bool:
    """Does nbgrader read ``text`` (a learner's) as a time?"""
    try:
        parse_utc(text)
    except Exception:  # whatever dateutil makes of a learner's text (not only ValueError)
        return False
    return True


def _owner(uid: int) -> str:
    try:
        return f"the account {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        return f"uid {uid}"


class OwnedCollect(ExchangeCollect):
    """nbgrader's collect, without the hand-ins that another account wrote (see the module)."""

    uids = Enum(["passwd", "name"], default_value="passwd", config=True,
                help="where a learner's uid comes from: the machine's accounts (passwd), or "
                     "the name itself as the Kubernetes spawner gives it (name)")

    def init_src(self) -> None:
        self.set_aside: list[str] = []
        super().init_src()
        self.src_records = [r for r in self.src_records if not r["username"].startswith(SET_ASIDE)]

    def _path_to_record(self, path: str) -> dict:
        filename = os.path.basename(path)
        unread = unreadable_name(filename)
        if unread:  # nbgrader's own collect would fail on it
            return self._aside({"username": filename.rsplit("+", 3)[0], "filename": filename},
                               unread)
        record = super()._path_to_record(path)
        name = record["username"]
        uid = name_uid(name) if self.uids == "name" else account_uid(name)
        try:
            wrong = stranger(path, uid) or uncollectable(path)
        except OSError:  # its learner changed it while it was read
            wrong = "it changed while it was read"
        return self._aside(record, wrong) if wrong else record

    def _aside(self, record: dict, why: str) -> dict:
        """``record`` set aside (``why``: in words): a group of its own, never collected."""
        self.set_aside.append(f"{record['filename']!r}, handed in as {record['username']!r}: "
                              f"{why}")
        return {**record, "username": SET_ASIDE + record["filename"],
                "timestamp": record.get("timestamp") or datetime.datetime.min}

    def copy_files(self) -> None:
        super().copy_files()
        if self.set_aside:
            self.fail(f"{len(self.set_aside)} hand-in(s) of {self.coursedir.assignment_id!r} "
                      "not collected: each holds what the learner it names did not write (so "
                      "it may be forged), or what nbgrader cannot collect. Every other hand-in "
                      "was collected. Not collected: " + "; ".join(self.set_aside))
