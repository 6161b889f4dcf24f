"""What a student controls is shown, never run: escaping for the terminal, CSV and markdown, a
class of hostile folder names graded end to end, and size-bounded feedback and results files."""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import unicodedata

import nbformat
import pytest
from conftest import EXERCISES, submit, with_answer
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from rich.console import Console
from test_report import check_gradescope

from autograder import names, outfolder
from autograder.checks.suite import Failure, Misconception
from autograder.cohort import report, summary
from autograder.cohort.classroom import _results, discover, grade_class, grades_row
from autograder.cohort.task import Task
from autograder.escape import (
    FORMULA_STARTS,
    SEPARATORS,
    for_csv,
    for_markdown,
    for_terminal,
    visible,
)
from autograder.run.engine import GroupScore, Result
from autograder.run.isolation import Limits
from packlab.course.cli import main

FAST = Limits(call_seconds=1.0, setup_seconds=5.0)
EXERCISE = EXERCISES[0]  # 01-total-tokens


def printed(markup: str) -> str:
    """What rich prints for ``markup`` (no colours, wide enough not to wrap)."""
    console = Console(file=io.StringIO(), highlight=False, color_system=None, width=1000)
    console.print(markup)
    return console.file.getvalue()


# --- for_terminal ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[bold red]x[/]", "a[/]", "[/]", "[link=http://e]x[/link]",
                                  "[@click=(]x", "\\[bold]x", "[#ff0000]x"])
def test_terminal_shows_markup_as_written(text):
    assert printed(for_terminal(text)) == text + "\n"


def test_a_trailing_backslash_cannot_escape_the_course_markup():
    # rich.markup.escape doubles a final backslash so that it cannot escape what follows
    # (alone at the very end, that backslash prints twice).
    assert printed(for_terminal("ends with \\") + "[red]✗[/]") == "ends with \\✗\n"


def test_terminal_keeps_the_course_markup_around_it():
    assert printed(f"[red]✗[/] {for_terminal('a[/]')} [bold]done[/]") == "✗ a[/] done\n"


@pytest.mark.parametrize(("text", "shown"), [
    ("bell\x07", "bell\\x07"), ("\x1b[2Jcleared", "\\x1b[2Jcleared"),
    ("over\rwritten", "over\\rwritten"), ("nul\x00", "nul\\x00"), ("del\x7f", "del\\x7f"),
    ("c1\x9b31m", "c1\\x9b31m"), ("back\x08space", "back\\x08space"),
    ("evil\u202etxt.exe", "evil\\u202etxt.exe"), ("line\u2028sep", "line\\u2028sep"),
])
def test_terminal_shows_control_characters_visibly(text, shown):
    assert for_terminal(text) == shown
    assert printed(for_terminal(text)) == shown + "\n"


def test_terminal_keeps_newlines_tabs_and_unicode():
    assert for_terminal("one\n\ttwo 名前 ✓ é") == "one\n\ttwo 名前 ✓ é"


def test_lone_surrogates_from_undecodable_file_names_are_shown():
    name = os.fsdecode(b"caf\xe9")  # a Latin-1 file name on a UTF-8 system
    assert name == "caf\udce9"
    assert for_terminal(name) == "caf\\udce9"
    assert visible(name).encode("utf-8")  # always encodable
    assert printed(for_terminal(name)) == "caf\\udce9\n"


def test_terminal_takes_any_object():
    assert for_terminal(3) == "3" and for_terminal(ValueError("[/]")) == "\\[/]"


# --- for_csv ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["=2+5", "+1", "-rf", "@SUM(A1)", "=HYPERLINK(\"http://e\")",
                                   "\uff1d1+1", " =x", '"=1', "'=already"])
def test_csv_formulas_become_text(value):
    assert for_csv(value) == "'" + value


