"""Opening what a student handed in: regular files and folders only, their size checked first.

A submission folder is the student's to fill. A link in it (to a classmate's notebook, or to
/etc/shadow) is never followed, and a FIFO, device or socket is never opened (opening a FIFO
would block the grader for ever). A file is opened with ``O_NOFOLLOW | O_NONBLOCK``, checked to
be regular with `os.fstat` on what was opened, and refused when larger than its limit before a
byte is read. A refusal says why in plain words, never quoting what the file holds.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

NOTEBOOK_BYTES = 16 << 20  # the largest notebook graded (and sent to a grading cluster)
KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO (named pipe)",
         stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
         stat.S_IFDIR: "a folder", stat.S_IFREG: "a file"}


class Refused(Exception):
    """A handed-in file that is not read; the message says why, in plain words."""


class TooLarge(Refused):
    """A handed-in file larger than its limit."""


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a symbolic link", "a FIFO (named pipe)")."""
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


def what_is(path: Path) -> str | None:
    """What ``path`` itself is (links not followed), in words; None when there is nothing."""
    try:
        return kind(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None


def is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder itself, not a link to one."""
    return what_is(path) == "a folder"


def opened(path: Path, name: str = "the file") -> BinaryIO:
    """The regular file ``path`` opened for reading (never a link, FIFO, device or socket);
    `Refused` (``name`` saying which file) otherwise. FileNotFoundError when there is none."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:  # ELOOP: the last part of the path is a link
        if isinstance(exc, FileNotFoundError):
            raise
        found = what_is(path)
        why = f"is {found}" if found and found != "a file" else \
            f"could not be opened ({type(exc).__name__})"
        raise Refused(f"{name} {why}; only regular files are read") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Refused(f"{name} is {kind(mode)}; only regular files are read")
    return os.fdopen(fd, "rb")


def read(path: Path, limit: int, name: str = "the file") -> bytes:
    """The bytes of the regular file ``path`` (see `opened`); `Refused` when it holds more
    than ``limit``, before a byte is read."""
    with opened(path, name) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            shown = _size(size) if _size(size) != _size(limit) else f"{size:,} bytes"
            raise TooLarge(f"{name} is larger than {_size(limit)} ({shown})")
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after fstat
        raise TooLarge(f"{name} is larger than {_size(limit)}")
    return data


def _size(count: int) -> str:
    if count < 1 << 20:
        return f"{count:,} bytes"
    return f"{count / (1 << 20):,.1f}".removesuffix(".0") + " MB"
