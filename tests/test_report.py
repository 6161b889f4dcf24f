"""What grading writes: the class picture and summary, Gradescope's schema, safe feedback pages."""

from __future__ import annotations

import json
import struct
import subprocess
import sys

from conftest import EXERCISES, ROOT, submit, with_answer

from autograder.checks import gallery
from autograder.checks.suite import Failure, Misconception
from autograder.cohort import report, summary
from autograder.cohort.classroom import grade_class
from autograder.run.engine import GroupScore, Result
from autograder.run.isolation import Limits

FAST = Limits(call_seconds=1.0, setup_seconds=5.0)
EXERCISE = EXERCISES[1]  # 02-greedy-pack
BREAK = gallery.load("pack/break_at_first_miss")


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_class_picture_summary_and_data(tmp_path):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", EXERCISE, with_answer(EXERCISE, None))
    submit(submitted, "bo", EXERCISE, with_answer(EXERCISE, BREAK.code))
    submit(submitted, "cy", EXERCISE, with_answer(EXERCISE, BREAK.code))
    submit(submitted, "dee", EXERCISE, "{ not a notebook")
    rows = grade_class(submitted, out, jobs=2, limits=FAST)

    width, height = png_size(out / "class.png")
    assert width >= 800 and height >= 300
    assert (out / "class.png").stat().st_size > 20_000  # drawn, not an empty canvas

    data = json.loads((out / "class.json").read_text())[EXERCISE.name]
    assert sorted(data["scores"]) == sorted(r["score"] for r in rows if r["status"] == "graded")
    assert data["not_graded"] == 1
    assert data["misconceptions"]["break-at-first-miss"] == 2
    assert summary.top_misconception(data) == ("break-at-first-miss", 2)
    assert data["groups"]["visible"] == {"passed": 1, "graded": 3}

    text = summary.summary(rows)
    assert text.startswith("Graded 3 of 4 submissions; mean ")
    assert "1 could not be graded" in text
    assert f"not graded: dee / {EXERCISE.name}: the notebook could not be read" in text
    markdown = (out / "summary.md").read_text()
    assert "break-at-first-miss: 2 students" in markdown
    assert f"{EXERCISE.name} · visible: 33% (1 of 3)" in markdown
    assert not list(out.glob(".*")), "temp files left in OUT"


def test_an_unchanged_class_keeps_its_picture_and_a_changed_one_is_drawn_again(tmp_path):
    """A regrade with nothing new keeps class.png as it is (the same bytes, not even
    rewritten); another student, or a picture not drawn from this class, gets a new one."""
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "ada", EXERCISE, with_answer(EXERCISE, None))
    grade_class(submitted, out, jobs=1, limits=FAST)
    picture = out / "class.png"
    first, stat = picture.read_bytes(), picture.stat()
    assert summary.drawn_from(picture) == summary.picture_stamp(
        json.loads((out / "class.json").read_text()))

    grade_class(submitted, out, jobs=1, limits=FAST)
    assert picture.read_bytes() == first and picture.stat().st_mtime_ns == stat.st_mtime_ns

    submit(submitted, "bo", EXERCISE, with_answer(EXERCISE, BREAK.code))
    grade_class(submitted, out, jobs=1, limits=FAST)
    second = picture.read_bytes()
    assert second != first and png_size(picture)[1] >= 300
    assert summary.drawn_from(picture) == summary.picture_stamp(
        json.loads((out / "class.json").read_text()))

    for foreign in (b"not a picture", first):  # damaged; drawn from another class
        picture.write_bytes(foreign)
        grade_class(submitted, out, jobs=1, limits=FAST)
        assert picture.read_bytes() == second
    assert not list(out.glob(".*")), "temp files left in OUT"


def test_a_regrade_with_nothing_new_does_not_import_matplotlib(tmp_path):
    """matplotlib is most of the CPU of `packlab grade` on a class that did not change (its
    import and the drawing: 1.1-1.2 CPU-s in all, 0.6 without): not paid when the picture is
    kept."""
    submit(tmp_path / "sub", "ada", EXERCISE, with_answer(EXERCISE, None))
    argv = ["grade", str(tmp_path / "sub"), "--out", str(tmp_path / "out")]
    code = ("import sys\nfrom packlab.course.cli import main\n"
            f"code = main({argv!r})\n"
            "print(code, 'matplotlib' in sys.modules)\n")
    said = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=ROOT, check=True).stdout.splitlines()[-1] for _ in range(2)]
    assert said == ["0 True", "0 False"]


def test_summary_counts_missing_submissions_without_listing_them():
    rows = [
        {"student": "a", "assignment": "x", "score": 4, "max_score": 5, "status": "graded",
         "reason": ""},
        {"student": "b", "assignment": "x", "score": 0, "max_score": 5, "status": "not graded",
         "reason": "no submission"},
    ]
    assert summary.summary(rows) == "Graded 1 of 2 submissions; mean 80%. 1 not handed in."
    assert summary.summary([]) == "Graded 0 of 0 submissions; mean 0%."


