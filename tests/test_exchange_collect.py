"""A hand-in counts only for the account that wrote it: real `nbgrader collect` with the hub's
collect (autograder.glue.exchange.OwnedCollect), and `packlab grade` after nbgrader's own
collect (the forgeries set aside, the rest of the class graded), on an exchange whose hand-ins
are owned by several uids. The uids are the Kubernetes rule's (`name_uid`), so no account is
needed; the machine's own accounts (PAM, `make hub`) are tested on a real hub in
tests/test_hub_term.py."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import as_user
import nbformat
import pytest
from as_user import impossible
from conftest import COURSE, with_answer
from hypothesis import given
from hypothesis import strategies as st
from nbgrader.api import Gradebook
from nbgrader.exchange.default.collect import ExchangeCollect

from autograder.cohort import set_aside
from autograder.cohort.set_aside import SetAside
from autograder.escape import for_markdown
from autograder.glue.exchange import name_uid, stranger, unreadable_name
from autograder.outfolder import NO_SUBMISSION, SET_ASIDE

EXERCISE = COURSE.exercise("02-greedy-pack")

ASSIGNMENT = "02-greedy-pack"
EARLY, LATE = "2026-12-01 10:00:00.000000 UTC", "2026-12-01 11:00:00.000000 UTC"


def hand_in(inbound: Path, named: str, when: str, uid: int, answer: str,
            random: str = "") -> Path:
    """A hand-in folder as nbgrader's submit writes it, owned by ``uid``."""
    return folder_named(inbound, f"{named}+{ASSIGNMENT}+{when}+{random or os.urandom(4).hex()}",
                        when, uid, answer)


def folder_named(inbound: Path, name: str, when: str, uid: int, answer: str) -> Path:
    """A hand-in folder called ``name`` (a learner may call it anything), owned by ``uid``."""
    folder = inbound / name
    folder.mkdir()
    (folder / "timestamp.txt").write_text(when)
    (folder / f"{ASSIGNMENT}.ipynb").write_text(answer)
    for path in (folder, *folder.iterdir()):
        os.lchown(path, uid, uid)
    return folder


def course_and_exchange(folder: Path, collect: str | None = None) -> tuple[Path, Path]:
    """A course whose nbgrader settings name the exchange beside it (and ``collect``), and the
    exchange's inbound folder; anyone may write the exchange, as nbgrader's docs ask."""
    course, root = folder / "course", folder / "exchange"
    inbound = root / "packlab" / "inbound"
    inbound.mkdir(parents=True)
    root.chmod(0o1777)
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.CourseDirectory.course_id = 'packlab'\n"
        f"c.Exchange.root = {str(root)!r}\n"
        + (f"c.ExchangeFactory.collect = {collect!r}\n" if collect else "")
        + "c.OwnedCollect.uids = 'name'\n")
    return course, inbound


def exchange(tmp_path: Path, collect: str | None) -> tuple[Path, Path]:
    """A course and an exchange with four hand-ins: ada's own, a later one named for ada that
    bo wrote, bo's own, and cy's holding a link. The course's settings name ``collect``."""
    if os.geteuid() != 0:
        impossible("giving files to other uids needs root")
    course, inbound = course_and_exchange(tmp_path, collect)
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


HOSTILE_TIME = "[bold red]<i>\nx[link=y]"  # markup, HTML and a newline, as a folder name holds


def unreadable_exchange(folder: Path) -> tuple[Path, dict[str, tuple[str, str]]]:
    """A course and an exchange where learners wrote hand-ins nbgrader cannot collect beside
    the good ones of ada, bo and fay: ada's named with no time, bo's with a time part full of
    markup and a newline, cy's with an empty time part, di's holding a pipe, eve's whose
    timestamp.txt is no time, gil's whose notebook only its owner (and root) may read. The
    course, and the bad hand-ins: name, and whose and why."""
    course, inbound = course_and_exchange(folder)
    made = run(["python", "-c", "from nbgrader.api import Gradebook; "
                "Gradebook('sqlite:///gradebook.db', course_id='packlab').close()"], course)
    assert made.returncode == 0, made.stderr  # the course's gradebook, as formgrader's has one
    for learner in ("ada", "bo", "fay"):
        hand_in(inbound, learner, EARLY, name_uid(learner), f"{learner}'s own")
    bad = {}
    for learner, time_part in (("ada", "notatime"), ("bo", HOSTILE_TIME), ("cy", "")):
        name = f"{learner}+{ASSIGNMENT}+{time_part}" + ("+x" if time_part else "")
        folder_named(inbound, name, EARLY, name_uid(learner), "no time")
        bad[name] = (learner, f"its name's time part {time_part!r} is not a time nbgrader "
                              "can read")
    piped = hand_in(inbound, "di", EARLY, name_uid("di"), "di's")
    os.mkfifo(piped / "pipe")
    os.lchown(piped / "pipe", name_uid("di"), name_uid("di"))
    bad[piped.name] = ("di", "pipe is not a file")
    untimed = hand_in(inbound, "eve", EARLY, name_uid("eve"), "eve's")
    (untimed / "timestamp.txt").write_text("[red]soon</td>")
    bad[untimed.name] = ("eve", "its timestamp.txt holds no time nbgrader can read")
    closed = hand_in(inbound, "gil", EARLY, name_uid("gil"), "gil's own")
    (closed / f"{ASSIGNMENT}.ipynb").chmod(0o600)  # root may read it; an instructor may not
    bad[closed.name] = ("gil", f"{ASSIGNMENT}.ipynb cannot be read by this account")
    return course, bad


