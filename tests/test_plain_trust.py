"""A plain nbgrader assignment's grading treats the worker's replies as the student's.

Its test cells run beside the student's code (nbgrader's model), so their results come over the
worker's pipe: a reply that is not one (forged, garbled, oversized) is the student's failure and
nothing after it runs; a worker that exits early scores nothing for the cells it never ran; what
the student's code prints once the hidden tests run is never shown. Graded in the real bubblewrap
sandbox, from the quiz fixture (tests/fixtures/plain/quiz1).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.cohort import report
from autograder.run import isolation
from autograder.run.plain import HELD_BACK, grade_plain, safe_message, without_hidden
from packlab import manifest
from packlab.manifest import PlainAssignment

FIXTURE = Path(__file__).parent / "fixtures" / "plain" / "quiz1"
HIDDEN = 'assert f(5) == 25, "f(5) should be 25"\nassert g(2)'


@pytest.mark.parametrize(("error", "shown"), [
    ("AssertionError: f(5) should be 25", "AssertionError"),  # the message is the test's text
    ("AssertionError: the answer for 5 is off", "AssertionError: the answer for 5 is off"),
    ("AssertionError: got 24 at assert f(5) == 25, \"f(5) should be 25\"", "AssertionError"),
    ("NameError: name 'g' is not defined", "NameError"),  # not the instructor's words
    ("ValueError: n=5 is too big", "ValueError"),
    ("AssertionError", "AssertionError"),
])
def test_a_hidden_test_s_message_is_shown_only_when_none_of_its_code_is_in_it(error, shown):
    assert safe_message(error, HIDDEN) == shown


@pytest.fixture
def quiz(tmp_path, monkeypatch) -> PlainAssignment:
    """The quiz as a plain assignment of a course in tmp_path (no release: answers a person
    grades all wait for one)."""
    shutil.copytree(FIXTURE, tmp_path / "solutions" / "quiz1")
    shutil.copy(manifest.MANIFEST, tmp_path / "course.toml")
    monkeypatch.setattr(manifest, "MANIFEST", tmp_path / "course.toml")
    return PlainAssignment("quiz1")


def handed_in(tmp_path: Path, answer: str) -> Path:
    nb = nbformat.read(FIXTURE / "quiz1.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata["nbgrader"]["grade_id"] == "squares-answer":
            cell.source = answer
        if "### BEGIN HIDDEN TESTS" in cell.source:  # as released
            cell.source = cell.source.split("### BEGIN HIDDEN TESTS")[0]
    path = tmp_path / "submitted" / "eve" / "quiz1" / "quiz1.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return path


RIGHT = "def squares(n):\n    return [i * i for i in range(n)]\n"


def test_the_course_packages_are_found_wherever_the_course_lives(quiz, tmp_path, monkeypatch):
    """A course environment under /tmp (a fresh clone there): the private /tmp that root's
    grader mounts before bubblewrap runs must not hide it from the notebook's kernel."""
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        extra = Path(folder)
        extra.chmod(0o755)  # others may read it, as a course environment must be
        (extra / "probe_squares.py").write_text(RIGHT)
        found = isolation.environment_packages()
        monkeypatch.setattr(isolation, "environment_packages", lambda: (*found, extra))
        result, _ = grade_plain(handed_in(tmp_path, "from probe_squares import squares\n"),
                                quiz, "eve")
    assert result.error is None and result.score == 5, result.notes


def test_the_right_answer_scores_every_test_cell(quiz, tmp_path):
    result, _ = grade_plain(handed_in(tmp_path, RIGHT), quiz, "eve")
    assert result.error is None and result.score == 5 and result.max_score == 7
    assert any("`why-answer` (2 points) needs manual grading" in n for n in result.notes)


def test_a_kernel_that_dies_scores_nothing_for_what_never_ran(quiz, tmp_path):
    result, _ = grade_plain(handed_in(tmp_path, RIGHT + "import os\nos._exit(0)\n"), quiz, "eve")
    assert result.score == 0
    assert any("The notebook stopped: its kernel died" in n for n in result.notes), result.notes
    assert all(f.misconception.key == "plain-not-run" for g in result.groups
               for f in g.failures if g.name != "why-answer")