@pytest.mark.parametrize(("value", "written"), [
    ("semi;=1+1;x", "semi;'=1+1;x"), ("a,=cmd|' /C calc'!A0", "a,'=cmd|' /C calc'!A0"),
    ("a; @SUM(1)", "a;' @SUM(1)"), ('x;"=1"', "x;'\"=1\""), ("x\t=1+1", "x\\t=1+1"),
    ("tab\t-1", "tab\\t-1"), ("ok; fine, really", "ok; fine, really"), ("O'Brien", "O'Brien"),
    ("f({'id': 'a', 'n': -1})", "f({'id': 'a', 'n': -1})"), ("'x, 'y", "'x, 'y"),
])
def test_csv_no_segment_after_a_separator_starts_a_formula(value, written):
    assert for_csv(value) == written


def test_csv_shows_control_characters_visibly():
    assert for_csv("\rx") == "\\rx" and for_csv("\tx") == "\\tx"
    assert for_csv("bell\x07") == "bell\\x07" and for_csv("a\x1b[31m") == "a\\x1b[31m"
    assert for_csv("new\nline\ttab") == "new\\nline\\ttab"  # one line, no raw tab
    assert for_csv(os.fsdecode(b"caf\xe9")) == "caf\\udce9"
    assert for_csv("honest\u00a0") == "honest\\xa0" and for_csv("a\u200bb") == "a\\u200bb"


@pytest.mark.parametrize("value", ["ada", "名前 with space", "", "a=b", "a;b,c", "x-1", 5,
                                   -3, 2.5, 0, None])
def test_csv_leaves_everything_else_alone(value):
    assert for_csv(value) == value


def test_csv_cells_round_trip_through_the_csv_module():
    handle = io.StringIO()
    writer = csv.writer(handle)
    writer.writerow([for_csv(v) for v in ["=2+5", "a,b", 'say "hi"', "new\nline", -1]])
    handle.seek(0)
    assert next(csv.reader(handle)) == ["'=2+5", "a,b", 'say "hi"', "new\\nline", "-1"]


CSV_TEXT = st.text(st.sampled_from("=+-@;,\t\r\n '\"ab\uff1d\u00a0"), max_size=12)


def formula_cells(text: str) -> list[str]:
    """The cells of a CSV text that start a formula when a spreadsheet reads it with ``,``,
    ``;`` or a tab as its separator, honouring quotes or splitting naively."""
    found = [line for line in text.split("\r\n") if "\t" in line or "\r" in line]  # raw
    for separator in SEPARATORS:
        cells = [cell for row in csv.reader(io.StringIO(text, newline=""), delimiter=separator)
                 for cell in row]
        cells += [cell for line in text.splitlines() for cell in line.split(separator)]
        found += [cell for cell in cells if cell.lstrip(' "\r\n').startswith(FORMULA_STARTS)]
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(CSV_TEXT, min_size=1, max_size=4))
def test_no_cell_starts_a_formula_in_any_locale(values):
    handle = io.StringIO(newline="")
    csv.writer(handle).writerow([for_csv(v) for v in values])
    assert formula_cells(handle.getvalue()) == []
    assert formula_cells('a;=1+1,"b;=2"') != []  # the check can fail


@settings(max_examples=300, deadline=None)
@given(CSV_TEXT, CSV_TEXT)
def test_escaping_never_makes_two_names_one_cell(a, b):
    if a != b and names.problem(a) is None and names.problem(b) is None:
        assert for_csv(a) != for_csv(b)


def test_every_invisible_character_is_shown():
    """`escape.INVISIBLE` covers every format character, every space but U+0020 and the line
    and paragraph separators of this Python's Unicode database."""
    for code in range(0x110000):
        char = chr(code)
        category = unicodedata.category(char)
        if category in ("Cf", "Zl", "Zp", "Cc") or (category == "Zs" and char != " "):
            assert visible(char, keep_lines=False) != char, f"U+{code:04X} is not shown"


