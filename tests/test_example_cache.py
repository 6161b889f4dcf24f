"""The property checks' stored examples: exactly what Hypothesis draws, or not used at all.

A grade must not depend on the store: its examples decode to exactly what was drawn (tuples
stay tuples, dict keys keep their types and order), a store made for other code is never read,
and a damaged or foreign file is ignored and drawn again.
"""

from __future__ import annotations

import math
import os
import time

import pytest

from autograder.checks import example_cache, tagged_json
from autograder.checks.suites import load

SUITE = "pack"  # a suite with property checks, small enough to draw in a test


def same(a, b) -> bool:
    """Equal, with the same types all the way down (1 == 1.0 == True is not enough)."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return same(list(a), list(b)) and all(same(a[k], b[k]) for k in a)
    if type(a) is float and math.isnan(a):
        return math.isnan(b)
    return a == b and (type(a) is not float or math.copysign(1, a) == math.copysign(1, b))


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A store of its own, and suites not yet given their examples in this process."""
    monkeypatch.setattr(example_cache, "FOLDER", tmp_path)
    monkeypatch.setattr(example_cache, "_prepared", set())
    return tmp_path


def checks() -> dict:
    return dict(example_cache.property_checks(SUITE, load(SUITE)))


@pytest.mark.parametrize("value", [
    (1, [2.5, -0.0, float("inf"), float("nan")], {"a": (True, None)}),
    {3: "x", (1, "y"): [{}], "z": ()},
    ["\ud800 lone surrogate", 10**40, -7, {"float": "nan"}, {"tuple": []}],
])
def test_an_example_decodes_to_exactly_what_was_encoded(value):
    import json

    assert same(tagged_json.decode(json.dumps(tagged_json.encode(value))), value)


def test_what_cannot_be_stored_exactly_is_refused():
    with pytest.raises(tagged_json.NotPlain):
        tagged_json.encode({"a": {1, 2}})


@pytest.mark.parametrize("text", [
    '{"id": "sys"}',  # a plain object: only tags are written
    '[{"tuple": [1], "dict": []}]',  # a tag with two keys
    '{"float": "1.5"}',  # a finite float is written as a number
    '{"set": [1, 2]}',  # a tag the format does not have
    '{"dict": [[1, 2, 3]]}',  # a key-value pair of three
])
def test_a_file_the_store_could_not_have_written_is_refused(text):
    with pytest.raises(tagged_json.NotPlain):
        tagged_json.decode(text)


def test_the_stored_examples_are_the_ones_hypothesis_draws(store):
    drawn = {place: examples.drawn() for place, examples in checks().items()}
    assert drawn and example_cache.prepare([SUITE]) == len(drawn)
    stored = example_cache.read(example_cache.path())
    assert set(stored) == set(drawn)
    for place, examples in checks().items():
        assert same(stored[place], drawn[place]), place
        assert same(examples(), drawn[place]), place  # what the check now replays


def test_a_changed_suite_has_a_store_of_its_own(store, tmp_path, monkeypatch):
    source = tmp_path / "pack.py"
    source.write_text("SUITE = 1\n")
    monkeypatch.setattr(example_cache, "sources", lambda: iter([("pack.py", source)]))
    example_cache.key.cache_clear()
    try:
        before = example_cache.key()
        source.write_text("SUITE = 2\n")
        example_cache.key.cache_clear()
        assert example_cache.key() != before
    finally:
        example_cache.key.cache_clear()


def test_a_store_made_for_other_code_is_not_read(store, monkeypatch):
    example_cache.prepare([SUITE])
    file = example_cache.path()
    assert example_cache.read(file)
    monkeypatch.setattr(example_cache, "key", lambda: "another version of the grader")
    assert example_cache.read(file) == {}


@pytest.mark.parametrize("damage", ["truncated", "one byte changed", "not json", "foreign",
                                    "empty", "a folder"])