SECRET = 'assert squares(5)[-1] == 16, "the last of squares(5) is 16"'


@pytest.mark.parametrize("said", [
    "the last of squares(5) is 16", "61 si )5(serauqs fo tsal eht", "THE LAST OF SQUARES 5 IS 16",
    "t-h-e l.a.s.t of squares(5) is 16",
    "gur ynfg bs fdhnerf(5) vf 16", "dGhlIGxhc3Qgb2Ygc3F1YXJlcyg1KSBpcyAxNg==",
    "746865206c617374206f662073717561726573283529206973203136",
])
def test_hidden_text_is_held_back_even_re_encoded(said):
    assert without_hidden(f"ValueError: {said}", [SECRET]) == HELD_BACK


def test_other_text_passes_the_hidden_filter():
    assert without_hidden("NameError: name 'squares' is not defined", [SECRET]) == \
        "NameError: name 'squares' is not defined"


def test_what_the_code_prints_while_hidden_tests_run_is_never_shown(quiz, tmp_path):
    spy = ("import sys\n\ndef squares(n):\n    print('SPY', sys._getframe(1).f_code.co_consts)\n"
           "    return [i * i for i in range(n)]\n")
    result, _ = grade_plain(handed_in(tmp_path, spy), quiz, "eve")
    assert result.score == 5
    assert "SPY" in result.output  # the visible test's call is shown
    page = report.feedback_html(result)
    assert "the last of squares(5) is 16" not in page and "squares(5)" not in result.output


def test_the_sandbox_is_the_course_s(quiz, tmp_path):
    """The quiz's code runs in the same bubblewrap sandbox: no network, no home folder."""
    probe = RIGHT + ("import os, socket\nopen('/root/.probe', 'w')\n")
    result, _ = grade_plain(handed_in(tmp_path, probe), quiz, "eve")
    assert result.sandbox == "bubblewrap"
    assert any("raised" in n and ("Error" in n) for n in result.notes), result.notes
    assert not Path("/root/.probe").exists()


def test_the_manifest_reads_plain_assignments(tmp_path):
    for name in ("quiz1", "quiz2"):
        shutil.copytree(FIXTURE, tmp_path / "solutions" / name)
        (tmp_path / "solutions" / name / "quiz1.ipynb").rename(
            tmp_path / "solutions" / name / f"{name}.ipynb")
    toml = tmp_path / "course.toml"
    base = manifest.MANIFEST.read_text(encoding="utf-8")
    toml.write_text(base + '\n[[plain]]\nname = "quiz1"\ndue = "2026-12-01T17:00:00"\n'
                    'late_policy = { per_day = 0.25 }\n', encoding="utf-8")
    found = manifest.plain_assignments(toml)
    assert set(found) == {"quiz1", "quiz2"}
    assert found["quiz1"].due.isoformat() == "2026-12-01T17:00:00+00:00"
    assert found["quiz1"].late_policy.per_day == 0.25 and found["quiz2"].due is None
    assert found["quiz2"].late_policy == manifest.load(toml).exercises[0].late_policy


@pytest.mark.parametrize(("entry", "said"), [
    ('name = "quiz1"\npoints = 10', "sets only name, due, late_policy and counts"),
    ('name = "quiz1"\ncounts = "worst"', "counts 'worst'; `counts` is one of"),
    ('name = "quiz9"', "names no folder solutions/quiz9/ holding a notebook"),
    ('name = "quiz1"\nlate_policy = "sometimes"', "late_policy must be"),
])
def test_a_wrong_plain_entry_is_named(tmp_path, entry, said):
    shutil.copytree(FIXTURE, tmp_path / "solutions" / "quiz1")
    toml = tmp_path / "course.toml"
    toml.write_text(manifest.MANIFEST.read_text(encoding="utf-8") + f"\n[[plain]]\n{entry}\n",
                    encoding="utf-8")
    with pytest.raises(ValueError, match=said):
        manifest.plain_assignments(toml)


def test_a_plain_entry_sets_which_submission_counts(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "solutions" / "quiz1")
    toml = tmp_path / "course.toml"
    toml.write_text(manifest.MANIFEST.read_text(encoding="utf-8")
                    + '\n[[plain]]\nname = "quiz1"\ncounts = "on-time"\n', encoding="utf-8")
    assert manifest.plain_assignments(toml)["quiz1"].counts == "on-time"


