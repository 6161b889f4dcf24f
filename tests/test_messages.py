"""Messages that say what happened: a starter is "not written yet", an untouched exercise is "not
started", one mistake's paragraph is printed once, a renamed copy is still its exercise, and
every hint command has one form."""

from __future__ import annotations

import re
import shutil

import nbformat
import pytest
from conftest import COURSE, EXERCISES, with_answer
from test_cli import BY_NUMBER, _wide, answer_of, released_copy, row, run  # noqa: F401 - _wide

from autograder.cohort.report import feedback_html
from autograder.run.engine import grade_notebook
from packlab.course import book, workspace
from packlab.course.check import FAILED_NOTE, run_tests, summary
from packlab.manifest import ROOT

STARTERS = [e for e in EXERCISES if not e.starter]  # handed out as `raise NotImplementedError`


def sentence(function: str) -> str:
    return f"`{function}` is not written yet: replace `raise NotImplementedError` with your code."


def not_written(*args):
    raise NotImplementedError


# --- a starter is not written yet ---------------------------------------------------------------

@pytest.mark.parametrize("exercise", STARTERS, ids=lambda e: e.name)
def test_check_says_a_starter_is_not_written_yet(capsys, tmp_path, exercise):
    code, out = run(capsys, "check", str(released_copy(tmp_path, exercise)))
    assert code == 1
    assert sentence(exercise.function) in out
    assert out.count(sentence(exercise.function)) == 1
    assert "stops with an error" not in out
    assert f"write `{exercise.function}` in its answer cell" in out


def test_the_test_cell_says_a_starter_is_not_written_yet(capsys):
    assert run_tests("02", not_written) is None  # no points, and Run All goes on
    shown, err = capsys.readouterr()
    assert err.strip() == FAILED_NOTE  # what nbgrader scores 0
    assert "`pack` is not written yet: replace `raise NotImplementedError` with your code." in shown
    assert "Write `pack` in the answer cell above and run it" in shown
    assert "stops with an error" not in shown


def test_the_graders_feedback_says_a_starter_is_not_written_yet():
    exercise = BY_NUMBER["01"]
    result = grade_notebook(exercise.release, exercise, "new")
    failures = [f for g in result.groups for f in g.failures]
    assert failures and {f.misconception.text for f in failures} == {sentence("total_tokens")}
    page = feedback_html(result)
    assert "<code>total_tokens</code> is not written yet" in page and "`" not in page


# --- a bug-fix exercise still as released is checked: failing, the handed-out code -------------

def test_progress_says_failing_for_a_bug_fix_exercise_still_as_released(capsys, tmp_path):
    """Issue 36: exercise 03 is handed out with a packer that runs and is wrong; left as it is,
    it was "not started". It is checked like any answer and said to be the handed-out code,
    failing: what the learner did (nothing yet) against what was handed out."""
    workspace.prepare(tmp_path)
    code, out = run(capsys, "progress", "--workspace", str(tmp_path))
    assert code == 0
    fix = BY_NUMBER["03"]
    assert fix.starter, "exercise 03 starts from running, buggy code"
    line = row(out, fix.name)
    assert "failing: the handed-out code, not changed yet" in line and "points" in line
    assert "not started" not in line


def test_progress_grades_a_bug_fix_exercise_once_its_answer_changed(capsys, tmp_path):
    workspace.prepare(tmp_path)
    fix = BY_NUMBER["03"]
    mine = workspace.learner_copy(tmp_path, fix.release)
    nbformat.write(with_answer(fix, answer_of(fix)), mine)
    code, out = run(capsys, "progress", "--workspace", str(tmp_path))
    assert "passes every test" in row(out, fix.name)


# --- one mistake, one paragraph -----------------------------------------------------------------

def test_check_all_prints_each_mistakes_paragraph_once(capsys, tmp_path):
    fix = BY_NUMBER["03"]  # as released it holds the break bug: many checks fail for one reason
    code, out = run(capsys, "check", "--all", str(released_copy(tmp_path, fix)))
    assert code == 1
    paragraph = "the loop stops at the first part that does not fit"
    assert out.count(paragraph) == 1, out
    after = out[out.index(paragraph):]
    assert after.count("✗") >= 3 and after.count("the call:") >= 3


def test_the_test_cell_prints_each_mistakes_paragraph_once():
    def pack(parts, budget):
        return [part["id"] for part in parts]  # everything, whatever the budget

    from autograder.checks.suite import in_process_caller, run_group
    from autograder.checks.suites import load

    result = run_group(load("pack").group("edge-cases"), in_process_caller(pack))
    texts = [f.misconception.text for f in result.failures]
    shown = summary("02", result, hidden=True)
    assert len(texts) > len(set(texts))
    for text in set(texts):
        assert shown.count(text) == 1


