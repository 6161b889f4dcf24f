"""An answer read for what it does: names, comments, docstrings, type hints and layout set aside.

The similarity report compares answers in this form, and recognises in it the answers that are
code the course gave out. Python's own parser reads the code (`ast`): comments and layout are
gone, each docstring and bare string statement is dropped, type hints are dropped, every name the
answer binds is written canonically (a function's parameters and locals ``v0, v1, ...`` in order
of first use, restarting in each function; the module's own helpers and globals ``g0, g1, ...``),
and top-level expression statements and asserts (a student trying the function) are dropped.
Names the answer does not bind (builtins, imports, the exercise's function) are kept.

So ``def pack(items, limit): ...`` written from the lesson reads the same as the reference's
``def pack(parts: list[dict], budget: int) -> list[str]: ...``, and exercise 03's starter with
``break`` made ``continue`` differs from the starter by one word.
"""

from __future__ import annotations

import ast
import io
import tokenize

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_FUNCTIONS, ast.ClassDef, ast.Module)


def _strip(tree: ast.Module) -> None:
    """Drop docstrings, bare strings, type hints, and top-level tries (expressions, asserts)."""
    tree.body = [s for s in tree.body if not isinstance(s, ast.Expr | ast.Assert)]
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, _FUNCTIONS):
            node.returns = None
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = []
            for statement in body:
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    continue  # a docstring or a string used as a comment
                if isinstance(statement, ast.AnnAssign):
                    statement = ast.copy_location(
                        ast.Assign([statement.target], statement.value)
                        if statement.value is not None else ast.Pass(), statement)
                kept.append(statement)
            node.body = kept or ([ast.Pass()] if isinstance(node, _SCOPES) else kept)


def _bound(scope: ast.AST) -> list[str]:
    """The names a function binds (parameters first, then assigned names, in order of use)."""
    names: list[str] = []
    declared = {n for node in ast.walk(scope) if isinstance(node, ast.Global | ast.Nonlocal)
                for n in node.names}
    for node in ast.walk(scope.args):
        if isinstance(node, ast.arg) and node.arg not in names:
            names.append(node.arg)
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            name = node.id
        elif isinstance(node, ast.ExceptHandler) and node.name:
            name = node.name
        else:
            continue
        if name not in names and name not in declared:
            names.append(name)
    return names


class _Canonical(ast.NodeTransformer):
    """Renames every name the answer binds: ``module`` maps its module-level names."""

    def __init__(self, module: dict[str, str]):
        self.module = module
        self.local: dict[str, str] = {}

    def _name(self, name: str) -> str:
        return self.local.get(name) or self.module.get(name) or name

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.module.get(node.name, node.name)
        outer = self.local
        self.local = {**outer, **{n: f"v{i}" for i, n in enumerate(_bound(node), len(outer))}}
        self.generic_visit(node)
        self.local = outer
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._name(node.arg)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        node.name = self._name(node.name) if node.name else None
        self.generic_visit(node)
        return node


def normalised(code: str, keep: frozenset[str] = frozenset()) -> str | None:
    """``code`` with names, comments, docstrings, type hints and layout set aside; None when it
    is not Python that parses. ``keep``: module-level names left as they are (the function the
    exercise asks for, which every answer must name alike)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    _strip(tree)
    module: dict[str, str] = {}
    for statement in tree.body:
        targets = ([statement.name] if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)) else
                   [n.id for n in ast.walk(statement) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Store)] if isinstance(statement, ast.Assign) else [])
        for name in targets:
            if name not in keep and name not in module:
                module[name] = f"g{len(module)}"
    try:
        return ast.unparse(_Canonical(module).visit(tree))
    except RecursionError:
        return None


def _words(code: str) -> list[str]:
    """``code``'s tokens (what a person would call its words and signs), layout left out."""
    skip = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    return [t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type not in skip]


def one_word(answer: str, given: str) -> tuple[str, str] | None:
    """(given's word, answer's word) when two normalised codes differ by exactly one word."""
    mine, theirs = _words(answer), _words(given)
    if len(mine) != len(theirs):
        return None
    differ = [(old, new) for old, new in zip(theirs, mine, strict=True) if old != new]
    return differ[0] if len(differ) == 1 else None


def recognise(answer: str, given: list[tuple[str, str]], keep: frozenset[str] = frozenset()
              ) -> str | None:
    """What ``answer`` is, in words, when it is one of the ``given`` codes ((what, code) pairs,
    in order of preference) or one with one word changed; None when it is neither."""
    mine = normalised(answer, keep)
    if mine is None:
        return None
    forms = [(what, normalised(code, keep)) for what, code in given]
    forms = [(what, form) for what, form in forms if form]
    for what, form in forms:
        if mine == form:
            return what
    for what, form in forms:
        changed = one_word(mine, form)
        if changed:
            return f"{what} with one word changed (`{changed[0]}` → `{changed[1]}`)"
    return None

