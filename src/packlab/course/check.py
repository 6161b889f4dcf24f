"""Checking an answer from inside its notebook: the test cells call `run_tests`.

nbgrader's test cells and the learner's own runs both come here, so they print the same plain
messages. A failing group raises `TestsFailed`, which Jupyter shows as the message alone (no
traceback) while nbgrader still counts the cell as failed.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable

from autograder.suite import GroupResult, in_process_caller, run_group
from autograder.suites import load
from packlab.course.manifest import load as load_course


class TestsFailed(AssertionError):
    """Some checks of a test cell failed; the message says which and why."""


def _short_display(shell, etype, value, tb, tb_offset=None):
    """Show a failed test cell as its message, not a traceback (still an error for nbgrader)."""
    short = [f"{etype.__name__}: {value}"]
    shell._showtraceback(etype, value, short)  # IPython does not show what this returns
    return short


def _install_display() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((TestsFailed,), _short_display)


def summary(exercise: str, result: GroupResult, hidden: bool) -> str:
    """What passed and what failed, in words."""
    lines = [f"✓ {name}" for name in result.passed] if not hidden else []
    lines += [failure.message() for failure in result.failures]
    total = len(result.passed) + len(result.failures)
    if result.ok:
        lines.append("The check passed." if total == 1 else f"All {total} checks passed.")
    else:
        lines.append(
            f"{len(result.failures)} of {total} checks failed. Stuck? "
            f"Run `packlab hint {exercise}` in a terminal, or "
            f"`from packlab.course.hints import hint; hint(\"{exercise}\")` in a cell."
        )
    return "\n".join(lines)


def run_tests(exercise: str, func: Callable, group: str = "visible") -> None:
    """Run one test group of an exercise's suite against ``func`` and print the result."""
    _install_display()
    suite_group = load(load_course().exercise(exercise).suite).group(group)
    # What the learner's code writes to stderr (warnings included) would make nbgrader fail the
    # cell whatever the checks say; the sandboxed grader ignores it too, so both agree.
    with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_group(suite_group, in_process_caller(func))
    text = summary(exercise, result, hidden=not suite_group.visible)
    if not result.ok:
        raise TestsFailed("\n" + text)
    print(text)