def _checked(capsys, mutant: str) -> str:
    from autograder.checks import gallery

    scope: dict = {}
    exec(gallery.load(mutant).code, scope)  # noqa: S102 - the course's own gallery
    run_tests("02", scope["pack"])
    said = capsys.readouterr()
    return said.out + said.err


def test_the_check_says_which_idea_to_fix_first_when_its_checks_name_several(capsys):
    """Taking parts while some budget is left fails 12 checks: 9 name "a part is taken whole",
    2 look like a strict `<` (a budget of 0) and 1 like another walk. The learner is pointed to
    the first by its paragraph's opening words; an answer with one idea gets no such line."""
    said = _checked(capsys, "pack/splits_part")
    assert ('Start here: 9 of the 12 failing checks point to one idea, the one that begins '
            '"a part is taken whole or…". Fix that first') in said
    line = next(line for line in said.splitlines() if line.startswith("Start here"))
    assert "take it only" not in line  # the paragraph is pointed to, not printed again
    assert said.index("Start here") < said.index("Stuck? Run `packlab hint 02`")
    assert "Start here" not in _checked(capsys, "pack/strict_less_than")


def test_the_graders_feedback_says_which_idea_to_fix_first(tmp_path):
    """The same line heads the grader's feedback page and results.json's output (the hidden
    edge cases vary per student, so the counts are the grader's own)."""
    import html

    from autograder.checks import gallery
    from autograder.cohort.report import gradescope

    exercise = BY_NUMBER["02"]
    path = tmp_path / "splits.ipynb"
    nbformat.write(with_answer(exercise, gallery.load("pack/splits_part").code), path)
    result = grade_notebook(path, exercise, "ada")
    page, output = feedback_html(result), gradescope(result)["output"]
    line = next(line for line in output.splitlines() if line.startswith("Start here: "))
    assert 'point to one idea, the one that begins "a part is taken whole or…"' in line
    assert f"<p>{html.escape(line)}</p>" in page
    assert page.index("Start here") < page.index("<h2>")


# --- a copy under another name is still its exercise ---------------------------------------------

@pytest.mark.parametrize("number", ["02", "03", "06"])
def test_check_recognises_a_renamed_copy_by_its_nbgrader_cells(capsys, tmp_path, number):
    exercise = BY_NUMBER[number]
    copy = tmp_path / "my attempt (copy).ipynb"
    shutil.copyfile(exercise.release, copy)
    code, out = run(capsys, "check", str(copy))
    assert "is not one of the exercises" not in out
    assert code == 1 and f"`packlab hint {number}`" in out


def test_check_recognises_a_renamed_solved_copy(capsys, tmp_path):
    exercise = BY_NUMBER["02"]
    copy = tmp_path / "done.ipynb"
    nbformat.write(with_answer(exercise, None), copy)
    code, out = run(capsys, "check", str(copy))
    assert code == 0, out


# --- one form of the hint command ---------------------------------------------------------------

# Every file a learner or presenter reads that may name a hint command.
WRITTEN = [ROOT / "README.md",
           *sorted(p for p in (ROOT / "book").rglob("*.md") if "_build" not in p.parts),
           *sorted(ROOT.glob("lessons/*.ipynb")), *sorted(ROOT.glob("solutions/*/*.ipynb")),
           *sorted(ROOT.glob("exercises/*/*.ipynb")), ROOT / "workshop" / "presenter.ipynb"]
HINT = re.compile(r"packlab hint (\S+?)`|hint\(\\?[\"'](.+?)\\?[\"']\)")


def hint_keys(text: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in HINT.finditer(text)]


def test_every_hint_command_printed_or_written_is_packlab_hint_and_a_number(capsys, tmp_path):
    texts = {}
    for exercise in EXERCISES:
        run_tests(exercise.name, not_written, exercise.visible_groups[0])
        texts[f"test cell of {exercise.name}"] = capsys.readouterr().out
        texts[f"packlab check {exercise.name}"] = run(
            capsys, "check", str(released_copy(tmp_path, exercise)))[1]
        texts[f"book page of {exercise.name}"] = book._exercise_note(exercise,
                                                                      exercise.name[:2]).source
    texts["START.ipynb"] = workspace.start_page(COURSE).cells[0].source
    for path in WRITTEN:
        texts[str(path)] = path.read_text(encoding="utf-8")
    found = {where: hint_keys(text) for where, text in texts.items()}
    assert all(found[f"test cell of {e.name}"] for e in EXERCISES)
    wrong = {where: keys for where, keys in found.items()
             if any(not re.fullmatch(r"\d\d", key) for key in keys)}
    assert not wrong, wrong
