"""Checking an answer from inside its notebook: the test cells call `run_tests`.

nbgrader's test cells and the learner's own runs both come here, so they print the same plain
messages. A failing group raises `TestsFailed`, which Jupyter shows as the message alone (no
traceback) while nbgrader still counts the cell as failed.
"""

from __future__ import annotations

from collections.abc import Callable

from autograder.suite import GroupResult, in_process_caller, run_group
from autograder.suites import load


class TestsFailed(AssertionError):
    """Some checks of a test cell failed; the message says which and why."""


def _short_display(shell, etype, value, tb, tb_offset=None):
    """Show a failed test cell as its message, not a traceback (still an error for nbgrader)."""
    return [f"{etype.__name__}: {value}"]


def _install_display() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((TestsFailed,), _short_display)


def summary(function: str, result: GroupResult, hidden: bool) -> str:
    """What passed and what failed, in words."""
    lines = [f"✓ {name}" for name in result.passed] if not hidden else []
    lines += [failure.message() for failure in result.failures]
    total = len(result.passed) + len(result.failures)
    if result.ok:
        lines.append(f"All {total} checks passed.")
    else:
        lines.append(
            f"{len(result.failures)} of {total} checks failed. Stuck? "
            f"Run `packlab hint {function}` in a terminal, or `hint(\"{function}\")` here."
        )
    return "\n".join(lines)


def run_tests(function: str, func: Callable, group: str = "visible") -> GroupResult:
    """Run one test group of ``function``'s suite against ``func`` and print the result."""
    _install_display()
    suite_group = load(function).group(group)
    result = run_group(suite_group, in_process_caller(func))
    text = summary(function, result, hidden=not suite_group.visible)
    if not result.ok:
        raise TestsFailed("\n" + text)
    print(text)
    return result
