"""A must-raise exercise (issue 34.5) goes from `packlab new-exercise --raises` to a graded class,
the author writing only into the files the guide names (the walk: tests/must_raise.py).

It needs no page of the guides' rehearsal, so it runs apart from it, in a course copy of its own,
on whichever worker is free (its own xdist group: the walk is made once).
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path

import must_raise as must_raise_walk
import pytest
from guide_walk import copy_course, environment, free_number

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("must-raise")]


def run(course: Path, command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", command], cwd=course, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def must_raise(tmp_path_factory) -> dict:
    """`must_raise.walk` in a fresh copy of the course, under the first free number."""
    course = copy_course(tmp_path_factory.mktemp("must-raise") / "course")
    name = f"{free_number(course / 'course.toml')}-{must_raise_walk.SLUG}"
    env = environment(course)
    done = must_raise_walk.walk(course, name, lambda command: run(course, command, env))
    return {"course": course, "name": name, "done": done}


def _results(course: Path, student: str, name: str) -> dict[str, str]:
    found = json.loads((course / "graded-raise" / "students" / student / name /
                        "results.json").read_text(encoding="utf-8"))
    return {test["name"]: test.get("output", "") for test in found["tests"]}


def test_a_must_raise_exercise_goes_from_the_scaffold_to_a_graded_class(must_raise):
    course, name, done = must_raise["course"], must_raise["name"], must_raise["done"]
    for step, ran in done.items():
        assert "Traceback" not in ran.stdout + ran.stderr, step
        assert ran.returncode == (1 if step == "first check" else 0), \
            f"{step}:\n{ran.stdout}\n{ran.stderr}"
    assert "FILL IN" in done["first check"].stdout
    assert f"{name}: ready." in " ".join(done["check"].stdout.split())
    rows = {row["student"]: row for row in
            csv.DictReader((course / "graded-raise" / "grades.csv").open(encoding="utf-8"))}
    assert (rows["ada"]["score"], rows["ada"]["max_score"]) == ("5", "5")
    assert all(rows[s]["score"] == "0" for s in ("bob", "eve", "cy", "dee"))
    named = {(row["student"], row["misconception"]) for row in
             csv.DictReader((course / "graded-raise" / "misconceptions.csv").open())}
    assert {("bob", "wrong-answer"), ("cy", "accepts-bad-input"),
            ("dee", "not started")} <= named
    cy = _results(course, "cy", name)["Visible tests"]
    assert "it raises ValueError, as the course's answer does" in cy


def test_the_author_wrote_only_into_the_files_the_guide_names(must_raise):
    """Whatever else changed in the course was made by the commands: the course.toml entry,
    the release, the recorded answers, the class and its grading."""
    course, name = must_raise["course"], must_raise["name"]
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=course, capture_output=True, text=True, check=True).stdout
    changed = {line[3:] for line in status.splitlines()}
    named = [str(p) for p in must_raise_walk.named_files(name)]
    made = ["course.toml", f"exercises/{name}/",
            f"autograder/checks/suites/recorded/{must_raise_walk.FUNCTION}.json",
            "class-raise/", "graded-raise/", "gradebook.db", ".cache/", ".home/"]
    others = {path for path in changed
              if not any(path == p or path.startswith(p.rstrip("/") + "/")
                         for p in named + made)}
    assert not others, others


def test_each_student_gets_their_own_hidden_edge_cases_and_counts_are_not_scaled(must_raise):
    course, name = must_raise["course"], must_raise["name"]
    calls = {}
    for student in ("bob", "eve"):  # the same wrong answer
        said = _results(course, student, name)["Hidden tests: edge cases"]
        calls[student] = re.search(r"the call:\s+(.*)", said).group(1)
        assert "one turn of three" in said and calls[student].endswith("], 1)"), said
    assert calls["bob"] != calls["eve"]