# The ordinary user's runs take their turn with every other test that acts as that user.
WHO = ["root", pytest.param("an ordinary user", marks=pytest.mark.xdist_group(as_user.GROUP))]


def collect(who: str, course: Path, *options: str) -> subprocess.CompletedProcess:
    """Real `nbgrader collect ASSIGNMENT`, by root or by the ordinary user who owns ``course``."""
    if who == "root":
        return run(["nbgrader", "collect", *options, ASSIGNMENT], course)
    return as_user.run_as_user("from nbgrader.apps.nbgraderapp import main; main()",
                               "collect", *options, ASSIGNMENT, cwd=course)


# formgrader's "Collect submissions": nbgrader's own API, as its handler calls it (update=True).
FORMGRADER_COLLECT = """
import json, pathlib
from nbgrader.apps.api import NbGraderAPI
from autograder.run.nbgrader_course import commands_config
result = NbGraderAPI(config=commands_config(pathlib.Path.cwd())).collect({assignment!r})
print(json.dumps(result))
"""


@pytest.mark.parametrize("who", WHO)
def test_a_hand_in_nbgrader_cannot_read_is_set_aside_and_the_class_collected(tmp_path, who):
    """A learner may write anything into the inbound folder. nbgrader's own collect stops at a
    folder whose name's time part is no time, for the whole class. The hub's collect sets each
    hand-in it cannot collect aside (a name with no time, one holding a pipe, one whose
    timestamp.txt is no time, one the collecting account may not read), names it escaped
    (markup, HTML and a newline shown as written), and collects everyone else: by `nbgrader
    collect`, again with --update, and by formgrader's own API. Run by root, and by an
    ordinary user who owns the course."""
    if os.geteuid() != 0:
        impossible("giving files to other uids needs root")
    folder = tmp_path if who == "root" else as_user.folder()
    try:
        course, bad = unreadable_exchange(folder)
        collected = ["ada", "bo", "fay"]
        if who == "root":  # root reads gil's
            del bad[next(name for name, (learner, _) in bad.items() if learner == "gil")]
            collected.append("gil")
        else:
            as_user.give(course)
        plain = collect(who, course)
        assert plain.returncode != 0 and "ParserError" in plain.stderr, plain.stderr
        assert not (course / "submitted").exists()  # no one's was collected

        with (course / "nbgrader_config.py").open("a") as config:
            config.write("c.ExchangeFactory.collect = "
                         "'autograder.glue.exchange.OwnedCollect'\n")
        for options in ([], ["--update"]):
            done = collect(who, course, *options)
            said = done.stdout + done.stderr
            assert done.returncode != 0, said
            assert "Traceback" not in said and HOSTILE_TIME not in said, said
            assert f"{len(bad)} hand-in(s) of '02-greedy-pack' not collected" in said, said
            for name, (learner, why) in bad.items():
                assert f"{name!r}, handed in as {learner!r}: {why}" in said, said
            submitted = course / "submitted"
            assert sorted(os.listdir(submitted)) == collected, said
            for learner in collected:
                notebook = submitted / learner / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
                assert notebook.read_text() == f"{learner}'s own"

        code = FORMGRADER_COLLECT.format(assignment=ASSIGNMENT)
        answered = run(["python", "-c", code], course) if who == "root" else \
            as_user.run_as_user(code, cwd=course)
        result = json.loads(answered.stdout.splitlines()[-1])
        assert result["success"] is False, result
        assert all(repr(name) in result["error"] for name in bad), result["error"]
        assert sorted(os.listdir(course / "submitted")) == collected
    finally:
        if folder != tmp_path:
            shutil.rmtree(folder, ignore_errors=True)