@pytest.mark.parametrize(("name", "why"), [
    (os.fsdecode(b"bad\xff"), "is not UTF-8 (its byte 0xFF is not text"),
    ("honest\u00a0", "U+00A0 NO-BREAK SPACE"), ("02-greedy-pack\u200b", "U+200B ZERO WIDTH SPACE"),
    ("a\u00adb", "U+00AD SOFT HYPHEN"), ("\ufeffada", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("bell\x07", "cannot be seen (U+0007"), ("ada ", "starts or ends with a space"),
    ("a  b", "two in a row"), ("ada\\x07", "backslash"),
    ("\uff41da", "U+FF41 FULLWIDTH LATIN SMALL LETTER A"),
    ("cafe\u0301", "U+0301 COMBINING ACUTE ACCENT"),
    ("h\u043enest", "mixes Cyrillic and Latin letters, which look alike (U+043E CYRILLIC SMALL"),
])
def test_names_that_pass_for_others_are_refused(name, why):
    assert why in names.problem(name)


@pytest.mark.parametrize("name", ["ada", "名前 with space", "Zoë Ñúñez 山田", "Иван", "Ζωή",
                                  "=2+5", "-rf", "grades.csv", "semi;=1+1;x", "café"])
def test_names_of_any_script_are_identities(name):
    assert names.problem(name) is None


# --- for_markdown ----------------------------------------------------------------------------


def test_markdown_escapes_each_special_character():
    assert for_markdown("a|b") == "a\\|b"
    assert for_markdown("<script>&") == "&lt;script&gt;&amp;"
    assert for_markdown("[x](http://e)") == "\\[x\\](http://e)"
    assert for_markdown("*b* _i_ `c` ~s~") == "\\*b\\* \\_i\\_ \\`c\\` \\~s\\~"
    assert for_markdown("back\\slash") == "back\\\\slash"
    assert for_markdown("one\ntwo\r\tthree\x1b") == "one\\\\ntwo\\\\r\\\\tthree\\\\x1b"


HOSTILE = ["a|b", "<script>alert(1)</script>", "[click](http://evil)", "**bold** _it_",
           "`code`", "new\nline | row", "back\\|slash", "&amp; &lt;", "~~gone~~", "x\x1by"]


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_renders_literally_inline_and_in_a_table(text):
    renderer = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    inline = renderer.render(f"not graded: {for_markdown(text)} here")
    table = renderer.render(f"| name | n |\n|---|---|\n| {for_markdown(text)} | 1 |\n")
    literal = html.escape(visible(text, keep_lines=False), quote=False).replace('"', "&quot;")
    assert inline == f"<p>not graded: {literal} here</p>\n"
    assert table.count("<td>") == 2 and f"<td>{literal}</td>" in table
    for tag in ("<script", "<a ", "<strong", "<em", "<code", "<s>", "<del"):
        assert tag not in inline and tag not in table


# --- the reports, without grading anything ---------------------------------------------------


def misconception() -> Misconception:
    return Misconception("crash", "the function raised an exception", "01-the-window-is-finite")


def huge_result(failures: int = 3) -> Result:
    """12,000 notes and failure texts of a megabyte each, in characters that escaping grows."""
    big = "<&>\U0001f600" * 250_000
    failures = [Failure(f"check {i} {big}", f"total_tokens({big})", big, big, misconception())
                for i in range(failures)]
    groups = [GroupScore("visible", "the visible tests", True, 0, 1, ["passed one"], failures),
              GroupScore("edge-cases", "edge cases", False, 2, 2, ["all"] * 5000, [])]
    return Result("ada", EXERCISE.name, 2, 3, groups,
                  notes=[f"When your notebook's code ran, cell {i} raised ValueError: x"
                         for i in range(12_000)],
                  output="printed line\n" * 500_000)


def rendered(result: Result) -> tuple[str, dict, str]:
    """feedback.html, results.json's data and its text, each checked to be within bounds."""
    page = report.feedback_html(result)
    data = report.gradescope(result)
    text = json.dumps(data, indent=2) + "\n"
    assert len(page.encode()) <= report.MAX_BYTES and len(text.encode()) <= report.MAX_BYTES
    check_gradescope(json.loads(text))
    assert data["score"] == 2 and [t["status"] for t in data["tests"]] == ["failed", "passed"]
    assert data["extra_data"]["groups"][0]["misconceptions"] == ["crash"]
    assert data["extra_data"]["student"] == "ada"
    return page, data, text


def test_feedback_and_results_are_bounded_and_say_what_was_cut():
    page, data, text = rendered(huge_result())
    assert "11,960 more notes were cut" in page and "11,960 more notes were cut" in text
    assert "more characters were cut" in page and "earlier characters were cut" in page
    assert "more characters were cut" in text
    assert "4,960 more passed checks" in page
    assert len(data["extra_data"]["notes"]) == report.LIMITS["notes"] + 1
    assert "cut to 200 KB" not in page + text  # the per-item limits were enough


def test_what_escaping_makes_too_big_is_cut_again():
    page, data, text = rendered(huge_result(failures=60))
    assert "(This page was cut to 200 KB.)" in page
    assert "(These results were cut to 200 KB.)" in data["output"]
    assert re.search(r"[\d,]+ more notes were cut", page)
    assert re.search(r"[\d,]+ more failing checks in Visible tests were cut", text)


def test_a_small_result_is_not_cut():
    result = Result("ada", EXERCISE.name, 3, 3, notes=["one note"], output="hi\n")
    page, data = report.feedback_html(result), report.gradescope(result)
    assert "cut" not in page and "cut" not in json.dumps(data)
    assert data["output"] == "Score: 3 / 3\nNote: one note"


def test_no_sandbox_is_said_everywhere(tmp_path):
    result = Result("ada", EXERCISE.name, 3, 3, sandbox="none")
    report.write_submission(tmp_path, result)
    folder = tmp_path / "students" / "ada" / EXERCISE.name
    assert "graded WITHOUT a sandbox" in (folder / "feedback.html").read_text()
    data = json.loads((folder / "results.json").read_text())
    assert "graded WITHOUT a sandbox" in data["output"]
    assert data["extra_data"]["sandbox"] == "none"
    row = grades_row(_results(tmp_path, Task("ada", EXERCISE.name, None)))
    assert row["sandbox"] == "none"
    report.write_grades(tmp_path, [row])
    with open(tmp_path / "grades.csv", newline="") as handle:
        (written,) = csv.DictReader(handle)
    assert written["sandbox"] == "none (graded WITHOUT a sandbox)"
    assert "graded WITHOUT a sandbox" in summary.summary([row])
    assert "graded WITHOUT a sandbox" in summary.summary_markdown([row], {})


def test_sandbox_column_defaults_to_bubblewrap(tmp_path):
    report.write_submission(tmp_path, Result("ada", EXERCISE.name, 3, 3))
    data = _results(tmp_path, Task("ada", EXERCISE.name, None))
    assert grades_row(data)["sandbox"] == "bubblewrap"
    del data["extra_data"]["sandbox"]  # results.json of an older run
    assert grades_row(data)["sandbox"] == "bubblewrap"
    assert "WITHOUT" not in summary.summary([grades_row(data)])


def test_results_of_another_task_are_not_taken(tmp_path):
    report.write_submission(tmp_path, Result("ada", EXERCISE.name, 3, 3))
    folder = tmp_path / "students" / "bo" / EXERCISE.name
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(
        (tmp_path / "students" / "ada" / EXERCISE.name / "results.json").read_text())
    assert _results(tmp_path, Task("bo", EXERCISE.name, None)) is None


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "/etc"])
def test_a_name_that_is_not_a_folder_name_is_refused(tmp_path, name):
    with pytest.raises(ValueError):
        report.write_submission(tmp_path, Result(name, EXERCISE.name))
    assert not list(tmp_path.rglob("*.json"))


