"""Which code the similarity report sets aside, judged on the mutant gallery (a script, not a test).

Each gallery answer is an exercise's reference answer with one known mistake, so the gallery is a
class in which nobody copied anybody yet every answer looks alike. Per exercise (03 is left out: its
suite and gallery are 02's), this compares, with `autograder.cohort.similarity` as the report does:
- every pair of answers (the reference and the gallery's): how many pairs would be listed;
- every gallery answer with a disguised copy of itself (every name changed, docstrings dropped,
  a comment added every third line, the top-level statements in reverse order): how many copies
  would be listed.
Once with only the release set aside, once with the reference answer too (the report's choice).

    .venv/bin/python benchmarks/similarity.py
"""

from __future__ import annotations

import ast
import builtins
import itertools

from autograder.checks import gallery
from autograder.cohort import similarity
from autograder.cohort.similarity import Answer
from packlab.manifest import load


class Renamer(ast.NodeTransformer):
    """Every name but the exercise's function, the imports and the builtins becomes v0, v1, ..."""

    def __init__(self, keep: set[str]):
        self.keep, self.names = keep | set(dir(builtins)), {}

    def renamed(self, name: str) -> str:
        return name if name in self.keep else self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.renamed(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.renamed(node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self.renamed(node.name)
        if len(node.body) > 1 and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            node.body = node.body[1:]  # the docstring
        self.generic_visit(node)
        return node


def disguised(code: str, function: str) -> str:
    """``code`` with its names changed, comments added and top-level statements reordered."""
    tree = ast.parse(code)
    imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    imported = {alias.asname or alias.name.split(".")[0] for s in imports for alias in s.names}
    tree = Renamer({function} | imported).visit(tree)
    tree.body = imports + [s for s in tree.body if s not in imports][::-1]
    lines = []
    for number, line in enumerate(ast.unparse(tree).splitlines()):
        if number % 3 == 0 and line.strip():
            lines.append(" " * (len(line) - len(line.lstrip())) + f"# step {number}, my way")
        lines.append(line)
    return "\n".join(lines) + "\n"


def listed(answers: list[Answer], given: list[int]) -> int:
    """How many pairs of ``answers`` the report would list."""
    return len(similarity.compare(answers, given)[0])


def main() -> int:
    counts = {False: [0, 0, 0, 0], True: [0, 0, 0, 0]}  # pairs listed, pairs, copies listed, copies
    for exercise in load().exercises:
        if exercise.name == "03-fix-the-break":
            continue
        reference = "\n\n".join(similarity.code_cells(exercise.source, True))
        mutants = [m for m in gallery.every() if m.suite == exercise.suite]
        answers = [Answer("reference", reference), *(Answer(m.name, m.code) for m in mutants)]
        for with_reference, tally in counts.items():
            given = similarity.boilerplate(exercise, reference=with_reference)
            tally[0] += listed(answers, given)
            tally[1] += len(list(itertools.combinations(answers, 2)))
            for mutant in mutants:
                copy = Answer("copy", disguised(mutant.code, exercise.function))
                tally[2] += listed([Answer(mutant.name, mutant.code), copy], given)
                tally[3] += 1
    print(f"threshold {similarity.THRESHOLD:.0%} of either answer")
    for with_reference, (pairs, all_pairs, copies, all_copies) in counts.items():
        label = "release + reference" if with_reference else "release only"
        print(f"{label:20} pairs of gallery answers listed {pairs}/{all_pairs} "
              f"({pairs / all_pairs:.1%}); disguised copies listed {copies}/{all_copies} "
              f"({copies / all_copies:.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