def forged_class(folder: Path, released: Path) -> tuple[Path, dict[str, str]]:
    """A released course (02 in its gradebook) whose class nbgrader's own collect took from an
    exchange holding forgeries: ada's own hand-in (the solution) and a later one named for ada
    that bo wrote (the starter), under a name full of markup; bo's own; cy's holding a link.
    The course and the names of the hand-ins, by whose they are."""
    course, root = folder / "course", folder / "exchange"
    shutil.copytree(released, course)
    inbound = root / "packlab" / "inbound"
    inbound.mkdir(parents=True)
    root.chmod(0o1777)  # as nbgrader's exchange is: anyone may write it
    with (course / "nbgrader_config.py").open("a") as config:
        config.write(f"c.Exchange.root = {str(root)!r}\nc.OwnedCollect.uids = 'name'\n")
    solution = nbformat.writes(with_answer(EXERCISE, None))
    starter = EXERCISE.release.read_text()
    names = {"ada": hand_in(inbound, "ada", EARLY, name_uid("ada"), solution).name,
             "forged": hand_in(inbound, "ada", LATE, name_uid("bo"), starter,
                               "[bold red]<i>x[link=y]").name,
             "bo": hand_in(inbound, "bo", EARLY, name_uid("bo"), starter).name}
    linked = hand_in(inbound, "cy", EARLY, name_uid("cy"), solution)
    (linked / "secret.txt").symlink_to("/etc/hostname")
    os.lchown(linked / "secret.txt", name_uid("cy"), name_uid("cy"))
    names["cy"] = linked.name
    collected = run(["nbgrader", "collect", ASSIGNMENT], course)
    assert collected.returncode == 0, collected.stderr
    assert (course / "submitted" / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text() \
        == starter  # nbgrader's own collect took bo's forgery as ada's
    # Then bo writes one named for ada that no collect can read (its time part is markup).
    names["unreadable"] = folder_named(inbound, f"ada+{ASSIGNMENT}+{HOSTILE_TIME}+z", EARLY,
                                       name_uid("bo"), starter).name
    return course, names


@pytest.mark.slow
@pytest.mark.parametrize("who", WHO)
def test_packlab_grade_sets_aside_what_nbgrader_s_own_collect_took_from_a_forger(
        tmp_path, released_greedy_pack, who):
    """`packlab grade` after nbgrader's own collect grades the class but the forgeries: bo's
    hand-in named for ada is taken out of the submitted folder (kept in graded/set-aside/) and
    ada's own is collected in its place and graded; cy's, holding a link, is set aside with
    nothing in its place. Each is named in the terminal (escaped), in grades.csv and summary.md;
    nothing of cy's goes into the gradebook; the exit status is 1. A hand-in named for ada that
    no collect can read (its name's time part is markup and a newline) is named, escaped, and
    stops nothing. Run by root, and by an ordinary user who owns the course (the exchange's
    hand-ins owned by the learners' uids)."""
    if os.geteuid() != 0:
        impossible("giving files to other uids needs root")
    folder = tmp_path if who == "root" else as_user.folder()
    try:
        course, names = forged_class(folder, released_greedy_pack)
        if who == "root":
            done = run(["packlab", "grade", "submitted", "--out", "graded"], course)
        else:
            as_user.give(course)
            done = as_user.run_as_user("from packlab.course.cli import main; "
                                       "raise SystemExit(main())", "grade", "submitted",
                                       "--out", "graded", cwd=course)
        said = " ".join(done.stdout.split())
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr
        assert "Set aside: 2 submission(s) came from a hand-in that another account wrote" in said
        assert f"ada / {ASSIGNMENT}: the hand-in {names['forged']!r} was set aside: . was " \
            f"written by uid {name_uid('bo')}" in said  # its markup shown as it is
        assert f"graded instead: their own hand-in {names['ada']!r}" in said, done.stderr
        assert "secret.txt is a link" in said and "nothing of their own was collected" in said
        assert "Not collected: 1 hand-in(s) in the exchange's inbound folder" in said
        assert f"{names['unreadable']!r}: its name's time part {HOSTILE_TIME!r} is not a time" \
            in said and HOSTILE_TIME not in done.stdout  # its newline shown as \\n

        submitted, graded = course / "submitted", course / "graded"
        assert (submitted / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text() == \
            (folder / "exchange" / "packlab" / "inbound" / names["ada"] /
             f"{ASSIGNMENT}.ipynb").read_text()
        assert not (submitted / "cy" / ASSIGNMENT).exists()
        kept = graded / "set-aside"
        assert (kept / "ada" / ASSIGNMENT / names["forged"] / f"{ASSIGNMENT}.ipynb").read_text() \
            == EXERCISE.release.read_text()
        assert (kept / "cy" / ASSIGNMENT / names["cy"] / "secret.txt").is_file()  # followed

        with (graded / "grades.csv").open(newline="", encoding="utf-8") as handle:
            rows = {row["student"]: row for row in csv.DictReader(handle)}
        assert rows["ada"]["status"] == "graded"
        assert rows["ada"]["score"] == rows["ada"]["max_score"] == str(EXERCISE.max_score)
        assert f"the hand-in {names['forged']!r} was set aside" in rows["ada"]["reason"]
        assert rows["bo"]["status"] == "graded" and rows["bo"]["score"] == "0"
        assert rows["cy"]["status"] == "set aside" and rows["cy"]["score"] == "0"
        assert "secret.txt is a link" in rows["cy"]["reason"]
        summary = (graded / "summary.md").read_text()
        assert "1 set aside as forged" in summary and "SET ASIDE: 2 submissions" in summary
        assert for_markdown(repr(names["forged"])) in summary and "<i>" not in summary

        with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="packlab") as gb:
            written = {s.student_id: s.score for s in
                       gb.find_assignment(ASSIGNMENT).submissions}
        assert written == {"ada": EXERCISE.max_score, "bo": 0}, written  # nothing of cy's

        again = run(["packlab", "grade", "submitted", "--out", "graded"], course) \
            if who == "root" else None
        if again is not None:  # a second run grades nothing again and still names them
            assert again.returncode == 1, again.stdout
            assert "Set aside:" not in again.stdout and "SET ASIDE: 2 submissions" in \
                " ".join(again.stdout.split())
    finally:
        if folder != tmp_path:
            shutil.rmtree(folder, ignore_errors=True)


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


def test_the_record_of_what_was_set_aside_marks_the_rows_on_every_run(tmp_path):
    """OUT's record, read again: a graded row says what was set aside, a row with nothing
    handed in becomes `set aside`, a forgery whose row is gone gets one; an unreadable record
    marks nothing."""
    graded = {"student": "ada", "assignment": ASSIGNMENT, "score": 5, "max_score": 5,
              "status": "graded", "reason": ""}
    empty = {**graded, "student": "cy", "score": 0, "status": "not graded",
             "reason": NO_SUBMISSION}
    set_aside.record(tmp_path, [SetAside("ada", ASSIGNMENT, "ada+x", "it was bo's", "ada+own"),
                                SetAside("cy", ASSIGNMENT, "cy+x", "a link"),
                                SetAside("di", ASSIGNMENT, "di+x", "it was bo's")])
    set_aside.record(tmp_path, [SetAside("cy", ASSIGNMENT, "cy+x", "a link")])  # once only
    found = set_aside.read(tmp_path)
    assert len(found) == 3
    rows = {r["student"]: r for r in set_aside.marked([graded, empty], found, lambda _: 5)}
    assert rows["ada"]["status"] == "graded"
    assert rows["ada"]["reason"] == rows["ada"]["set_aside"] == (
        "the hand-in 'ada+x' was set aside: it was bo's, so it may be forged; graded instead: "
        "the learner's own hand-in 'ada+own'")
    assert rows["cy"]["status"] == rows["di"]["status"] == SET_ASIDE
    assert rows["di"]["max_score"] == 5 and "nothing graded" in rows["di"]["reason"]
    (tmp_path / "set-aside" / "set-aside.json").write_text("[{\"student\": 1}]")
    assert set_aside.read(tmp_path) == []


@given(st.text(st.characters(blacklist_characters="/\0"), max_size=40)
       | st.from_regex(r"2026-12-01 1\d:[0-5]\d:[0-5]\d(\.\d{1,6})?( [A-Z+0-9:-]{0,6})?",
                       fullmatch=True))
def test_a_name_is_unreadable_exactly_when_nbgrader_cannot_read_it(time_part):
    """The hub's collect sets aside exactly the names on which nbgrader's own would fail."""
    name = f"ada+{ASSIGNMENT}+{time_part}+x"
    def fail(message: str) -> None:  # nbgrader's Exchange.fail, without its log
        raise ValueError(message)

    try:
        ExchangeCollect._path_to_record(SimpleNamespace(fail=fail), f"/inbound/{name}")
        read = True
    except Exception:  # whatever nbgrader's own reading raises
        read = False
    assert (unreadable_name(name) is None) == read
