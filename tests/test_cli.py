"""The `packlab` command as a learner meets it: hint, check, progress, help, and the workspace."""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import COURSE, EXERCISES, with_answer

from packlab.course import cli, workspace
from packlab.course.cli import learner, terminal
from packlab.course.kernels import notebook_client
from packlab.manifest import ROOT

PACKLAB = Path(sys.executable).with_name("packlab")
BY_NUMBER = {e.name[:2]: e for e in EXERCISES}
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    """Rich wraps at the terminal width; a wide one keeps every message on one line.

    The commands' one console may have fixed its width when imported (from COLUMNS, e.g. in an
    xdist worker), so it is widened rather than relying on the environment alone.
    """
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(terminal.console, "width", 200)


def run(capsys, *argv: str) -> tuple[int, str]:
    """`packlab ARGV` in this process: its exit code and everything it printed."""
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def script(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`packlab ARGV` as the console script, when exit codes and streams matter."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(PACKLAB), *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def answer_of(exercise) -> str:
    """The reference answer cell of an exercise's solution notebook."""
    notebook = nbformat.read(exercise.source, as_version=4)
    answer_id = exercise.grade_id("answer")
    return next(cell.source for cell in notebook.cells
                if cell.metadata.get("nbgrader", {}).get("grade_id") == answer_id)


def released_copy(tmp_path: Path, exercise) -> Path:
    """A learner's untouched copy of the released exercise (the course's own is refused)."""
    path = tmp_path / f"{exercise.name}.ipynb"
    path.write_bytes(exercise.release.read_bytes())
    return path


def solved_copy(tmp_path: Path, exercise) -> Path:
    path = tmp_path / f"{exercise.name}.ipynb"
    nbformat.write(with_answer(exercise, None), path)
    return path


# --- packlab hint -----------------------------------------------------------------------------

def test_hint_shows_one_more_each_time_questions_first(capsys):
    exercise = BY_NUMBER["02"]
    hints = exercise.hints

    code, out = run(capsys, "hint", "02")
    assert code == 0
    assert exercise.name in out
    assert f"1. {hints[0]}" in out
    assert hints[0].rstrip().endswith("?"), "the first hint should be a question"
    assert hints[1] not in out
    assert f"({len(hints) - 1} more" in out

    code, out = run(capsys, "hint", "02")
    assert code == 0
    assert f"1. {hints[0]}" in out and f"2. {hints[1]}" in out
    assert hints[2] not in out

    code, out = run(capsys, "hint", "02", "--all")
    assert code == 0
    for number, text in enumerate(hints, 1):
        assert f"{number}. {text}" in out
    assert "That is every hint" in out
    assert f"lessons/{exercise.lesson}.ipynb" in out


def test_hint_memory_is_per_exercise(capsys):
    run(capsys, "hint", "02")
    run(capsys, "hint", "02")
    _, out = run(capsys, "hint", "01")
    assert BY_NUMBER["01"].hints[0] in out
    assert BY_NUMBER["01"].hints[1] not in out


@pytest.mark.parametrize("key", ["02-greedy-pack", "total_tokens", "pack_report"])
def test_hint_accepts_name_or_function(capsys, key):
    code, out = run(capsys, "hint", key)
    assert code == 0
    assert "Hints for" in out


@pytest.mark.parametrize(("key", "says"), [
    ("pack", "fits more than one exercise"),
    ("zz", "No exercise called 'zz'"),
])
def test_hint_bad_key_is_a_plain_message(key, says):
    done = script("hint", key)
    assert done.returncode == 2
    output = done.stdout + done.stderr
    assert says in output
    assert "Traceback" not in output
    if key == "pack":
        assert "02-greedy-pack" in output and "03-fix-the-break" in output


# --- packlab check ----------------------------------------------------------------------------

@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_check_passes_the_solution(capsys, tmp_path, exercise):
    code, out = run(capsys, "check", str(solved_copy(tmp_path, exercise)))
    assert code == 0, out
    assert "✓" in out
    assert "✗" not in out
    assert "Every check passed" in out
    assert "packlab check --all" in out


def test_check_all_runs_the_hidden_groups_too(capsys, tmp_path):
    path = solved_copy(tmp_path, BY_NUMBER["02"])
    code, visible = run(capsys, "check", str(path))
    assert code == 0
    code, everything = run(capsys, "check", "--all", str(path))
    assert code == 0, everything
    assert everything.count("✓") > visible.count("✓")
    assert "move on to the next lesson" in everything


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_check_fails_the_released_notebook_and_says_why(capsys, tmp_path, exercise):
    code, out = run(capsys, "check", str(released_copy(tmp_path, exercise)))
    assert code == 1, out
    assert "✗" in out
    if exercise.starter:  # running, buggy code: each failing call is shown
        for label in ("the call:", "came back:", "expected:", "revisit:"):
            assert label in out
        assert f"{exercise.function}(" in out
    else:  # `raise NotImplementedError`: it says so, once (tests/test_messages.py)
        assert f"`{exercise.function}` is not written yet" in out
        assert "revisit:" in out
    assert "check(s) failed" in out
    assert f"packlab hint {exercise.name[:2]}" in out


def test_check_all_on_the_released_notebook_reports_hidden_failures(capsys, tmp_path):
    released = str(released_copy(tmp_path, BY_NUMBER["02"]))
    _, visible = run(capsys, "check", released)
    code, everything = run(capsys, "check", "--all", released)
    assert code == 1
    assert everything.count("✗") > visible.count("✗")


def test_check_names_a_broken_cell_by_its_place_in_the_notebook(capsys, tmp_path):
    """As in the grader's feedback: "cell 3 (`first line`)", counting every cell, and the code."""
    exercise = BY_NUMBER["02"]
    notebook = with_answer(exercise, None)
    notebook.cells.insert(2, nbformat.v4.new_code_cell("scratch = 1\nprint(scratch +)"))
    path = tmp_path / f"{exercise.name}.ipynb"
    nbformat.write(notebook, path)
    code, out = run(capsys, "check", str(path))
    assert code == 0, out  # the answer itself is right: only the scratch cell is broken
    assert "cell 3 (`scratch = 1`) has a syntax error on line 2" in out
    assert "cell 1 " not in out
    assert "→   2 | print(scratch +)" in out


def test_check_names_the_workspace_copy_when_given_the_courses_own(capsys, tmp_path,
                                                                  monkeypatch):
    """Issue 20: from the course folder, `packlab check exercises/02-…/02-….ipynb` (the path
    JupyterLab's file browser shows) named the course's untouched copy: never the learner's."""
    monkeypatch.setenv("PACKLAB_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.chdir(ROOT)
    exercise = BY_NUMBER["02"]
    given = exercise.release.relative_to(ROOT)
    code, out = run(capsys, "check", str(given))
    mine = workspace.learner_copy(tmp_path / "ws", exercise.release)
    flat = " ".join(out.split())
    assert code == 2, out
    assert f"{given} is the course's own copy of exercise {exercise.name}" in flat
    assert f"packlab check {mine}" in flat
    assert "not written yet" not in out and "✗" not in out


def test_check_missing_notebook(tmp_path):
    done = script("check", str(tmp_path / "02-greedy-pack.ipynb"))
    assert done.returncode != 0
    assert "There is no notebook at" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("command", ["grade", "similarity"])
def test_a_missing_submitted_folder_is_a_plain_message(capsys, tmp_path, command):
    code, said = run(capsys, command, str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"))
    assert code == 2
    assert "There is no folder" in said and "(expected SUBMITTED/<student>/<assignment>/)" in said
    assert not (tmp_path / "out").exists()


def test_check_a_folder_is_not_a_notebook(tmp_path):
    done = script("check", str(tmp_path))
    assert done.returncode != 0
    assert "There is no notebook at" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_check_a_notebook_that_is_not_an_exercise(tmp_path):
    path = tmp_path / "my-notes.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), path)
    done = script("check", str(path))
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "is not one of the exercises" in output
    for exercise in EXERCISES:
        assert exercise.name in output
    assert "Traceback" not in output


def test_check_a_notebook_with_invalid_json(tmp_path):
    path = tmp_path / "02-greedy-pack.ipynb"
    path.write_text('{"cells": [')
    done = script("check", str(path))
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "could not be read" in output
    assert "Traceback" not in output


# --- packlab progress -------------------------------------------------------------------------

def row(out: str, name: str) -> str:
    lines = [line for line in out.splitlines() if name in line]
    assert len(lines) == 1, out
    return lines[0]


def test_progress_on_a_fresh_workspace(capsys, tmp_path):
    workspace.prepare(tmp_path)
    code, out = run(capsys, "progress", "--workspace", str(tmp_path))
    assert code == 0
    for exercise in EXERCISES:
        line = row(out, exercise.name)
        assert exercise.function in line
        if exercise.name.startswith("03"):
            # Issue 36: the bug-fix exercise is handed out with code that runs and fails: it is
            # checked, and said to be failing (the handed-out code), not "not started".
            assert "failing: the handed-out code, not changed yet" in line, line
            assert "not started" not in line and re.search(r"\d+ of \d+", line), line
        else:
            assert "not started" in line, line
    assert "passes every test" not in out


def test_progress_after_solving_one(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PACKLAB_WORKSPACE", str(tmp_path))
    workspace.prepare()
    first = BY_NUMBER["01"]
    mine = workspace.learner_copy(tmp_path, first.release)
    nbformat.write(with_answer(first, answer_of(first)), mine)

    code, out = run(capsys, "progress")  # no --workspace: PACKLAB_WORKSPACE is the folder
    assert code == 0
    assert "Your progress" in out
    assert "passes every test" in row(out, first.name)
    assert "not started" in row(out, BY_NUMBER["02"].name)


def test_progress_counts_the_learners_predictions(capsys, tmp_path, monkeypatch):
    """Issue 36: `packlab progress` shows the predictions made and right, lesson by lesson."""
    from packlab.course.predictions import keep

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    keep("03-two-packers-at-200", ["system", "system chunk-b chunk-c"], True)
    code, out = run(capsys, "progress", "--workspace", str(tmp_path / "nothing-yet"))
    assert code == 0 and "Your predictions" in out
    assert re.search(r"03\s*│\s*1 of 2\s*│\s*1", out), out
    assert re.search(r"01\s*│\s*0 of 2\s*│\s*—", out), out


def test_progress_before_the_lab_was_opened(capsys, tmp_path):
    code, out = run(capsys, "progress", "--workspace", str(tmp_path / "nothing-yet"))
    assert code == 0
    for exercise in EXERCISES:
        assert "not opened yet" in row(out, exercise.name)


# --- the workspace ----------------------------------------------------------------------------

def test_prepare_copies_every_lesson_and_exercise(tmp_path):
    assert workspace.prepare(tmp_path) == tmp_path
    originals = [lesson.path for lesson in COURSE.lessons] + [e.release for e in EXERCISES]
    for original in originals:
        copy = workspace.learner_copy(tmp_path, original)
        assert copy.is_file(), copy
        assert handed_out(copy) == handed_out(original)
        # What JupyterLab's kernel writes on opening is there already: it opens clean.
        mine = nbformat.read(copy, as_version=4).metadata
        assert mine.language_info.version == platform.python_version()
        assert mine.language_info.name == "python" and mine.kernelspec.name == "python3"


def test_the_kernels_metadata_saved_once_is_read_without_the_kernel(tmp_path, monkeypatch):
    """The hub saves the kernel's metadata when it sets up the learners' environment; a
    learner's server start then reads it instead of importing ipykernel and jupyter_client
    (a third of a CPU-second); a broken file falls back to asking the kernel."""
    saved = tmp_path / "share" / "packlab" / "kernel-metadata.json"
    monkeypatch.setattr(workspace, "KERNEL_METADATA", saved)
    asked = workspace.installed_kernel_metadata()
    assert asked["language_info"]["version"] == platform.python_version()
    assert workspace.save_kernel_metadata() == saved
    assert json.loads(saved.read_text()) == asked == workspace.kernel_metadata()
    saved.write_text(json.dumps({"kernelspec": {"name": "as saved"}}))
    assert workspace.kernel_metadata() == {"kernelspec": {"name": "as saved"}}
    for broken in ("not json", "[1, 2]"):
        saved.write_text(broken)
        assert workspace.kernel_metadata() == asked
    saved.write_text(json.dumps(asked))
    code = ("import sys\nfrom pathlib import Path\nfrom packlab.course import workspace\n"
            f"workspace.KERNEL_METADATA = Path({str(saved)!r})\n"
            f"workspace.prepare(Path({str(tmp_path / 'mine')!r}))\n"
            "print(sorted(m for m in ('ipykernel', 'jupyter_client') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    start = nbformat.read(tmp_path / "mine" / workspace.START, as_version=4)
    assert start.metadata.language_info == asked["language_info"]


def handed_out(path) -> list:
    """A notebook's cells, as a learner's copy must keep them."""
    return nbformat.read(path, as_version=4).cells


def test_prepare_never_overwrites_the_learners_work(tmp_path):
    workspace.prepare(tmp_path)
    exercise = BY_NUMBER["02"]
    mine = workspace.learner_copy(tmp_path, exercise.release)
    nbformat.write(with_answer(exercise, "def pack(parts, budget):\n    return []\n"), mine)
    changed = mine.read_bytes()
    lesson = workspace.learner_copy(tmp_path, COURSE.lessons[0].path)
    lesson.write_text(lesson.read_text().replace("finite", "FINITE"))
    edited_lesson = lesson.read_bytes()
    gone = workspace.learner_copy(tmp_path, BY_NUMBER["04"].release)
    gone.unlink()

    workspace.prepare(tmp_path)
    assert mine.read_bytes() == changed
    assert lesson.read_bytes() == edited_lesson
    assert handed_out(gone) == handed_out(BY_NUMBER["04"].release), "a deleted copy comes back"


def test_prepare_uses_the_environment_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("PACKLAB_WORKSPACE", str(tmp_path / "mine"))
    assert workspace.prepare() == tmp_path / "mine"
    assert (tmp_path / "mine" / workspace.START).is_file()


def test_start_page_links_to_files_in_the_workspace(tmp_path):
    workspace.prepare(tmp_path)
    start = nbformat.read(tmp_path / workspace.START, as_version=4)
    nbformat.validate(start)
    links = [link for cell in start.cells if cell.cell_type == "markdown"
             for link in LINK.findall(cell.source)]
    assert len(links) == len(COURSE.lessons) * 2
    assert {link.split("/")[0] for link in links} == {"lessons", "exercises"}
    for link in links:
        assert (tmp_path / link).is_file(), link
    for lesson in COURSE.lessons:
        assert f"lessons/{lesson.slug}.ipynb" in links
    for exercise in EXERCISES:
        assert f"exercises/{exercise.name}/{exercise.name}.ipynb" in links


# --- issue 29: reset, a newer course notebook, progress in a notebook -------------------------

def test_reset_hands_out_the_exercise_again_and_keeps_the_learners_version(capsys, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("PACKLAB_WORKSPACE", str(tmp_path))
    workspace.prepare()
    exercise = BY_NUMBER["02"]
    mine = workspace.learner_copy(tmp_path, exercise.release)
    nbformat.write(with_answer(exercise, "def pack(parts, budget):\n    return ['mine']\n"), mine)
    written = mine.read_bytes()
    run(capsys, "hint", "02")
    run(capsys, "hint", "02")

    code, out = run(capsys, "reset", "02")
    assert code == 0
    assert handed_out(mine) == handed_out(exercise.release)
    kept = [p for p in mine.parent.glob("*.ipynb") if p != mine]
    assert len(kept) == 1 and kept[0].read_bytes() == written
    assert kept[0].name.startswith(f"{exercise.name}.mine-")
    flat = " ".join(out.split())
    assert kept[0].name in flat and "Reload Notebook from Disk" in flat
    _, hint = run(capsys, "hint", "02")
    assert f"1. {exercise.hints[0]}" in hint and exercise.hints[1] not in hint  # from the first
    assert "not started" in row(run(capsys, "progress")[1], exercise.name)


def test_resetting_twice_keeps_only_work_that_differs(tmp_path, capsys):
    """Issue 36: each reset of an untouched notebook kept another copy identical to the
    handed-out one. Now an untouched copy (run, even: outputs are not work) is not kept, and a
    version the same as one kept before is not kept twice; each time the learner is told so."""
    workspace.prepare(tmp_path)
    exercise = BY_NUMBER["03"]  # handed out with code in it: the buggy packer
    mine = workspace.learner_copy(tmp_path, exercise.release)
    ran = nbformat.read(mine, as_version=4)
    next(c for c in ran.cells if c.cell_type == "code").execution_count = 1  # run, not changed
    nbformat.write(ran, mine)
    kept_copies = lambda: sorted(mine.parent.glob(f"{exercise.name}.mine-*"))  # noqa: E731
    for _ in range(2):
        fresh, kept = workspace.reset("03", tmp_path)
        assert kept is None and not kept_copies()
        assert "had no changes of yours" in " ".join(capsys.readouterr().out.split())
        assert handed_out(fresh) == handed_out(exercise.release)
    edited = "def pack(parts, budget):\n    return []\n"
    nbformat.write(with_answer(exercise, edited), mine)
    _, first = workspace.reset("03", tmp_path)
    assert kept_copies() == [first] and edited in [c.source for c in handed_out(first)]
    capsys.readouterr()
    nbformat.write(with_answer(exercise, edited), mine)  # the same work once more
    _, again = workspace.reset("03", tmp_path)
    assert again == first and kept_copies() == [first]
    assert f"the same as the one kept already as {first}" in " ".join(
        capsys.readouterr().out.split())
    mine.write_text("{ not a notebook")  # unreadable: kept as it is, never thrown away
    _, broken = workspace.reset("03", tmp_path)
    assert broken.read_text() == "{ not a notebook" and len(kept_copies()) == 2


def test_reset_in_a_cell_and_of_a_lesson(tmp_path, capsys):
    workspace.prepare(tmp_path)
    lesson = workspace.learner_copy(tmp_path, COURSE.lessons[2].path)
    lesson.write_text(lesson.read_text().replace("break", "BREAK"))
    fresh, kept = workspace.reset("03", tmp_path, lesson=True)
    assert fresh == lesson and handed_out(lesson) == handed_out(COURSE.lessons[2].path)
    assert "BREAK" in kept.read_text()
    assert "is the handed-out lesson" in capsys.readouterr().out
    with pytest.raises(KeyError, match="No lesson called '99'"):
        workspace.reset("99", tmp_path, lesson=True)
    code, out = run(capsys, "reset", "nothing-like-it")
    assert code == 2 and "No exercise called" in out


def test_a_newer_lesson_in_the_course_is_noticed_until_reset(capsys, tmp_path):
    workspace.prepare(tmp_path)
    assert not workspace.updates(tmp_path)
    start = nbformat.read(tmp_path / workspace.START, as_version=4).cells[0].source
    assert "Updated in the course" not in start
    # The course's lesson 02 changed after this copy was made (as after a `git pull`).
    record = tmp_path / workspace.RECORD
    digests = json.loads(record.read_text())
    digests[f"lessons/{COURSE.lessons[1].slug}.ipynb"] = "an older version"
    record.write_text(json.dumps(digests))
    found = workspace.updates(tmp_path)
    assert [u.command for u in found] == ["packlab reset --lesson 02"]
    workspace.prepare(tmp_path)
    start = nbformat.read(tmp_path / workspace.START, as_version=4).cells[0].source
    assert "Updated in the course since you copied them" in start
    assert "`packlab reset --lesson 02`" in start and COURSE.lessons[1].title in start
    _, out = run(capsys, "progress", "--workspace", str(tmp_path))
    assert "Newer in the course: Lesson 02" in " ".join(out.split())
    workspace.reset("02", tmp_path, lesson=True)
    assert not workspace.updates(tmp_path)


def test_a_copy_from_before_the_record_is_compared_by_date(tmp_path):
    workspace.prepare(tmp_path)
    (tmp_path / workspace.RECORD).unlink()
    assert not workspace.updates(tmp_path)  # the copies are newer than the course's files
    exercise = BY_NUMBER["04"]
    mine = workspace.learner_copy(tmp_path, exercise.release)
    os.utime(mine, (0, 0))  # made before the course's exercise last changed
    assert [u.command for u in workspace.updates(tmp_path)] == ["packlab reset 04"]


def test_the_start_page_shows_progress_in_a_cell(tmp_path):
    """The start page's own cell, run in a real kernel, shows `packlab progress`'s table."""
    workspace.prepare(tmp_path)
    exercise = BY_NUMBER["01"]
    nbformat.write(with_answer(exercise, answer_of(exercise)),
                   workspace.learner_copy(tmp_path, exercise.release))
    start = nbformat.read(tmp_path / workspace.START, as_version=4)
    assert start.cells[-1].source == workspace.PROGRESS_CELL
    notebook_client(start, timeout=120, kernel_name="python3",
                    resources={"metadata": {"path": str(tmp_path)}}).execute(
        env={**os.environ, "PACKLAB_WORKSPACE": str(tmp_path)})
    shown = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                      for o in start.cells[-1].outputs)
    assert "Your progress" in shown
    assert "passes every test" in row(shown, exercise.name)
    for other in EXERCISES[1:]:
        handed_out_code = other.name.startswith("03")  # issue 36: checked, failing
        assert ("failing: the handed-out code" if handed_out_code else "not started") in row(
            shown, other.name)


# --- help -------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [[], ["lab"], ["check"], ["hint"], ["progress"], ["grade"],
                                     ["release"]], ids=lambda c: " ".join(c) or "packlab")
def test_help(capsys, command):
    with pytest.raises(SystemExit) as stop:
        cli.main([*command, "--help"])
    assert stop.value.code == 0
    assert "usage: packlab" in capsys.readouterr().out


def test_help_from_the_console_script():
    done = script("--help")
    assert done.returncode == 0
    for command in ("lab", "check", "hint", "progress", "grade", "release"):
        assert command in done.stdout


def subcommands(parser: argparse.ArgumentParser) -> set[str]:
    """The names of ``parser``'s subcommands."""
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def test_every_command_the_learner_module_lacks_is_named_instructor_only():
    """`INSTRUCTOR_ONLY` is written out (the student install cannot import the modules that
    define those commands): it must name exactly the presenter's and the instructor's."""
    learner_only = argparse.ArgumentParser()
    learner.add_commands(learner_only.add_subparsers())
    assert subcommands(cli.parser()) - subcommands(learner_only) == cli.INSTRUCTOR_ONLY


def test_the_course_is_the_folder_packlab_runs_in(tmp_path):
    """As nbgrader's: in a second course's folder (or one below it) its own course.toml is read,
    not the one of the checkout packlab is installed from; outside any course it says so."""
    exercise = EXERCISES[0]
    text = (ROOT / "course.toml").read_text(encoding="utf-8")
    assert exercise.hints[0] in text
    second = tmp_path / "second"
    (second / "lessons").mkdir(parents=True)
    (second / "course.toml").write_text(text.replace(exercise.hints[0], "Only course two says so."),
                                        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PACKLAB_COURSE_TOML"}
    env.update(COLUMNS="200", XDG_STATE_HOME=str(tmp_path / "state"))

    def hint(cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(PACKLAB), "hint", exercise.name], capture_output=True,
                              text=True, env=env, cwd=cwd, timeout=120)

    inside = hint(second / "lessons")
    assert inside.returncode == 0 and "Only course two says so." in inside.stdout, inside
    assert exercise.hints[0] not in inside.stdout and not inside.stderr
    (tmp_path / "elsewhere").mkdir()
    outside = hint(tmp_path / "elsewhere")
    assert outside.returncode == 0 and " ".join(exercise.hints[0].split()) in " ".join(
        outside.stdout.split()), outside
    said = " ".join(outside.stderr.split())
    assert f"No course.toml in {tmp_path / 'elsewhere'} or any folder above it" in said, said
    assert f"the course packlab is installed with, {ROOT}." in said
