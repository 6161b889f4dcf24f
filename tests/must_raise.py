"""A must-raise exercise made with `packlab new-exercise --raises`, from nothing to a graded
class, as an instructor would make it: the scaffold's commands, the author's writing into the
files the guide names (and nowhere else), the release, the recording, `author check` and
`packlab grade`. tests/test_must_raise_exercise.py asserts what each step says;
benchmarks/new_exercise.py times the walk.

The exercise: ``newest_ids(turns, count)``, the ids of the ``count`` newest turns, oldest first;
a negative count is refused with ValueError. Its second argument is a count, not tokens: the
scaffold leaves it out of each student's variation.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import nbformat

FUNCTION = "newest_ids"
SLUG = "newest-ids"
CHECKS = Path("autograder/checks")

# What the author writes: (old, new) in each scaffold file, every FILL IN replaced.
BODY = ('    if count < 0:\n        raise ValueError(f"count must be 0 or more, not {count}")\n'
        '    return [turn["id"] for turn in turns[len(turns) - count:]] if count else []\n')
STUB = f'    raise NotImplementedError("FILL IN: the reference answer of {FUNCTION}")\n'


def turns(*tokens: int) -> list[dict]:
    return [{"id": "abcdefgh"[n], "tokens": t} for n, t in enumerate(tokens)]


SUITE = [
    ('"FILL IN: why newest_ids must refuse such input (raise "\n'
     '                         "ValueError) rather than answer."',
     '"a negative count asks for nothing that exists: refuse it with ValueError."'),
    ('"FILL IN: why this input is one newest_ids must answer, not "\n'
     '                          "refuse."',
     '"a count of 0, or more than there are turns, is a fair question: answer it."'),
    ('"FILL IN: the idea behind a wrong answer that no other key names."',
     '"the newest turns are at the end of the list: take the last count ids, oldest first."'),
    ("VISIBLE = [\n]",
     f"VISIBLE = [\n    (\"two of three turns\", ['b', 'c'], {turns(1, 2, 3)!r}, 2),\n"
     "    (\"a count of -1 is refused\", ValueError(\"count must be 0 or more\"), [], -1),\n]"),
    ('"FILL IN: what the visible tests try, in one sentence."',
     '"Two of three turns, and a negative count."'),
]
HIDDEN = [
    ("EDGE_CASES = [\n]",
     f"EDGE_CASES = [\n    (\"a count of 0 keeps nothing\", {turns(5)!r}, 0),\n"
     f"    (\"a count past the end keeps every turn\", {turns(5, 1)!r}, 9),\n"
     f"    (\"one turn of three\", {turns(5, 1, 2)!r}, 1),\n"
     f"    (\"a count of -2 is refused\", {turns(5)!r}, -2),\n]"),
    ("examples: st.SearchStrategy | None = None",
     "examples: st.SearchStrategy | None = st.tuples(st.lists(st.builds(\n"
     "    lambda n: {\"id\": f\"t{n}\", \"tokens\": n}, st.integers(0, 99)), max_size=6),\n"
     "    st.integers(-3, 8))"),
    ('"FILL IN: what the edge cases try, in one sentence."',
     '"Counts of 0, past the end, one, and a negative one."'),
    ('"FILL IN: what holds for generated input, in one sentence."',
     '"Generated turns and counts: the course\'s answer, the turns unchanged."'),
]
NOTEBOOK = [
    ("FILL IN: what to write, with one example call and its answer, and which input it refuses "
     "with a ValueError.",
     "Return the ids of the `count` newest turns, oldest first: of three turns a, b, c, "
     "`newest_ids(turns, 2)` is `['b', 'c']`. A negative count raises ValueError."),
    ('"""FILL IN: what it returns, in one line."""',
     '"""The ids of the count newest turns, oldest first."""'),
    ('    raise NotImplementedError("FILL IN: the model answer")\n', BODY),
]
MUTANTS = {  # file -> (its misconception, what it does, its body)
    "oldest.py": ("wrong-answer", "takes the oldest turns",
                  "    if count < 0:\n        raise ValueError('no')\n"
                  "    return [t['id'] for t in turns[:count]]\n"),
    "no_refusal.py": ("accepts-bad-input", "answers a negative count",
                      "    return [t['id'] for t in turns[len(turns) - count:]] if count > 0 "
                      "else []\n"),
    "type_error.py": ("wrong-error", "refuses with a TypeError",
                      "    if count < 0:\n        raise TypeError('no')\n"
                      "    return [t['id'] for t in turns[len(turns) - count:]] if count "
                      "else []\n"),
}
HAND_INS = {  # student -> their answer (None: the starter handed back)
    "ada": "def newest_ids(turns, count):\n    if count < 0:\n        raise ValueError('count')\n"
           "    return [t['id'] for t in turns[len(turns) - count:]] if count else []\n",
    "bob": "def newest_ids(turns, count):\n" + MUTANTS["oldest.py"][2],
    "eve": "def newest_ids(turns, count):\n" + MUTANTS["oldest.py"][2],
    "cy": "def newest_ids(turns, count):\n" + MUTANTS["no_refusal.py"][2],
    "dee": None,
}


def named_files(name: str) -> list[Path]:
    """The files the guide says an author fills in (relative to the course)."""
    return [CHECKS / "reference" / f"{FUNCTION}.py", CHECKS / "suites" / f"{FUNCTION}.py",
            CHECKS / "hidden" / f"{FUNCTION}.py", Path("solutions") / name / f"{name}.ipynb",
            CHECKS / "mutants" / FUNCTION]


def _replace(path: Path, pairs: list[tuple[str, str]]) -> None:
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        if old not in text:
            raise AssertionError(f"the scaffold's {path} no longer says {old!r}")
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")


def write(course: Path, name: str) -> None:
    """The author's writing: into the files the guide names, nothing else."""
    reference, suite, hidden, notebook, mutants = (course / p for p in named_files(name))
    _replace(reference, [(STUB, BODY)])
    _replace(suite, SUITE)
    _replace(hidden, HIDDEN)
    made = nbformat.read(notebook, as_version=4)
    for cell in made.cells:
        for old, new in NOTEBOOK:
            cell.source = cell.source.replace(old, new)
    nbformat.write(made, notebook)
    mutants.mkdir(parents=True)
    for file, (key, does, body) in MUTANTS.items():
        (mutants / file).write_text(f"# misconception: {key}\n# {does}\n"
                                    f"def {FUNCTION}(turns, count):\n{body}", encoding="utf-8")


