"""The course's reference answers: the graded contract of every exercise, instructor-only.

Each exercise's suite judges an answer against the function here (``Suite.reference``, the
expected answers of the hidden tests, and the answers the diagnosis compares a wrong answer
with). `packlab student-build` never copies this package (`packlab.course.student.NEVER`): the
student install's visible checks read the answers recorded for their exact calls instead
(`autograder.checks.recorded`), and `packlab.packing` keeps teaching versions that do not meet the
graded contract. The similarity report lists an answer that is mostly code from here.
"""
