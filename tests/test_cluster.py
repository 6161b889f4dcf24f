"""`packlab grade --scheduler`: the same sandboxed grading on a real Dask cluster (a LocalCluster
of two worker processes), byte for byte what a local run gives; a cluster that cannot grade as
this machine would is refused before anything is graded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import EXERCISES, submit, undated, with_answer

from autograder.checks import gallery
from autograder.checks.suite import Failure, Misconception
from autograder.cohort import cluster
from autograder.cohort.classroom import grade_class
from autograder.cohort.record import Graded
from autograder.cohort.task import Task
from autograder.run.engine import GroupScore, Result
from autograder.run.isolation import Limits
from packlab.manifest import MANIFEST

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

# The module's fixtures are built once only if its tests share one xdist worker.
pytestmark = pytest.mark.xdist_group("cluster")

BIN = Path(sys.executable).parent
OPTIONS = ["--call-seconds", "1", "--setup-seconds", "5"]
FIRST, SECOND = EXERCISES[0], EXERCISES[1]


def packlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "packlab"), *args], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def scheduler():
    """The module's cluster: two workers, shared by its tests (starting one costs seconds)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def submitted(tmp_path_factory) -> Path:
    """Three students, two assignments: right, wrong (gallery), syntax error, endless loop."""
    root = tmp_path_factory.mktemp("class") / "submitted"
    mutant = next(m for m in gallery.every() if m.suite == FIRST.suite and m.key != FIRST.starter)
    submit(root, "ada", FIRST, with_answer(FIRST, None))
    submit(root, "ada", SECOND, with_answer(SECOND, None))
    submit(root, "bo", FIRST, with_answer(FIRST, mutant.code))
    submit(root, "bo", SECOND, with_answer(SECOND, f"def {SECOND.function}(parts, budget)\n"
                                                   "    return []\n"))
    submit(root, "cy", FIRST, with_answer(FIRST, f"def {FIRST.function}(parts):\n"
                                                 "    while True:\n        pass\n"))
    submit(root, "cy", SECOND, "{ this is not a notebook")
    return root


@pytest.fixture(scope="module")
def graded(submitted, scheduler) -> tuple[Path, Path, subprocess.CompletedProcess]:
    """The class graded here (--jobs 2) and on the cluster, through the real command."""
    here, there = submitted.parent / "here", submitted.parent / "there"
    packlab("grade", str(submitted), "--out", str(here), "--jobs", "2", *OPTIONS)
    done = packlab("grade", str(submitted), "--out", str(there), "--scheduler", scheduler,
                   "--jobs", "2", *OPTIONS)
    return here, there, done


def test_the_cluster_grades_as_this_machine_does(graded):
    here, there, done = graded
    assert done.returncode == 1, done.stdout + done.stderr  # a broken notebook: not graded
    assert "--jobs is ignored with --scheduler" in done.stdout
    assert (there / "grades.csv").read_bytes() == (here / "grades.csv").read_bytes()
    assert (there / "summary.md").read_bytes() == (here / "summary.md").read_bytes()
    ours = sorted(p.relative_to(here) for p in (here / "students").rglob("*") if p.is_file())
    theirs = sorted(p.relative_to(there) for p in (there / "students").rglob("*") if p.is_file())
    assert ours == theirs and any(p.name == "results.json" for p in ours)
    for name in ours:
        if name.name == "graded.json":  # the same but for when each was graded
            assert {**json.loads((there / name).read_text()), "graded_at": ""} == \
                {**json.loads((here / name).read_text()), "graded_at": ""}, name
            continue
        if name.name == "results.json":  # the same but for when each attempt was graded
            assert undated((there / name).read_text()) == undated((here / name).read_text()), name
            continue
        assert (there / name).read_bytes() == (here / name).read_bytes(), name
    grades = (there / "grades.csv").read_text()
    assert "packlab-submission-" not in "".join(
        p.read_text() for p in (there / "students").rglob("*.json"))
    assert f"ada,{FIRST.name},{FIRST.max_score},{FIRST.max_score},graded" in grades
    assert "endless loop" in (there / "students" / "cy" / FIRST.name / "results.json").read_text()


