"""What the visible checks catch of the mutant gallery (a script, not a test).

Two figures, for issue 18's "no learner is told passed while points remain":

- how many gallery mutants the visible checks alone catch (what a student install can tell);
- how many of them, run as a notebook does in the course's own install (hidden tests present),
  show no failing check at all (every test group run, as the released notebook runs them).

The second figure counts the checks the notebook runs, so it is 0 exactly when a self-paced
learner's notebook reports every group.

Run: .venv/bin/python benchmarks/mutants.py [--list]
"""

from __future__ import annotations

import argparse

from autograder.checks import gallery
from autograder.checks.suite import in_process_caller, run_group
from autograder.checks.suites import load
from packlab.course.check import notebook_groups


def fails(mutant: gallery.Mutant, groups: list[str]) -> bool:
    """Whether some check of these groups fails for the mutant."""
    suite = load(mutant.suite)
    scope: dict = {}
    exec(compile(mutant.code, mutant.key, "exec"), scope)  # noqa: S102 - the course's own gallery
    call = in_process_caller(scope[suite.function])
    return any(not run_group(suite.group(name), call).ok for name in groups)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--list", action="store_true", help="name the mutants not caught")
    shown = parser.parse_args().list
    mutants = gallery.every()
    missed = [m.key for m in mutants if not fails(m, [group.name for group in load(m.suite).groups
                                                      if group.visible])]
    silent = [m.key for m in mutants
              if not fails(m, notebook_groups(load(m.suite)))]
    print(f"visible checks catch {len(mutants) - len(missed)} of {len(mutants)} gallery mutants")
    print(f"run top to bottom in the course's own install, {len(silent)} of {len(mutants)} "
          "show no failing check")
    if shown:
        print("not caught by the visible checks:", *missed, sep="\n  ")
        print("no failing check in the notebook:", *silent, sep="\n  ")


if __name__ == "__main__":
    main()
