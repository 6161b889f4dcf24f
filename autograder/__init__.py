"""The grading side of packlab: test suites, the mutant gallery, the sandbox and the grading engine.

Nothing in this package imports or executes a student's code in its own process: student code runs
in `autograder.worker`, a separate, limited process, and only plain data comes back.
"""