def test_remove_partial_looks_in_the_new_layout(tmp_path):
    temp = tmp_path / "students" / "ada" / EXERCISE.name / ".results.json.abc"
    temp.parent.mkdir(parents=True)
    temp.write_text("{")
    (tmp_path / ".grades.csv.xyz").write_text("")
    assert sorted(outfolder.remove_partial(tmp_path)) == \
        sorted([temp, tmp_path / ".grades.csv.xyz"])
    assert not temp.exists()


def test_summary_markdown_escapes_names_and_reasons():
    rows = [{"student": "a|b\n# evil", "assignment": "<x>", "score": 0, "max_score": 3,
             "status": "not graded", "reason": "[link](http://e) *x*"}]
    markdown = summary.summary_markdown(rows, {})
    assert "- not graded: a\\|b\\\\n# evil / &lt;x&gt;: \\[link\\](http://e) \\*x\\*" in markdown
    assert summary.summary(rows).splitlines()[1] == \
        "  not graded: a|b\\n# evil / <x>: [link](http://e) *x*"


# --- a class of hostile folder names, graded end to end --------------------------------------

NAMES = ["=2+5", "grades.csv", "-rf", "名前 with space", "[bold red]x", "a[@click=(]", "bell\x07",
         "new\nline", "summary.md", "students", "\x1b[2Jclear", "semi;=1+1;x", "ada\u00a0"]
