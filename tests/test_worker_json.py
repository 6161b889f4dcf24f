"""The sandbox worker reads and writes JSON with json's C core (`autograder.worker.loads` and
`dumps`), so that starting it, once per submission, does not import `re` and `enum`: what it
writes and reads must be exactly what `json.dumps` and `json.loads` would have."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import worker
from autograder.run.isolation import PYTHON_FLAGS
from autograder.run.sandbox import WORKER_SOURCE

scalars = (st.none() | st.booleans() | st.integers() | st.integers(-10**80, 10**80)
           | st.floats() | st.text())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=30)


def _both(make, value):
    try:
        return make(value)
    except ValueError as exc:
        return ("ValueError", str(exc))


@settings(max_examples=300)
@given(values)
def test_the_worker_writes_what_json_dumps_writes(value):
    assert _both(worker.dumps, value) == _both(lambda v: json.dumps(v, allow_nan=False), value)


@settings(max_examples=300)
@given(values)
def test_the_worker_reads_the_grader_s_lines_as_json_loads_does(value):
    line = json.dumps(value)  # the grader's request: NaN and infinities allowed
    assert repr(worker.loads(line + "\n")) == repr(json.loads(line))


def test_replies_that_are_not_json_are_refused_alike():
    for line in ("", "{", "nope", "[1,"):
        for read in (worker.loads, json.loads):
            try:
                read(line)
            except ValueError:
                continue
            raise AssertionError(f"{read} read {line!r}")


def test_the_worker_starts_without_importing_re_enum_or_json():
    body = WORKER_SOURCE.replace('if __name__ == "__main__":\n    main()', "")
    slow = {"re", "enum", "json", "signal"}
    probe = f"{body}\nimport sys\nprint(sorted({slow!r} & set(sys.modules)))"
    done = subprocess.run([sys.executable, *PYTHON_FLAGS, "-c", probe], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"
