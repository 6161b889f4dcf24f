"""nbgrader configuration: solutions/ is the source, exercises/ the release."""

c = get_config()  # noqa: F821 - provided by nbgrader

c.CourseDirectory.course_id = "packlab"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

# After a cell's reply, nbgrader waits this long for its last output, then fails the whole
# notebook ("There was an error processing assignment"). Its default, 4 s, fails sound notebooks
# on a busy machine (nbgrader #1230): it did on a two-core CI run. packlab's plain grading reads
# the same setting.
c.Execute.iopub_timeout = 60

# The two chains below are nbgrader's own defaults (nbgrader 0.9), written out by name with one
# step of packlab's added to each. By name, this file imports nothing: `packlab grade` reads it
# (does the course name an exchange?) without loading nbgrader, a second of CPU. A test holds
# each chain to nbgrader's installed default (tests/test_nbgrader_feedback.py).
_PRE = "nbgrader.preprocessors."

# The bug-fix exercise starts from buggy code, not from `raise NotImplementedError`:
# right after nbgrader clears the solution, put the starter named in course.toml in its place.
c.GenerateAssignment.preprocessors = [
    _PRE + "headerfooter.IncludeHeaderFooter",
    _PRE + "instantiatetests.InstantiateTests",
    _PRE + "lockcells.LockCells",
    _PRE + "clearsolutions.ClearSolutions",
    "autograder.glue.release.UseStarterCode",
    _PRE + "clearoutput.ClearOutput",
    _PRE + "checkcellmetadata.CheckCellMetadata",
    _PRE + "computechecksums.ComputeChecksums",
    _PRE + "savecells.SaveCells",
    _PRE + "clearhiddentests.ClearHiddenTests",
    _PRE + "clearmarkingscheme.ClearMarkScheme",
    _PRE + "computechecksums.ComputeChecksums",
    _PRE + "checkcellmetadata.CheckCellMetadata",
]

# Feedback must not show the hidden tests (nbgrader #917: the autograded notebook it renders has
# them back): right after nbgrader reads the grades, replace their code by a note and show test
# cell errors as packlab's message alone, no traceback.
c.GenerateFeedback.preprocessors = [
    _PRE + "getgrades.GetGrades",
    "autograder.glue.feedback.HideHiddenTests",
    "nbconvert.preprocessors.csshtmlheader.CSSHTMLHeaderPreprocessor",
]

# `nbgrader export`: raw_score is the score before packlab's late penalty and overrides, which it
# writes into the gradebook as extra credit (score stays the total formgrader shows).
c.ExportApp.plugin_class = "autograder.glue.export.RawScoreExport"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
