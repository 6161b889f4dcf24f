"""What ties the grader to nbgrader and Gradescope.

`release` and `feedback` are nbgrader preprocessors (named in nbgrader_config.py); `gradescope`
builds and runs the Gradescope autograder. The top layer: nothing below imports it.
"""
