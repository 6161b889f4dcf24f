"""One test suite per exercise function: ``load("pack")`` is ``autograder.suites.pack.SUITE``."""

from importlib import import_module

from autograder.suite import Suite


def load(name: str) -> Suite:
    return import_module(f"autograder.suites.{name}").SUITE
