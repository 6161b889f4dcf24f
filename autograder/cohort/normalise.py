"""An answer read for what it does: names, comments, docstrings, type hints and layout set aside.

The similarity report compares answers in this form, and recognises in it the answers that are
code the course gave out. Python's own parser reads the code (`ast`): comments and layout are
gone, type hints are dropped, and so is every statement that does nothing (`pass`, a docstring,
a bare constant, what follows a ``return``, ``raise``, ``break`` or ``continue`` in its block,
the branch an ``if`` on a constant never takes, a ``while`` on a false constant); every name the
answer binds is written canonically (a function's parameters and locals ``v0, v1, ...`` in order
of first use, restarting in each function; the module's globals ``g0, g1, ...`` in order, then
its functions and classes in the order the others first use them, and are written in that order:
moving a helper above or below another changes nothing), and top-level expression statements
and asserts (a student trying the function) are dropped. Names the answer does not bind
(builtins, imports, the exercise's function) are kept.

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
    """Drop type hints, statements that do nothing and top-level tries (expressions, asserts)."""
    tree.body = [s for s in tree.body if not isinstance(s, ast.Expr | ast.Assert)]
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, _FUNCTIONS):
            node.returns = None
    _prune(tree)


_ENDS_A_BLOCK = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _prune(node: ast.AST) -> None:
    """Drop, in ``node`` and below, the statements that do nothing (a block keeps a `pass`)."""
    for child in ast.iter_child_nodes(node):
        _prune(child)
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list) and all(isinstance(s, ast.stmt) for s in block):
            kept = _useful(block)
            needs_one = name == "body" and not isinstance(node, ast.Module)
            setattr(node, name, kept or ([ast.Pass()] if needs_one else []))


def _useful(block: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a block that do something, up to the one that ends it."""
    kept: list[ast.stmt] = []
    todo = list(block)
    while todo:
        statement = todo.pop(0)
        if isinstance(statement, ast.Pass) or isinstance(statement, ast.Expr) and \
                isinstance(statement.value, ast.Constant):
            continue  # a docstring, a string used as a comment, `...`, a bare number
        if isinstance(statement, ast.If | ast.While) and isinstance(statement.test, ast.Constant):
            if isinstance(statement, ast.If):
                todo[:0] = statement.body if statement.test.value else statement.orelse
                continue
            if not statement.test.value:
                todo[:0] = statement.orelse
                continue
        if isinstance(statement, ast.AnnAssign):
            statement = ast.copy_location(
                ast.Assign([statement.target], statement.value)
                if statement.value is not None else ast.Pass(), statement)
            if isinstance(statement, ast.Pass):
                continue
        kept.append(statement)
        if isinstance(statement, _ENDS_A_BLOCK):
            break
    return kept


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
    """``code`` with names, comments, statements that do nothing, type hints, layout and the
    order of its functions set aside; None when it is not Python that parses. ``keep``:
    module-level names left as they are (the function the exercise asks for, which every answer
    must name alike)."""
    try:
        tree = ast.parse(code)
        _strip(tree)
        module = _module_names(tree, keep)
        tree.body.sort(key=lambda s: _defined_at(s, module))
        return ast.unparse(_Canonical(module).visit(tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_DEFINITIONS = (*_FUNCTIONS, ast.ClassDef)


def _module_names(tree: ast.Module, keep: frozenset[str]) -> dict[str, str]:
    """Canonical names of the module's globals (in order), then of its functions and classes in
    the order the others first use them: from those no other one uses, by name."""
    module: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                        and node.id not in keep and node.id not in module:
                    module[node.id] = f"g{len(module)}"
    defined = {s.name: s for s in tree.body if isinstance(s, _DEFINITIONS)}
    uses = {name: [n.id for n in ast.walk(d) if isinstance(n, ast.Name) and n.id in defined
                   and n.id != name] for name, d in defined.items()}
    used = {n for names in uses.values() for n in names}
    todo = sorted(n for n in defined if n not in used) + sorted(used)
    while todo:
        name = todo.pop(0)
        if name in keep or name in module:
            continue
        module[name] = f"g{len(module)}"
        todo[:0] = list(dict.fromkeys(uses[name]))
    return module


def _defined_at(statement: ast.stmt, module: dict[str, str]) -> tuple[int, int]:
    """Where a statement goes: the rest first as they came, then functions and classes in the
    order of their canonical names (the exercise's own function, kept, first)."""
    if not isinstance(statement, _DEFINITIONS):
        return (0, 0)
    name = module.get(statement.name)
    return (1, -1) if name is None else (1, int(name[1:]))


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

