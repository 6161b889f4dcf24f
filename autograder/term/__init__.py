"""The term: due dates and lateness, overrides and corrections, nbgrader's gradebook, exports.

`late` applies the late policy to a submission's timestamp; `overrides` and `corrections` hold
the instructor's changes to a score; `gradebook` and `autograded` keep nbgrader's gradebook and
autograded/ folder in step with packlab's results; `lms` and `bundle` hand grades back (Canvas,
Moodle, one folder per student). Uses `autograder.run` and the shared leaves only.
"""
