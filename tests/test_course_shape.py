"""The course's shape allows what instructors do (issue 27.3): several exercises on one lesson,
an exercise without a lesson, a lesson without an exercise; the link is named once, in the
exercise's optional `lesson` key. And the scaffold's pieces that need no course copy: its answers
checked, its course.toml entry inserted with every comment kept, a suite without a required
misconception key refused with the key's name."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from conftest import COURSE

from autograder.checks.compare import (
    Compare,
    CompareOrRaise,
    MissingMisconception,
    Unchanged,
    outcome,
    vary_parts,
)
from autograder.checks.suite import (
    CheckFailed,
    Misconception,
    common_misconceptions,
    in_process_caller,
)
from packlab.course import book, course_map, workspace
from packlab.course.authoring import scaffold
from packlab.manifest import ROOT, load

HEAD = '[course]\ntitle = "t"\ntagline = "g"\n\n'
LESSONS = "".join(f'[[lessons]]\nslug = "{slug}"\ntitle = "Lesson {slug[:2]}"\n\n'
                  for slug in ("01-one", "02-two", "03-three"))


def exercise(name: str, lesson: str | None) -> str:
    where = f'lesson = "{lesson}"\n' if lesson else ""
    return (f'[[exercises]]\nname = "{name}"\n{where}function = "f{name[:2]}"\n'
            f'signature = "f{name[:2]}(x: int) -> int"\nsuite = "s"\n'
            'points = { visible = 1, edge-cases = 1, properties = 1 }\n'
            'teaches = "t"\nleaves_out = "l"\nhints = ["a?", "b", "c"]\n\n')


@pytest.fixture
def shaped(tmp_path):
    """Lesson 01 with two exercises, lesson 02 with none, lesson 03 with one, and an exercise
    that goes with no lesson."""
    path = tmp_path / "course.toml"
    path.write_text(HEAD + LESSONS + exercise("01-first", "01-one") + exercise(
        "01b-second", "01-one") + exercise("03-third", "03-three") + exercise("04-alone", None))
    return load(path)


def test_a_lesson_may_have_several_exercises_or_none(shaped):
    assert [e.name for e in shaped.exercises_of("01-one")] == ["01-first", "01b-second"]
    assert shaped.exercises_of("02-two") == ()
    assert [e.name for e in shaped.unattached] == ["04-alone"]


def test_the_course_map_shows_every_shape(shaped):
    rows = course_map.rows(shaped)
    assert len(rows) == 5  # two rows for lesson 01, one each for 02, 03 and the lone exercise
    assert "(lessons/01-one.ipynb)" in rows[0] and "(exercises/01-first/01-first.ipynb)" in rows[0]
    assert "lessons/" not in rows[1] and "(exercises/01b-second/01b-second.ipynb)" in rows[1]
    assert "(lessons/02-two.ipynb)" in rows[2] and "exercises/" not in rows[2]
    assert "(no lesson)" in rows[4] and "(exercises/04-alone/04-alone.ipynb)" in rows[4]
    assert "`f01(x) -> int`" in rows[0]


def test_the_start_page_and_the_book_list_every_exercise(shaped):
    start = workspace.start_page(shaped).cells[0].source
    toc = book.toc(shaped)
    for name in ("01-first", "01b-second", "03-third", "04-alone"):
        assert f"(exercises/{name}/{name}.ipynb)" in start
        assert f"file: exercises/{name}/{name}\n" in toc
    assert "(lessons/02-two.ipynb)" in start and "file: lessons/02-two\n" in toc


def test_a_hint_command_finds_its_exercise_when_two_share_a_number(shaped, monkeypatch):
    assert shaped.short_key(shaped.exercise("03-third")) == "03"
    assert shaped.short_key(shaped.exercise("01-first")) == "01-first"


def test_a_lesson_naming_its_exercise_is_refused_with_the_new_convention(tmp_path):
    path = tmp_path / "course.toml"
    path.write_text(HEAD + '[[lessons]]\nslug = "01-one"\ntitle = "x"\nexercise = "01-first"\n')
    with pytest.raises(ValueError, match="Put `lesson = .*` in the exercise's"):
        load(path)


def test_an_exercise_naming_an_unknown_lesson_is_refused(tmp_path):
    path = tmp_path / "course.toml"
    path.write_text(HEAD + LESSONS + exercise("01-first", "09-nine"))
    with pytest.raises(ValueError, match="'09-nine', which is no lesson's slug"):
        load(path)


def test_the_course_map_needs_its_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# A README without the markers\n")
    with pytest.raises(course_map.MapError, match="course-map:start"):
        course_map.current(COURSE, readme)
    readme.write_text(f"before\n{course_map.START}\nold\n{course_map.END}\nafter\n")
    assert course_map.write(COURSE, readme) and course_map.current(COURSE, readme)
    assert readme.read_text().startswith("before\n") and readme.read_text().endswith("\nafter\n")


# --- the scaffold's pieces ------------------------------------------------------------------

ANSWERS = scaffold.Answers(name="11-trim-history", function="trim_history",
                           signature="trim_history(turns: list[dict], budget: int) -> list[dict]",
                           points={"visible": 1, "edge-cases": 2, "properties": 2},
                           lesson="10-conversation-shapes")


def test_the_entry_goes_after_the_last_exercise_and_every_comment_stays():
    original = (ROOT / "course.toml").read_text(encoding="utf-8")
    written = scaffold.with_entry(original, scaffold.entry(ANSWERS))
    assert [line for line in written.splitlines() if line.startswith("#")] == [
        line for line in original.splitlines() if line.startswith("#")]
    data = tomllib.loads(written)
    assert data["exercises"][-1]["name"] == "11-trim-history"
    assert data["left_to_hidden"] == tomllib.loads(original)["left_to_hidden"]
    assert written.index('name = "11-trim-history"') < written.index("[left_to_hidden]")


def test_bad_answers_are_named_and_nothing_is_written(tmp_path):
    bad = scaffold.Answers(name="trim", function="trim-history", signature="trim(",
                           points={"visible": 1}, lesson="99-nothing")
    said = " ".join(scaffold.problems(bad, COURSE, tmp_path))
    for words in ("the name 'trim'", "'trim-history' is not a Python name",
                  "not a Python function signature", "there is no lesson '99-nothing'",
                  "three whole numbers"):
        assert words in said
    taken = scaffold.Answers(name="02-again", function="pack", signature="pack(parts)",
                             points=ANSWERS.points)
    assert any("numbered 02 is in course.toml" in p for p in scaffold.problems(
        taken, COURSE, ROOT))
    assert any("pack.py exists already" in p for p in scaffold.problems(taken, COURSE, ROOT))


def test_the_notebooks_grade_ids_and_intro_are_course_tomls():
    notebook = scaffold.notebook(ANSWERS, COURSE)
    graded = {c.metadata.nbgrader["grade_id"]: c.metadata.nbgrader.get("points")
              for c in notebook.cells if c.metadata.nbgrader["grade"]}
    assert graded == {"trim_history-visible": 1, "trim_history-edge-cases": 2,
                      "trim_history-properties": 2}
    intro = notebook.cells[0].source
    assert ANSWERS.teaches in intro and ANSWERS.leaves_out in intro
    assert "(../../lessons/10-conversation-shapes.ipynb)" in intro


def test_a_suite_without_a_required_misconception_key_says_which():
    table = common_misconceptions("02-priority-then-greedy")
    with pytest.raises(MissingMisconception, match="no 'mutates-input' entry"):
        Compare(function="pack", misconceptions=table, expected=len, diagnose=lambda a, g: None)
    table["mutates-input"] = Misconception("mutates-input", "x", "02-priority-then-greedy")
    Compare(function="pack", misconceptions=table, expected=len, diagnose=lambda a, g: None)


def test_new_exercise_without_a_terminal_names_the_missing_flags():
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "new-exercise",
                           "--name", "11-x"], cwd=ROOT, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    said = " ".join(done.stdout.split())
    assert done.returncode == 2 and "give --function, --signature, --points" in said, said


def test_new_exercise_refuses_to_write_into_another_folders_course(tmp_path):
    done = subprocess.run([sys.executable, "-m", "packlab.course.cli", "new-exercise"],
                          cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    said = " ".join(done.stdout.split())
    assert done.returncode == 2 and "writes into the course at" in said, said


def test_the_scaffold_leaves_count_arguments_out_of_the_variation():
    assert scaffold.counts("pick(parts: list[dict], cap: int, top_k: int) -> list") == {
        1: "cap", 2: "top_k"}
    assert scaffold.counts("pack(parts: list[dict], budget: int, reserve: int = 0, "
                           "max_tokens: int = 5) -> list") == {}


def test_vary_parts_scales_tokens_and_budgets_but_never_a_count():
    import random

    parts = [{"id": "a", "tokens": 3}, {"id": "b", "tokens": 4}]
    varied = vary_parts(random.Random(1), [parts, 10, 1], counts=(2,))
    factor = varied[1] // 10
    assert factor >= 2 and varied[1] == 10 * factor and varied[2] == 1
    assert [p["tokens"] for p in varied[0]] == [3 * factor, 4 * factor]
    prefix = varied[0][0]["id"][:-1]
    assert prefix.endswith("-") and varied[0][1]["id"] == prefix + "b"


def _table(lesson: str = "02-priority-then-greedy") -> dict:
    table = common_misconceptions(lesson)
    table["mutates-input"] = Misconception("mutates-input", "x", lesson)
    return table


def test_a_changed_argument_is_shown_before_and_after():
    def empties(parts, ids):
        ids.clear()
        return parts

    judge = Compare(function="keep", misconceptions=_table(), expected=lambda parts, ids: parts,
                    diagnose=lambda args, got: None)
    with pytest.raises(CheckFailed) as failed:
        judge.check(in_process_caller(empties), "keeps", [[], ["x"]])
    got = failed.value.failure.got
    assert "the call changed the arguments from [[], ['x']] to [[], []]" in got, got
    with pytest.raises(CheckFailed) as failed:
        Unchanged().require("keeps", "keep", [[1], 2], [], [[], 2], _table()["mutates-input"])
    assert "changed the parts from [1] to []" in failed.value.failure.got


def test_a_must_raise_judge_has_every_check_a_returning_one_has():
    def refuse(count):
        if count < 0:
            raise ValueError("count below 0")
        return count

    table = _table()
    judge = CompareOrRaise(function="refuse", misconceptions=table, expected=outcome(refuse),
                           error=ValueError, describe_error=str, unmentioned=lambda e, d: [],
                           diagnose=lambda args, got, expected: table["crash"],
                           malformed=lambda got: False)
    from hypothesis import strategies as st

    assert judge.leaves_alone("left alone", st.tuples(st.integers(-2, 2))).name == "left alone"
    assert isinstance(outcome(refuse)([-1]), ValueError) and outcome(refuse)([3]) == 3