TEST_FIELDS = {"name": str, "score": int, "max_score": int, "status": str, "output": str,
               "visibility": str}


def check_gradescope(data: dict) -> None:
    """Gradescope's results.json: score, output, tests[] with their fields and allowed values."""
    assert isinstance(data["score"], int | float) and isinstance(data["output"], str)
    for test in data["tests"]:
        assert set(TEST_FIELDS) <= set(test)
        for name, kind in TEST_FIELDS.items():
            assert isinstance(test[name], kind), (name, test[name])
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in ("hidden", "after_due_date", "after_published", "visible")
        assert 0 <= test["score"] <= test["max_score"]
    assert data["score"] == sum(t["score"] for t in data["tests"])
    json.dumps(data, allow_nan=False)


def test_results_json_follows_gradescope_schema(tmp_path):
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "bo", EXERCISE, with_answer(EXERCISE, BREAK.code))
    submit(submitted, "cy", EXERCISE, "")
    grade_class(submitted, out, jobs=1, limits=FAST)

    graded = json.loads((out / "students" / "bo" / EXERCISE.name / "results.json").read_text())
    check_gradescope(graded)
    assert [t["name"] for t in graded["tests"]] == [report.GROUP_TITLES[g]
                                                    for g in EXERCISE.points]
    assert [t["max_score"] for t in graded["tests"]] == list(EXERCISE.points.values())
    assert graded["tests"][0]["visibility"] == "visible"
    assert {t["visibility"] for t in graded["tests"][1:]} == {"after_published"}
    failed = [t for t in graded["tests"] if t["status"] == "failed"]
    assert failed and all("this suggests:" in t["output"] for t in failed)
    assert graded["extra_data"]["error"] is None

    ungraded = json.loads((out / "students" / "cy" / EXERCISE.name / "results.json").read_text())
    check_gradescope(ungraded)
    assert ungraded["score"] == 0 and ungraded["tests"] == []
    assert ungraded["output"].startswith("Not graded: the notebook could not be read")
    assert ungraded["extra_data"]["max_score"] == EXERCISE.max_score


def test_feedback_escapes_names_and_output():
    evil = "<script>alert(1)</script>"
    misconception = Misconception("x", "uses <b>bold</b> & more", "02-priority-then-greedy")
    failure = Failure(f"check {evil}", f"pack({evil!r}, 3)", f"'{evil}'", "[]", misconception)
    group = GroupScore("visible", f"desc {evil}", True, 0, 1, [f"passed {evil}"], [failure])
    result = Result(evil, EXERCISE.name, 0, 5, [group], notes=[f"note {evil}"],
                    output=f"printed {evil}\n")
    page = report.feedback_html(result)
    assert "<script>" not in page and "<b>bold</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "uses &lt;b&gt;bold&lt;/b&gt; &amp; more" in page


def test_student_folder_names_are_escaped_in_feedback(tmp_path):
    """Student ids come from folder names, which may hold HTML."""
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    student = "<img src=x onerror=alert(1)>"
    submit(submitted, student, EXERCISE, with_answer(EXERCISE, "print('<i>hi</i>')\n"
                                                      + BREAK.code))
    rows = grade_class(submitted, out, jobs=1, limits=FAST)
    assert rows[0]["student"] == student
    page = (out / "students" / student / EXERCISE.name / "feedback.html").read_text()
    assert "<img" not in page and "<i>hi</i>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;i&gt;hi&lt;/i&gt;" in page


def test_results_json_records_each_misconception_with_its_shortest_call():
    """What a rerun needs to rebuild the class's misconception analytics: per misconception its
    text, its lesson and the submission's shortest failing call, bounded."""
    from autograder.cohort.misconceptions import EXAMPLE_CHARS

    wrong = Misconception("break-at-first-miss", "stops early", "03-the-early-stop-trap")
    calls = ["pack([{'id': 'b'}], 9)", "pack([{'id': 'a'}], 9)", "pack(" + "x" * 5_000 + ")"]
    failures = [Failure(f"check {n}", call, "[]", "['a']", wrong) for n, call in enumerate(calls)]
    crash = Failure("crash", "pack(" + "y" * 5_000 + ")", "it raised", "['a']",
                    Misconception("crash", "it stops", "02-priority-then-greedy"))
    groups = [GroupScore("visible", "", True, 0, 1, [], failures[:2]),
              GroupScore("edge-cases", "", False, 0, 2, [], [failures[2], crash])]
    result = Result("ada", EXERCISE.name, 0, 5, groups)
    held = report.gradescope(result)["extra_data"]["misconceptions"]
    assert held[0] == {"key": "break-at-first-miss", "text": "stops early",
                       "lesson": "03-the-early-stop-trap", "example": "pack([{'id': 'a'}], 9)"}
    assert held[1]["key"] == "crash"
    assert held[1]["example"].startswith("pack(yyy") and "more characters were cut" in \
        held[1]["example"] and len(held[1]["example"]) < EXAMPLE_CHARS + 50
