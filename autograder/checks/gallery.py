"""The public mutant gallery: known wrong answers, one file each, in
autograder/checks/mutants/<suite>/.

Each file starts with ``# misconception: <key>`` and a one-line description, then the code a
learner might write. The grader's tests prove every mutant loses marks with that misconception.
For an exercise in graded steps, ``# step: <step>`` marks the typical mistake of one step: such a
mutant fails that step's checks and no other step's (tests/test_steps.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

GALLERY = Path(__file__).resolve().parent / "mutants"
ATTACKS = Path(__file__).resolve().parent / "attacks"  # the attack gallery (tests/test_attacks.py)


@dataclass(frozen=True)
class Mutant:
    suite: str
    name: str
    misconception: str
    description: str
    code: str
    step: str = ""  # the step whose typical mistake it is (an exercise in steps), if any

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.name}"


def read(path: Path) -> Mutant:
    """Parse one gallery file: header comments, then the learner's code."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = []
    while lines and lines[0].startswith("#"):
        header.append(lines.pop(0).lstrip("# ").strip())
    tagged = ("misconception: ", "step: ")
    fields = dict(line.split(": ", 1) for line in header if line.startswith(tagged))
    description = next((line for line in header if not line.startswith(tagged)), "")
    return Mutant(path.parent.name, path.stem, fields.get("misconception", ""), description,
                  "\n".join(lines).strip() + "\n", fields.get("step", ""))


def load(key: str) -> Mutant:
    """One mutant by ``"<suite>/<name>"``."""
    return read(GALLERY / f"{key}.py")


def every() -> list[Mutant]:
    return [read(path) for path in sorted(GALLERY.glob("*/*.py"))]
