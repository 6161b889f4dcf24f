"""The hidden test groups: ``autograder.checks.hidden.<suite>.GROUPS`` are the edge cases and
properties of ``autograder.checks.suites.<suite>``, which keeps only the visible group.

They live apart so that the student build can leave this package out: learners get the visible
checks, and the hidden ones exist only in the instructor's install, where grading runs.
`autograder.checks.suites.load` joins the two.
"""
