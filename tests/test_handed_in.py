"""Only what the grader expects is opened: regular files and folders, never a link, FIFO,
device or socket, and no file read past its size limit. A refusal quotes nothing of the file.
(The whole class, as root and as an ordinary user, is in tests/test_attacks.py.)"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, submit, with_answer

from autograder.cohort.classroom import discover
from autograder.cohort.task import Task, grade_one
from autograder.run import handed_in, submission
from autograder.run.handed_in import NOTEBOOK_BYTES, Refused
from autograder.run.isolation import Limits
from autograder.term import late

PACK = COURSE.exercise("02")
SECRET = "root:$y$j9T$secret-hash-of-the-machine"


def finishes(function, *args):
    """``function(*args)``'s result (or exception); fails, instead of hanging the tests, if it
    blocks."""
    done: list = []

    def run() -> None:
        try:
            done.append((function(*args), None))
        except Exception as exc:  # noqa: BLE001 - handed back to the test
            done.append((None, exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    assert done, f"{function.__name__} blocked"
    result, error = done[0]
    if error is not None:
        raise error
    return result


def test_a_regular_file_is_read(tmp_path):
    (tmp_path / "a").write_bytes(b"12345")
    assert handed_in.read(tmp_path / "a", 5) == b"12345"


@pytest.mark.parametrize("make, says", [
    (lambda path: path.symlink_to(path.parent / "secret"), "is a symbolic link"),
    (os.mkfifo, "is a FIFO (named pipe)"),
    (lambda path: socket.socket(socket.AF_UNIX).bind(str(path)), "is a socket"),
    (lambda path: path.mkdir(), "is a folder"),
])
def test_anything_else_is_refused_without_quoting_it(tmp_path, make, says):
    (tmp_path / "secret").write_text(SECRET)
    make(tmp_path / "handed-in")
    with pytest.raises(Refused) as refused:
        finishes(handed_in.read, tmp_path / "handed-in", 1000, "the notebook")
    assert str(refused.value).startswith(f"the notebook {says}")
    assert "root:" not in str(refused.value)


def test_a_device_is_refused():
    with pytest.raises(Refused, match="is a device"):
        handed_in.read(Path("/dev/zero"), 1000)


def test_the_size_is_checked_before_reading(tmp_path):
    sparse = tmp_path / "sparse"
    with sparse.open("wb") as handle:
        handle.truncate(1 << 40)  # a terabyte that takes no room: reading it would never end
    with pytest.raises(Refused, match=r"larger than 16 MB \(1,048,576 MB\)"):
        handed_in.read(sparse, NOTEBOOK_BYTES)


def notebook(tmp_path: Path) -> Path:
    return submit(tmp_path, "ann", PACK, with_answer(PACK, None))


def test_a_linked_notebook_is_not_graded_and_its_target_not_quoted(tmp_path):
    (tmp_path / "secret").write_text(SECRET)
    path = notebook(tmp_path)
    path.unlink()
    path.symlink_to(tmp_path / "secret")
    with pytest.raises(submission.Ungradable) as refused:
        submission.read(path, PACK)
    assert "symbolic link" in str(refused.value) and "root:" not in str(refused.value)


def test_a_notebook_too_large_is_refused_with_what_to_do(tmp_path):
    path = notebook(tmp_path)
    with path.open("ab") as handle:
        handle.truncate(NOTEBOOK_BYTES + 1)
    with pytest.raises(submission.Ungradable,
                       match=r"larger than 16 MB \(16,777,217 bytes\).*Clear Outputs"):
        submission.read(path, PACK)


def test_invalid_json_is_refused_by_where_not_by_what(tmp_path):
    path = notebook(tmp_path)
    path.write_text('{"cells": [ ' + SECRET)
    with pytest.raises(submission.Ungradable) as refused:
        submission.read(path, PACK)
    assert "line 1, column 13" in str(refused.value) and "root:" not in str(refused.value)


@pytest.mark.parametrize("part, value", [("source", 5), ("source", None),
                                         ("metadata", []), ("cell_type", 3)])
def test_a_cell_that_is_not_a_cells_shape_is_said_plainly(tmp_path, part, value):
    path = notebook(tmp_path)
    data = json.loads(path.read_text())
    data["cells"][1][part] = value
    path.write_text(json.dumps(data))
    with pytest.raises(submission.Ungradable, match=r"not (a )?valid notebook"):
        submission.read(path, PACK)


def test_the_notebook_is_read_and_parsed_once(tmp_path, monkeypatch):
    marker = "a cell only this submission has"
    parsed = []
    parse = nbformat.reader.parse_json  # what every nbformat reader parses with
    monkeypatch.setattr(nbformat.reader, "parse_json", lambda text, *a, **k: (
        parsed.append(1) if marker in text else None) or parse(text, *a, **k))
    path = submit(tmp_path, "ann", PACK, with_answer(PACK, f"# {marker}\n1 / 0"))
    graded = grade_one(Task("ann", PACK.name, path), Limits(setup_seconds=10))
    assert graded.result.score == 0 and graded.cells  # the failing cell was named
    assert parsed == [1]


def test_discovery_follows_no_link(tmp_path):
    notebook(tmp_path)
    (tmp_path / "bo").symlink_to("ann")
    (tmp_path / "cy" / PACK.name).mkdir(parents=True)
    (tmp_path / "cy" / PACK.name / f"{PACK.name}.ipynb").symlink_to(
        tmp_path / "ann" / PACK.name / f"{PACK.name}.ipynb")
    (tmp_path / "di").mkdir()
    (tmp_path / "di" / PACK.name).symlink_to(tmp_path / "ann" / PACK.name)
    (tmp_path / "ed" / PACK.name).mkdir(parents=True)
    os.mkfifo(tmp_path / "ed" / PACK.name / f"{PACK.name}.ipynb")
    tasks = {t.student: t for t in finishes(discover, tmp_path)}
    assert tasks["ann"].notebook is not None and tasks["ann"].problem is None
    assert "the student's folder is a link" in tasks["bo"].problem
    assert "is a symbolic link" in tasks["cy"].problem
    assert "the assignment's folder is a link" in tasks["di"].problem
    assert "is a FIFO" in tasks["ed"].problem
    assert all(tasks[s].notebook is None for s in ["bo", "cy", "di", "ed"])


def test_a_fifo_timestamp_does_not_block_and_is_said(tmp_path):
    os.mkfifo(tmp_path / late.TIMESTAMP)
    when, why = finishes(late.submitted_at, tmp_path)
    assert when is None and "timestamp.txt is a FIFO" in why


def test_a_linked_timestamp_is_not_read(tmp_path):
    (tmp_path / "other").write_text("2020-01-01 00:00:00 UTC")
    (tmp_path / late.TIMESTAMP).symlink_to(tmp_path / "other")
    when, why = late.submitted_at(tmp_path)
    assert when is None and "symbolic link" in why


def test_the_limit_and_the_refusals_are_in_grade_help(capsys):
    from packlab.course.cli import main

    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"a notebook larger than {NOTEBOOK_BYTES >> 20} MB is refused unread" in said
    assert "a link (to a classmate's work, say), FIFO, device or socket" in said


# --- a link at any folder below SUBMITTED, made after discovery -------------------------------

def swapped_for_a_link(submitted: Path, depth: int) -> None:
    """ann's student folder (depth 0) or assignment folder (depth 1) swapped for a link to
    bo's, as a student could after discovery listed it."""
    ann = submitted / "ann" if depth == 0 else submitted / "ann" / PACK.name
    ann.rename(submitted.parent / "was")
    ann.symlink_to(submitted / "bo" if depth == 0 else submitted / "bo" / PACK.name)


