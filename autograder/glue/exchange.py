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

`forged_in` is `packlab grade`'s own check of the same, for submissions that another collect
(nbgrader's own) put in the submitted folder: the exchange still holds the forged hand-in.
"""

from __future__ import annotations

import filecmp
import hashlib
import os
import pwd
import stat
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from traitlets import Enum
from traitlets.config import Config

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


def forged_in(submitted: Path, course: Path) -> list[str]:
    """The submissions under ``submitted`` copied from a hand-in of the exchange that another
    account wrote, in words; none when nbgrader's settings (Jupyter's config path, then
    ``course``) name no exchange this account may list."""
    config = _nbgrader_config(course)
    if "root" not in config.Exchange:
        return []
    inbound = Path(config.Exchange.root) / config.CourseDirectory.get("course_id", "") / "inbound"
    if not os.access(inbound, os.R_OK | os.X_OK):
        return []
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
                found.append(f"{student}/{assignment} is {name!r}: {wrong}")
    return found


def _nbgrader_config(course: Path) -> Config:
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config.loader import load_pyconfig_files

    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(course)]:
        try:
            config.merge(load_pyconfig_files(["nbgrader_config.py"], folder))
        except Exception:  # noqa: BLE001 - a broken file is nbgrader's to report; skip it
            continue
    return config


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
