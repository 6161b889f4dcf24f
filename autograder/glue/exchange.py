"""nbgrader's collect, taking a hand-in only from the account it is named for.

nbgrader's exchange names a hand-in by its folder, ``STUDENT+ASSIGNMENT+TIME+RANDOM`` in the
course's inbound folder, which every learner may write: learner B can write a folder named for A,
and nbgrader's own collect takes it as A's (it logs a warning and carries on). `OwnedCollect`
(``c.ExchangeFactory.collect``) sets aside every hand-in with anything in it that the named
account did not write: the folder and each file in it must be owned by that account's uid (the
kernel's word, which no learner can change) and hold no link. The named learner's latest genuine
hand-in is collected as usual; then the collect fails, naming each hand-in set aside, so that
formgrader says "There was an error collecting" instead of "Successfully collected".

Which uid an account has: the machine's own accounts (``passwd``, the one-machine hub), or, on
Kubernetes where a pod has no such accounts, the uid the hub's spawner gives the name
(``name``: `name_uid`, hub/k8s/values.yaml).

`autograder.glue.forgeries` is `packlab grade`'s own check of the same, for submissions that
another collect (nbgrader's own) put in the submitted folder: the exchange still holds the
forged hand-in.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import stat

from nbgrader.exchange.default.collect import ExchangeCollect
from traitlets import Enum

SET_ASIDE = "\0set-aside:"  # a record's user, for a hand-in that is no one's to collect
FIRST_NAME_UID = 100_000  # name_uid's range starts here, above every ordinary account
NAME_UIDS = 2**30


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
        record = super()._path_to_record(path)
        name = record["username"]
        uid = name_uid(name) if self.uids == "name" else account_uid(name)
        wrong = stranger(path, uid)
        if wrong:
            self.set_aside.append(f"{record['filename']!r}, handed in as {name!r}: {wrong}")
            record["username"] = SET_ASIDE + record["filename"]  # a group of its own
        return record

    def copy_files(self) -> None:
        super().copy_files()
        if self.set_aside:
            self.fail(f"{len(self.set_aside)} hand-in(s) of {self.coursedir.assignment_id!r} "
                      "not collected: each holds what the learner it names did not write, so it "
                      "may be forged. Every other hand-in was collected. Not collected: "
                      + "; ".join(self.set_aside))