@pytest.mark.parametrize("depth, says", [(0, "the student's folder is a symbolic link"),
                                         (1, "the assignment's folder is a symbolic link")])
def test_a_folder_swapped_for_a_link_after_discovery_is_refused_by_every_reader(
        tmp_path, depth, says):
    from autograder.cohort import cluster
    from autograder.term import autograded

    submitted = tmp_path / "submitted"
    for student in ("ann", "bo"):
        folder = submit(submitted, student, PACK, with_answer(PACK, None)).parent
        (folder / late.TIMESTAMP).write_text("2026-11-02 17:01:00 UTC")
        (folder / "submission_secret.txt").write_text("secret")
    task = next(t for t in discover(submitted) if t.student == "ann")
    assert task.problem is None and task.submitted == submitted
    swapped_for_a_link(submitted, depth)
    with pytest.raises(Refused, match=says):
        handed_in.read(task.notebook, NOTEBOOK_BYTES, "the notebook", submitted)
    assert handed_in.read(task.notebook, NOTEBOOK_BYTES)  # only the last name checked: read
    graded = grade_one(task, Limits(setup_seconds=10))
    assert graded.result.score == 0 and says in graded.result.error  # not bo's 5/5
    assert says in cluster._contents(task)
    assert late.submitted_at(task.notebook.parent, below=submitted) == (None, f"{says}; links "
                                                                       "are never followed")
    problems = autograded.copy_exchange_files(task.notebook.parent, tmp_path / "out", submitted)
    assert len(problems) == 2 and all(says in p for p in problems)
    assert not (tmp_path / "out").exists()
    assert {t.student: t.problem for t in discover(submitted)}["ann"].startswith(
        "the student's folder is a link" if depth == 0 else "the assignment's folder is a link")