# "[bold red]x[/]" and "a[/]" cannot be folder names ("/"): rich's markup with a slash is
# checked through `packlab check` below, where it comes from what the student's code raises.
EXTRA = "zz\x1b[31m[bold]extra"  # not an assignment: each student's own row lists it, by name
UNDECODABLE = os.fsdecode(b"caf\xe9")
# Names that could pass for others (`autograder.names`): refused, each on rows of its own.
REFUSED = ["bell\x07", "new\nline", "\x1b[2Jclear", "ada\u00a0", UNDECODABLE]


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    submitted = tmp_path_factory.mktemp("class") / "submitted"
    reference = with_answer(EXERCISE, None)
    for name in NAMES:
        submit(submitted, name, EXERCISE, reference)
        (submitted / name / EXTRA).mkdir()
    submit(submitted, UNDECODABLE, EXERCISE, reference)
    (submitted / "a file, not a student").write_text("ignored")
    (submitted / "-rf" / "notes.txt").write_text("ignored too")
    out = submitted.parent / "out"
    rows = grade_class(submitted, out, jobs=2, limits=FAST)
    return submitted, out, rows, [*NAMES, UNDECODABLE]


def test_every_hostile_name_is_a_student_with_a_row(hostile_class):
    submitted, out, rows, students = hostile_class
    assert sorted((r["student"], r["assignment"]) for r in rows) == \
        sorted([(n, EXERCISE.name) for n in students] + [(n, EXTRA) for n in NAMES])
    for row in rows:
        if row["assignment"] != EXERCISE.name:
            assert "not an assignment of this course" in row["reason"]
        elif row["student"] in REFUSED:
            assert row["status"] == "not graded" and "its name" in row["reason"], row
            assert names.problem(row["student"]) in row["reason"]
        else:
            assert (row["status"], row["score"]) == ("graded", EXERCISE.max_score), row
    assert [t.student for t in discover(submitted)].count("=2+5") == 2


def test_class_files_and_student_files_do_not_collide(hostile_class):
    _, out, _, students = hostile_class
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == \
        ["class.json", "class.png", "grades.csv", "misconceptions.csv", "students", "summary.md"]
    assert (out / "grades.csv").is_file() and (out / "summary.md").is_file()
    for name in students:
        folder = out / "students" / name / EXERCISE.name
        data = json.loads((folder / "results.json").read_text())
        assert data["extra_data"]["student"] == name
        assert data["score"] == (0 if name in REFUSED else EXERCISE.max_score)


def test_feedback_pages_show_invisible_characters_in_names(hostile_class):
    _, out, _, _ = hostile_class
    page = (out / "students" / "ada\u00a0" / EXERCISE.name / "feedback.html").read_text()
    assert "feedback for ada\\xa0</h1>" in page and "\u00a0" not in page
    assert "U+00A0 NO-BREAK SPACE" in page


def test_grades_csv_holds_no_formula(hostile_class):
    _, out, rows, _ = hostile_class
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        written = list(csv.DictReader(handle))
    assert len(written) == len(rows)
    students = {r["student"] for r in written}
    assert {"'=2+5", "'-rf", "grades.csv", "名前 with space", "new\\nline", "caf\\udce9",
            "bell\\x07", "\\x1b[2Jclear", "semi;'=1+1;x", "ada\\xa0"} <= students
    assert "\x1b" not in (out / "grades.csv").read_text()
    assert formula_cells((out / "grades.csv").read_text(encoding="utf-8")) == []
    for row in written:
        assert row["sandbox"] == ("bubblewrap" if row["status"] == "graded" else ""), row
    assert list(written[0])[:len(report.GRADES_FIELDS)] == report.GRADES_FIELDS


