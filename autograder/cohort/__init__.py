"""A class: grading every submission of an assignment and reporting what happened.

`classroom` finds the submissions and grades them in parallel (`cluster`: on Dask); `task` is one
submission's grading, which never raises; `record` keeps what was graded, for reruns; `report`
writes each submission's feedback and grades.csv; `summary` and `misconceptions` the class's
summary; `similarity` lists answers too alike. Applies the term's rules (`autograder.term`).
"""