def test_an_unreachable_scheduler_is_a_plain_message(submitted, tmp_path):
    done = packlab("grade", str(submitted), "--out", str(tmp_path / "out"),
                   "--scheduler", "tcp://127.0.0.1:9")
    assert done.returncode == 2
    assert "Cannot reach the Dask scheduler at tcp://127.0.0.1:9" in done.stdout
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def test_a_notebook_too_large_to_send_is_not_graded_here(tmp_path, monkeypatch):
    path = submit(tmp_path, "ada", FIRST, with_answer(FIRST, None))
    monkeypatch.setattr(cluster, "SHIPPED_BYTES", path.stat().st_size - 1)
    future = cluster.submit(None, Task("ada", FIRST.name, path), Limits(), True, None)
    assert "too large to send" in future.result().result.error  # no executor: never sent


def test_a_worker_needs_no_shared_folder(scheduler, tmp_path):
    path = submit(tmp_path, "ada", FIRST, with_answer(FIRST, None))
    elsewhere = tmp_path / "not-on-the-worker" / path.name  # the task names a path it never reads
    parcel = cluster.Parcel(Task("ada", FIRST.name, elsewhere), path.read_bytes())
    with distributed.Client(scheduler, set_as_default=False) as client:
        graded = client.submit(cluster.grade_parcel, parcel, Limits(), True, None,
                               cluster.fingerprint(), pure=False).result(timeout=120)
    assert (graded.result.error, graded.result.score) == (None, FIRST.max_score)