def test_a_damaged_or_foreign_store_is_ignored_and_drawn_again(store, damage):
    example_cache.prepare([SUITE])
    file = example_cache.path()
    data = file.read_bytes()
    header, _, body = data.partition(b"\n")
    file.unlink()
    if damage == "a folder":
        file.mkdir()
    else:
        file.write_bytes({
            "truncated": data[:len(data) // 2],
            "one byte changed": header + b"\n" + body.replace(b"1", b"2", 1),
            "not json": b"\x00\xff" * 100,
            "foreign": header + b"\n" + body[:0] + b'[["pack/x/0/y", [{"set": [1]}]]]',
            "empty": b"",
        }[damage])
    assert example_cache.read(file) == {}
    example_cache._prepared.clear()
    assert example_cache.prepare([SUITE]) == len(checks())  # drawn again
    for examples in checks().values():
        assert same(examples(), examples.drawn())


def test_a_failed_write_leaves_nothing_behind(store):
    example_cache.path().mkdir()  # where the file should go
    example_cache.prepare([SUITE])
    assert [p.name for p in store.iterdir()] == [example_cache.path().name]


def test_a_notebooks_test_cell_uses_the_store(store, capsys):
    """A test cell in a learner's notebook (or nbgrader's kernel) reads the stored examples,
    drawing and storing them when they are missing: no seconds spent drawing at every run, and
    the same examples as the grader's."""
    from autograder.checks.reference.packers import greedy
    from packlab.course.check import run_tests

    assert not example_cache.read(example_cache.path())
    run_tests("02-greedy-pack", greedy, "properties")
    assert "passed" in capsys.readouterr().out
    stored = example_cache.read(example_cache.path())
    assert set(stored) == set(checks())
    for place, examples in checks().items():
        assert same(examples(), stored[place]), place


def test_releasing_one_exercise_draws_its_own_suites_examples_only(store, monkeypatch, capsys):
    """`packlab release NAME` (a new exercise, say) stores the examples of NAME's suite, not
    every suite's: the others are drawn when first graded, as a changed grader's are."""
    import packlab.course.release
    from packlab.course import cli
    from packlab.manifest import load as load_course

    exercise = next(e for e in load_course().exercises if e.suite == SUITE)
    released = []
    monkeypatch.setattr(packlab.course.release, "release",
                        lambda names, root: released.extend(names))
    assert cli.main(["release", exercise.name]) == 0
    assert released == [exercise.name]
    stored = example_cache.read(example_cache.path())
    assert stored and {place.split("/")[0] for place in stored} == {SUITE}
    printed = " ".join(capsys.readouterr().out.split())
    assert f"property examples: {len(checks())} checks drawn" in printed


def test_stores_of_other_versions_unwritten_for_a_month_are_removed(store):
    """Each version of the grader leaves a store behind (1.1 MB for this course): writing one
    removes the others nothing has written for STALE_DAYS, and keeps recent ones and files
    that are not stores."""
    month = example_cache.STALE_DAYS * 86400
    old, recent = store / f"{'a' * 32}.json", store / f"{'b' * 32}.json"
    mine = store / "notes.json"
    for path in (old, recent, mine):
        path.write_text("{}")
    os.utime(old, (time.time() - month - 60,) * 2)
    os.utime(mine, (time.time() - month - 60,) * 2)
    os.utime(recent, (time.time() - month + 3600,) * 2)
    example_cache.prepare([SUITE])
    assert sorted(p.name for p in store.iterdir()) == sorted(
        [example_cache.path().name, recent.name, mine.name])


def test_author_check_uses_the_store(store, monkeypatch):
    """`packlab author check` judges the reference, the starter and the mutants on the stored
    examples, as `packlab grade` does (drawing and storing them when missing), instead of
    drawing them again at every run."""
    from packlab.course.authoring.author_check import Check
    from packlab.manifest import load as load_course

    exercise = load_course().exercise("04")  # one whose author check says "ready"
    monkeypatch.setattr(Check, "_release", lambda self: None)  # not what this test is about
    assert not example_cache.read(example_cache.path())
    assert Check(exercise).problems() == []
    stored = example_cache.read(example_cache.path())
    assert set(stored) == {place for place, _ in
                           example_cache.property_checks(exercise.suite, load(exercise.suite))}
