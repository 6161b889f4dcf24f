"""Opening what a student handed in: regular files and folders only, their size checked first.

A submission folder is the student's to fill. A link in it (to a classmate's notebook, or to
/etc/shadow) is never followed, and a FIFO, device or socket is never opened (opening a FIFO
would block the grader for ever). A file is opened with ``O_NOFOLLOW | O_NONBLOCK``, checked to
be regular with `os.fstat` on what was opened, and refused when larger than its limit before a
byte is read. A refusal says why in plain words, never quoting what the file holds.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
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


# SUBMITTED/<student>/<assignment>/<file>: the folders under SUBMITTED, as a refusal names them
FOLDERS = ("the student's folder", "the assignment's folder")
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def kind_at(name: str, folder: int) -> str | None:
    """What ``name`` in the open ``folder`` is (links not followed), in words; None if none."""
    try:
        return kind(os.lstat(name, dir_fd=folder).st_mode)
    except FileNotFoundError:
        return None


def folder(name: str, parent: int, said: str = "a folder") -> int:
    """The folder ``name`` in the open folder ``parent``, opened (a descriptor) without
    following a link; `Refused` (``said`` naming it) when it is a link or not a folder."""
    try:
        return os.open(name, FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as exc:  # ELOOP: a link; ENOTDIR: a file, FIFO, ...
        if isinstance(exc, FileNotFoundError):
            raise
        found = kind_at(name, parent)
        why = f"is {found}" if found and found != "a folder" else \
            f"could not be opened ({type(exc).__name__})"
        raise Refused(f"{said} {why}; links are never followed") from None


@contextlib.contextmanager
def inside(top: Path, names: tuple[str, ...] = ()) -> Iterator[int]:
    """The folder ``top``/``names``…, open (a descriptor) while inside. ``top`` is the
    instructor's (SUBMITTED), opened as it is; each of ``names`` below it is the student's,
    opened by `folder` (no link followed at any of them; they are named by `FOLDERS`)."""
    fd = os.open(top, FOLDER_FLAGS)
    try:
        for depth, name in enumerate(names):
            inner = folder(name, fd, FOLDERS[depth] if depth < len(FOLDERS) else "a folder")
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def opened(path: Path, name: str = "the file", below: Path | None = None) -> BinaryIO:
    """The regular file ``path`` opened for reading (never a link, FIFO, device or socket);
    `Refused` (``name`` saying which file) otherwise. FileNotFoundError when there is none.

    ``below``: the folder (SUBMITTED) whose names down to ``path`` are the student's; a link
    at any of them is refused too (`inside`). Without it, only the last name is checked."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    path = Path(path)
    top, names = (path.parent, ()) if below is None else (below, path.relative_to(below).parts[:-1])
    with inside(top, names) as parent:
        try:
            fd = os.open(path.name, flags, dir_fd=parent)
        except OSError as exc:  # ELOOP: the last part of the path is a link
            if isinstance(exc, FileNotFoundError):
                raise
            found = kind_at(path.name, parent)
            why = f"is {found}" if found and found != "a file" else \
                f"could not be opened ({type(exc).__name__})"
            raise Refused(f"{name} {why}; only regular files are read") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Refused(f"{name} is {kind(mode)}; only regular files are read")
    return os.fdopen(fd, "rb")


def read(path: Path, limit: int, name: str = "the file", below: Path | None = None) -> bytes:
    """The bytes of the regular file ``path`` (see `opened`, and ``below`` there); `Refused`
    when it holds more than ``limit``, before a byte is read."""
    with opened(path, name, below) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise TooLarge(larger_than(size, limit, name))
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after fstat
        raise TooLarge(f"{name} is larger than {_size(limit)}")
    return data


def larger_than(size: int, limit: int, name: str = "the file") -> str:
    """What a refusal of a file of ``size`` bytes, over ``limit``, says."""
    shown = _size(size) if _size(size) != _size(limit) else f"{size:,} bytes"
    return f"{name} is larger than {_size(limit)} ({shown})"


def size_at(name: str, folder: int) -> int:
    """The size in bytes of ``name`` in the open ``folder`` (no link followed), nothing read."""
    return os.lstat(name, dir_fd=folder).st_size


def _size(count: int) -> str:
    if count < 1 << 20:
        return f"{count:,} bytes"
    return f"{count / (1 << 20):,.1f}".removesuffix(".0") + " MB"