def hand_in(course: Path, name: str, into: Path) -> None:
    """The class: each student's copy of the released notebook, their answer in it."""
    for student, code in HAND_INS.items():
        made = nbformat.read(course / "exercises" / name / f"{name}.ipynb", as_version=4)
        for cell in made.cells:
            if code and cell.metadata.get("nbgrader", {}).get("grade_id") == f"{FUNCTION}-answer":
                cell.source = code
        path = into / student / name / f"{name}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(made, path)


Run = Callable[[str], subprocess.CompletedProcess]


def walk(course: Path, name: str, run: Run) -> dict[str, subprocess.CompletedProcess]:
    """From nothing to a graded class: each step's name and what its command did."""
    done = {"scaffold": run(
        f"packlab new-exercise --raises --name {name} --function {FUNCTION} "
        f"--signature '{FUNCTION}(turns: list[dict], count: int) -> list[str]' --points 1,2,2 "
        "--teaches 'Taking the newest turns by count, and refusing a count below 0.' "
        "--leaves-out 'Budgets in tokens (lesson 02).' --hint 'Which end is newest?' "
        "--hint 'A slice from the end.' --hint 'turns[len(turns) - count:] when count > 0.'")}
    done["first check"] = run(f"packlab author check {name}")
    write(course, name)
    done["release"] = run(f"packlab release {name} && "
                          f"python -m autograder.checks.reference.record {name}")
    done["check"] = run(f"packlab author check {name}")
    hand_in(course, name, course / "class-raise")
    done["grade"] = run("packlab grade class-raise --out graded-raise")
    return done
