"""A hand-in counts only for the account that wrote it: real `nbgrader collect` with the hub's
collect (autograder.glue.exchange.OwnedCollect), and `packlab grade` after nbgrader's own
collect, on an exchange whose hand-ins are owned by several uids. The uids are the Kubernetes
rule's (`name_uid`), so no account is needed; the machine's own accounts (PAM, `make hub`) are
tested on a real hub in tests/test_hub_term.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from as_user import impossible

from autograder.glue.exchange import name_uid, stranger

ASSIGNMENT = "02-greedy-pack"
EARLY, LATE = "2026-12-01 10:00:00.000000 UTC", "2026-12-01 11:00:00.000000 UTC"


def hand_in(inbound: Path, named: str, when: str, uid: int, answer: str) -> Path:
    """A hand-in folder as nbgrader's submit writes it, owned by ``uid``."""
    folder = inbound / f"{named}+{ASSIGNMENT}+{when}+{os.urandom(4).hex()}"
    folder.mkdir()
    (folder / "timestamp.txt").write_text(when)
    (folder / f"{ASSIGNMENT}.ipynb").write_text(answer)
    for path in (folder, *folder.iterdir()):
        os.lchown(path, uid, uid)
    return folder


def exchange(tmp_path: Path, collect: str | None) -> tuple[Path, Path]:
    """A course and an exchange with four hand-ins: ada's own, a later one named for ada that
    bo wrote, bo's own, and cy's holding a link. The course's settings name ``collect``."""
    if os.geteuid() != 0:
        impossible("giving files to other uids needs root")
    course, root = tmp_path / "course", tmp_path / "exchange"
    inbound = root / "packlab" / "inbound"
    inbound.mkdir(parents=True)
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'packlab'\n"
        f"c.Exchange.root = {str(root)!r}\n"
        + (f"c.ExchangeFactory.collect = {collect!r}\n" if collect else "")
        + "c.OwnedCollect.uids = 'name'\n")
    hand_in(inbound, "ada", EARLY, name_uid("ada"), "ada's own")
    forged = hand_in(inbound, "ada", LATE, name_uid("bo"), "bo's forgery")
    hand_in(inbound, "bo", EARLY, name_uid("bo"), "bo's own")
    linked = hand_in(inbound, "cy", EARLY, name_uid("cy"), "cy's")
    (linked / "secret.txt").symlink_to("/etc/hostname")
    os.lchown(linked / "secret.txt", name_uid("cy"), name_uid("cy"))
    return course, forged


def run(command: list[str], course: Path) -> subprocess.CompletedProcess:
    bin_dir = Path(sys.executable).parent
    return subprocess.run([str(bin_dir / command[0]), *command[1:]], cwd=course,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})


def test_a_hand_in_written_by_another_account_is_set_aside_loudly(tmp_path):
    """bo writes a hand-in named for ada, later than ada's own: ada's own is collected, the
    forgery is not, and the collect fails naming it; a hand-in holding a link is set aside
    too; bo's own is collected."""
    course, forged = exchange(tmp_path, "autograder.glue.exchange.OwnedCollect")
    done = run(["nbgrader", "collect", ASSIGNMENT], course)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    submitted = course / "submitted"
    assert (submitted / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text() == "ada's own"
    assert (submitted / "bo" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text() == "bo's own"
    assert not (submitted / "cy").exists()
    assert "2 hand-in(s) of '02-greedy-pack' not collected" in said, said
    assert f"{forged.name!r}, handed in as 'ada': . was written by uid {name_uid('bo')}" in said
    assert "handed in as 'cy': secret.txt is a link" in said
    assert "Traceback" not in done.stdout


def test_packlab_grade_refuses_what_nbgrader_s_own_collect_took_from_a_forger(tmp_path):
    """nbgrader's own collect takes bo's forgery as ada's (and cy's with its link): `packlab
    grade` finds them in the exchange, grades nothing and says which and what to do."""
    course, forged = exchange(tmp_path, None)
    collected = run(["nbgrader", "collect", ASSIGNMENT], course)
    assert collected.returncode == 0, collected.stderr
    submitted = course / "submitted"
    assert (submitted / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text() == "bo's forgery"
    done = run(["packlab", "grade", "submitted", "--out", "graded"], course)
    said = " ".join(done.stdout.split())
    assert done.returncode == 2, said
    assert "Not grading. 2 submission(s) came from a hand-in that another account wrote" in said
    assert f"ada/{ASSIGNMENT} is {forged.name!r}: . was written by uid {name_uid('bo')}" in said
    assert f"cy/{ASSIGNMENT} is" in said and "secret.txt is a link" in said
    assert "bo/" not in said and not (course / "graded").exists()


def test_a_hand_in_is_its_namesakes_only_when_all_of_it_is(tmp_path):
    folder = tmp_path / "hand-in"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.ipynb").write_text("{}")
    me = os.geteuid()
    assert stranger(str(folder), me) is None
    assert stranger(str(folder), None) == "no account has that name"
    assert stranger(str(folder), me + 1).startswith(". was written by")
    (tmp_path / "fifo").unlink(missing_ok=True)
    os.mkfifo(tmp_path / "fifo")
    assert stranger(str(tmp_path / "fifo"), me) == "it is not a folder"
    if me == 0:
        os.chown(folder / "sub" / "a.ipynb", 12345, 12345)
        assert stranger(str(folder), me) == "sub/a.ipynb was written by uid 12345"


@pytest.mark.parametrize("name", ["ada", "bo", "a" * 32])
def test_name_uids_are_above_every_ordinary_account(name):
    assert 100_000 <= name_uid(name) < 100_000 + 2**30
    assert name_uid(name) == name_uid(name)