def test_the_autograded_notebook_reads_the_submission_as_the_grader_does(tmp_path):
    from autograder.term import autograded

    submitted = tmp_path / "submitted"
    mine = "def pack(parts, budget):\n    return_one\n"
    path = submit(submitted, "ann", PACK, with_answer(PACK, mine))
    submit(submitted, "bo", PACK, with_answer(PACK, "def pack(parts, budget):\n    return_two\n"))
    out = tmp_path / "autograded.ipynb"
    autograded.write(out, PACK.release, path, {"reason": ""},
                     {PACK.grade_id("visible"): "x"}, below=submitted)
    assert "return_one" in out.read_text()
    swapped_for_a_link(submitted, 1)  # now a link to bo's: refused, not followed
    autograded.write(out, PACK.release, path, {"reason": ""},
                     {PACK.grade_id("visible"): "x"}, below=submitted)
    assert "**Not graded:** the notebook could not be read" in out.read_text()
    assert "return_two" not in out.read_text()


def test_a_4_gib_notebook_is_refused_from_its_size_alone(tmp_path, monkeypatch):
    """A sparse 4 GiB notebook (as `truncate -s 4G` makes it) is refused by discovery from
    its size: nothing opens it, and the grader's record never hashes it."""
    import hashlib

    from autograder.cohort import record

    exercise = COURSE.exercise("02-greedy-pack")
    submitted = tmp_path / "submitted"
    folder = submitted / "ann" / exercise.name
    folder.mkdir(parents=True)
    with (folder / f"{exercise.name}.ipynb").open("wb") as handle:
        handle.truncate(4 << 30)
    opened, hashed = [], []
    real_opened, real_sha256 = handed_in.opened, hashlib.sha256
    monkeypatch.setattr(handed_in, "opened",
                        lambda *args, **kw: opened.append(args) or real_opened(*args, **kw))
    monkeypatch.setattr(record.hashlib, "sha256",
                        lambda *args: hashed.append(args) or real_sha256(*args))
    (task,) = discover(submitted)
    assert task.problem == ("the notebook is larger than 16 MB (4,096 MB): clear its outputs "
                            "(Edit, Clear Outputs of All Cells), save it and hand it in again")
    assert task.notebook is None and record.digest(task.notebook, submitted) is None
    assert opened == [] and hashed == []
    # Handed the file itself, the digest opens it, sees its size and reads none of it.
    assert record.digest(folder / f"{exercise.name}.ipynb", submitted) is None
    assert len(opened) == 1 and hashed == []
    assert record.digest(exercise.release) is not None and len(hashed) == 1  # can hash


def test_packlab_check_refuses_a_4_gib_notebook_without_reading_it(tmp_path, monkeypatch,
                                                                  capsys):
    """The learner's `packlab check` sizes the notebook before it reads it to find which
    exercise it is: a sparse 4 GiB file is refused, never parsed."""
    from packlab.course.cli import main

    path = tmp_path / "02-greedy-pack.ipynb"
    with path.open("wb") as handle:
        handle.truncate(4 << 30)
    parsed, real_read = [], nbformat.read
    monkeypatch.setattr(nbformat, "read", lambda source, *args, **kw: (
        parsed.append(source) or real_read(source, *args, **kw)))
    assert main(["check", str(path)]) == 1
    said = " ".join(capsys.readouterr().out.split())
    assert "the notebook is larger than 16 MB (4,096 MB)" in said, said
    assert Path(path) not in map(Path, parsed)
