"""The course itself: its manifest and what serves it (the command line, the workspace, hints,
checks, quizzes, the book, slides, the workshop and the release)."""
