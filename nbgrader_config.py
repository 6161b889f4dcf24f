"""nbgrader configuration: solutions/ is the source, exercises/ the release."""

from nbgrader.converters.generate_assignment import GenerateAssignment
from nbgrader.converters.generate_feedback import GenerateFeedback
from nbgrader.preprocessors import ClearSolutions, GetGrades

c = get_config()  # noqa: F821 - provided by nbgrader

c.CourseDirectory.course_id = "packlab"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

# The bug-fix exercise starts from buggy code, not from `raise NotImplementedError`:
# right after nbgrader clears the solution, put the starter named in course.toml in its place.
_generate = list(GenerateAssignment.class_traits()["preprocessors"].default())
_generate.insert(_generate.index(ClearSolutions) + 1, "autograder.glue.release.UseStarterCode")
c.GenerateAssignment.preprocessors = _generate

# Feedback must not show the hidden tests (nbgrader #917: the autograded notebook it renders has
# them back): right after nbgrader reads the grades, replace their code by a note and show test
# cell errors as packlab's message alone, no traceback.
_feedback = list(GenerateFeedback.class_traits()["preprocessors"].default())
_feedback.insert(_feedback.index(GetGrades) + 1, "autograder.glue.feedback.HideHiddenTests")
c.GenerateFeedback.preprocessors = _feedback

# `nbgrader export`: raw_score is the score before packlab's late penalty and overrides, which it
# writes into the gradebook as extra credit (score stays the total formgrader shows).
c.ExportApp.plugin_class = "autograder.glue.export.RawScoreExport"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
