"""Running one submission: read what was handed in, start its sandbox, call its functions.

`handed_in` opens a student's files (regular files only, size-limited); `submission` reads the
notebook's code; `isolation` and `sandbox` confine the student's code (bubblewrap) and speak to
`autograder.worker` inside it over pipes with deadlines; `engine` grades one notebook with its
exercise's suite (`autograder.checks`). Never imports the class, term or glue layers.
"""