def test_an_assignment_of_several_notebooks_keys_its_cells_by_notebook(tmp_path, monkeypatch):
    """nbgrader's ps1 has problem1 and problem2: one assignment, a grade_id may be in both."""
    folder = tmp_path / "solutions" / "ps1"
    (folder / "extra").mkdir(parents=True)
    for name in ("problem1", "problem2", "extra/not-a-notebook-of-ps1"):
        shutil.copy(FIXTURE / "quiz1.ipynb", folder / f"{name}.ipynb")
    toml = tmp_path / "course.toml"
    shutil.copy(manifest.MANIFEST, toml)
    monkeypatch.setattr(manifest, "MANIFEST", toml)
    ps1 = manifest.plain_assignments(toml)["ps1"]
    assert ps1.notebooks == ("problem1", "problem2")  # at the folder's top, as nbgrader's
    assert ps1.points == {f"{n}/{g}": p for n in ps1.notebooks for g, p in
                          {"squares-visible": 2, "squares-hidden": 2, "squares-partial": 1}.items()}
    assert ps1.max_score == 14 and ps1.cell_of("problem2/squares-hidden") == ("problem2",
                                                                              "squares-hidden")


def test_the_course_itself_has_no_plain_assignment():
    """Every folder of the real solutions/ is one of the course's exercises."""
    assert manifest.plain_assignments() == {}


def test_points_come_from_the_notebook(quiz):
    assert quiz.points == {"squares-visible": 2, "squares-hidden": 2, "squares-partial": 1}
    assert quiz.max_score == 7
    assert [c.grade_id for c in quiz.cells if c.manual] == ["why-answer"]


def test_a_class_with_a_notebook_worth_nothing_is_summed_up():
    """nbgrader allows a notebook of 0 points: the class summary counts it as all there."""
    from autograder.cohort.summary import share, summary

    rows = [{"status": "graded", "reason": "", "score": 0, "max_score": 0, "student": "ada",
             "assignment": "zero"}]
    assert share(0, 0) == 1.0 and "mean 100%" in summary(rows)


NUMPY_ANSWER = ("import numpy\n\ndef squares(n):\n"
                "    return [int(x) for x in numpy.arange(n) ** 2]\n")


@pytest.mark.slow
@pytest.mark.xdist_group("ordinary-user")  # in turn with the other tests acting as that user
def test_an_ordinary_user_grades_a_quiz_that_imports_numpy():
    """As an instructor without root: the kernel's sandbox sees the course's packages."""
    from as_user import folder, give, run_as_user

    course = folder()
    try:
        shutil.copytree(FIXTURE, course / "solutions" / "quiz1")
        shutil.copy(manifest.MANIFEST, course / "course.toml")
        path = handed_in(course, NUMPY_ANSWER)
        give(course)
        done = run_as_user(
            "import os, sys\nos.environ['PACKLAB_COURSE_TOML'] = sys.argv[1]\n"
            "from autograder.run.plain import grade_plain\n"
            "from packlab.manifest import plain_assignments\n"
            "result, _ = grade_plain(sys.argv[2], plain_assignments()['quiz1'], 'eve')\n"
            "print(result.score, result.error, result.sandbox)",
            str(course / "course.toml"), str(path))
        assert done.stdout.split() == ["5", "None", "bubblewrap"], done.stdout + done.stderr
    finally:
        shutil.rmtree(course, ignore_errors=True)


def test_both_graders_wait_as_long_for_a_cells_last_output():
    """The course's nbgrader_config.py waits 60 s, not nbgrader's 4, for a cell's last output
    (nbgrader fails a whole notebook past it: a sound one did on a busy CI machine), and
    packlab's plain grading sends the sandbox's nbgrader that same setting."""
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.run.plain import execute_settings

    config = PyFileConfigLoader("nbgrader_config.py", path=str(manifest.ROOT)).load_config()
    assert config.Execute.iopub_timeout == 60
    assert execute_settings(manifest.ROOT)["iopub_timeout"] == 60