def test_summary_md_escapes_the_names(hostile_class):
    _, out, _, _ = hostile_class
    markdown = (out / "summary.md").read_text()
    assert "\x1b" not in markdown and "\x07" not in markdown
    assert "- not graded: \\[bold red\\]x / zz\\\\x1b\\[31m\\[bold\\]extra:" in markdown
    assert "- not graded: new\\\\nline / " in markdown  # one line per submission


def test_grade_command_prints_names_literally(hostile_class, tmp_path, capsys):
    submitted, _, _, _ = hostile_class
    assert main(["grade", str(submitted), "--out", str(tmp_path / "out"), "--jobs", "2",
                 "--call-seconds", "1", "--setup-seconds", "5"]) == 1  # EXTRA is not ours
    captured = capsys.readouterr()
    text = captured.out
    assert "MarkupError" not in text + captured.err
    assert "\x1b" not in text and "\x07" not in text
    flat = " ".join(text.split())  # rich may wrap long lines at spaces
    for shown in ("=2+5", "grades.csv", "-rf", "名前 with space", "[bold red]x", "a[@click=(]",
                  "bell\\x07", "new\\nline", "caf\\udce9", "\\x1b[2Jclear",
                  "zz\\x1b[31m[bold]extra"):
        assert f"not graded: {shown} / " in flat or f"/ {shown}:" in flat, shown
    assert f"{len(NAMES) + len(REFUSED)} could not be graded" in flat  # EXTRA, and REFUSED


def test_check_command_prints_what_the_code_raised_literally(tmp_path, capsys):
    code = ("def total_tokens(parts):\n"
            "    raise ValueError('a[/] [bold red]x[/] \\x1b[2J\\x07 end')\n")
    path = submit(tmp_path, "me", EXERCISE, with_answer(EXERCISE, code))
    assert main(["check", str(path)]) == 1
    captured = capsys.readouterr()
    assert "MarkupError" not in captured.out + captured.err
    assert "\x1b" not in captured.out and "\x07" not in captured.out
    assert "a[/] [bold red]x[/] \\x1b[2J\\x07 end" in captured.out


# --- 12,000 cells that each raise, graded end to end ----------------------------------------


def test_a_notebook_of_12000_raising_cells_gives_bounded_files(tmp_path):
    notebook = with_answer(EXERCISE, None)
    notebook.cells += [nbformat.v4.new_code_cell('raise ValueError("x")')
                       for _ in range(12_000)]
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    submit(submitted, "many", EXERCISE, notebook)
    (row,) = grade_class(submitted, out, jobs=1,
                         limits=Limits(call_seconds=2.0, setup_seconds=60.0))
    folder = out / "students" / "many" / EXERCISE.name
    page, results = (folder / "feedback.html").read_bytes(), (folder / "results.json").read_bytes()
    assert len(page) <= report.MAX_BYTES and len(results) <= report.MAX_BYTES
    data = json.loads(results)
    check_gradescope(data)
    assert row["status"] == "graded", row
    assert re.search(r"more (notes|cells)", page.decode()), "the page says what was cut"


@pytest.mark.parametrize(("group", "scripts"), [
    (["coco", "\u0441\u043e\u0441\u043e"], ["Latin", "Cyrillic"]),  # сосо: whole-script
    (["coco", "\u0441oco"], ["Latin", "Cyrillic and Latin"]),  # сoco: mixed
    (["Alpha", "\u0391lpha"], ["Latin", "Greek and Latin"]),  # a Greek capital alpha
    (["EPOXA", "\u0415\u0420\u041e\u0425\u0410"], ["Latin", "Cyrillic"]),  # ЕРОХА
])
def test_names_that_look_alike_are_found_and_kept(group, scripts):
    students = [*group, "honest", "ada", "Ada", "bo"]
    assert names.look_alikes(students) == [sorted(group)]
    assert [names.scripts(name) for name in group] == scripts


def test_different_names_are_not_look_alikes():
    assert names.look_alikes(["ada", "Ada", "adam", "ана", "bo", "b0b", "bob", "\u4e2d"]) == []