@pytest.fixture
def other_course(scheduler, tmp_path):
    """A third worker, started with a course.toml whose points differ."""
    toml = tmp_path / "course.toml"
    toml.write_text(MANIFEST.read_text().replace(
        "points = { visible = 1, edge-cases = 1, properties = 1 }",
        "points = { visible = 1, edge-cases = 1, properties = 9 }", 1))
    assert toml.read_text() != MANIFEST.read_text()
    with distributed.Client(scheduler, set_as_default=False) as client:
        before = set(client.scheduler_info(n_workers=-1)["workers"])
        worker = subprocess.Popen(
            [str(BIN / "dask"), "worker", scheduler, "--nthreads", "1", "--no-dashboard",
             "--no-nanny"], env={**os.environ, "PACKLAB_COURSE_TOML": str(toml)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client.wait_for_workers(len(before) + 1, timeout=120)
            (address,) = set(client.scheduler_info(n_workers=-1)["workers"]) - before
            yield client, address
        finally:
            worker.terminate()
            worker.wait(timeout=60)
            until_only(client, before)


def until_only(client, workers: set[str], seconds: float = 60) -> None:
    """Wait until the scheduler has let go of every worker but ``workers``: a later test of the
    module's cluster expects its own two."""
    deadline = time.monotonic() + seconds
    while set(client.scheduler_info(n_workers=-1)["workers"]) != workers:
        assert time.monotonic() < deadline, client.scheduler_info(n_workers=-1)["workers"]
        time.sleep(0.1)


def test_a_worker_with_another_course_is_refused(submitted, scheduler, other_course, tmp_path):
    client, address = other_course
    done = packlab("grade", str(submitted), "--out", str(tmp_path / "out"),
                   "--scheduler", scheduler, *OPTIONS)
    assert done.returncode == 2, done.stdout
    said = " ".join(done.stdout.split())
    assert "Not grading" in said and "its course.toml (lessons, exercises, points, dates) " \
        "differs from this machine's: course.toml" in said, said
    assert "grader's code" not in said  # only what differs is named
    assert address in done.stdout.replace("\n", "")
    assert not (tmp_path / "out").exists()

    # A task that reaches such a worker anyway (it joined after the check) is not graded there.
    path = submit(tmp_path, "ada", FIRST, with_answer(FIRST, None))
    parcel = cluster.Parcel(Task("ada", FIRST.name, path), path.read_bytes())
    future = client.submit(cluster.grade_parcel, parcel, Limits(), True, None,
                           cluster.fingerprint(), workers=[address], pure=False)
    with pytest.raises(cluster.WorkerDiffers, match=r"cannot grade it: its course\.toml "
                       r"\(lessons, exercises, points, dates\) differs from the instructor's"):
        future.result(timeout=120)


def test_a_difference_names_the_part_and_its_files():
    ours = cluster.fingerprint()["files"]
    theirs = {**ours, "grader code": {**ours["grader code"],
                                             "autograder/checks/suites/pack.py": "0"}}
    del theirs["grader code"]["autograder/escape.py"]
    theirs["grader code"]["autograder/extra.py"] = "1"
    said = cluster.describe("grader code", ours, theirs)
    assert said == ("its grader's code (autograder/) differs from this machine's: "
                    "autograder/checks/suites/pack.py, autograder/escape.py (not on the "
                    "worker), autograder/extra.py (not on this machine)")
    assert cluster.describe("Python", "3.11", "3.12") == "it has Python 3.12, this machine 3.11"


def test_a_worker_that_does_not_answer_the_check_is_named_and_nothing_is_graded(scheduler):
    """A worker whose event loop is stuck (here: busy in a sleep twice the check's time) would
    hang the check until it woke, and then be let through; it is refused by its address once
    the check's time is up."""
    with distributed.Client(scheduler, set_as_default=False) as client:
        stuck, free = sorted(client.scheduler_info(n_workers=-1)["workers"])

        async def block_the_event_loop():
            time.sleep(10)

        client.run(cluster.worker_state, True)  # the free one answers at once when asked again
        client.run(block_the_event_loop, workers=[stuck], wait=False)
        with pytest.raises(cluster.ClusterUnavailable) as refused, \
                cluster.connected(scheduler, True, check_timeout=5):
            pytest.fail("a stuck worker was not refused")
        client.run(os.getpid, workers=[stuck])  # awake again, for the module's later tests
    said = str(refused.value)
    assert f"worker {stuck} cannot run packlab's grader (TimeoutError: it did not answer " \
           "within 5 s; restart it)" in said, said
    assert free not in said


def test_no_worker_folder_reaches_the_results(tmp_path):
    folder = "/tmp/packlab-submission-x1"
    failure = Failure("check", f"pack({folder!r})", "[]", "['a']",
                      Misconception("m", f"read {folder}/02.ipynb", "02-greedy-pack"))
    result = Result("ada", FIRST.name, notes=[f"{folder}/02.ipynb"],
                    groups=[GroupScore("visible", "", True, 0, 1, [], [failure])])
    shown = cluster._replaced(Graded(result, []), folder, "/class/ada/02")
    assert folder not in repr(shown) and shown.result.notes == ["/class/ada/02/02.ipynb"]
    assert shown.result.groups[0].failures[0].misconception.text == "read /class/ada/02/02.ipynb"


def test_a_worker_killed_mid_task_leaves_that_submission_for_the_next_run(tmp_path):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "bo", FIRST, with_answer(FIRST, f"import time\ndef {FIRST.function}(p):\n"
                                                      "    time.sleep(600)\n"))
    folder = out / "students" / "bo" / FIRST.name
    slow = Limits(call_seconds=300, submission_seconds=600)
    cluster.fingerprint.cache_clear()  # this process's, as a fresh `packlab grade` would have it
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=":0") as local, \
            distributed.Client(local, set_as_default=False) as client, \
            ThreadPoolExecutor(1) as background:
        grading = background.submit(grade_class, submitted, out, limits=slow,
                                    scheduler=local.scheduler_address)
        while not any(client.processing().values()):
            assert not grading.done(), grading.result()
            time.sleep(0.2)
        for pid in client.run(os.getpid).values():
            os.kill(pid, signal.SIGKILL)
        (row,) = grading.result(timeout=300)
        assert row["status"] == "not graded"
        assert "grading stopped before it finished (KilledWorker)" in row["reason"]
        assert not (folder / "graded.json").exists()  # not recorded: graded again next time
        client.wait_for_workers(1, timeout=120)  # the nanny starts a fresh worker
        (row,) = grade_class(submitted, out, limits=Limits(call_seconds=1, setup_seconds=5),
                             scheduler=local.scheduler_address)
    assert row["status"] == "graded" and (folder / "graded.json").exists()
