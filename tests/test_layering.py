"""The layering of the app code (DESIGN.md, "Dependencies point one way"; STYLE.md, "Lessons from
our own seams"): no import cycle between modules, no import inside a function to dodge one, and
each app imports only the apps below it. Read from the source with ``ast``, so nothing is
imported and no database is needed."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("config", "accounts", "chat", "notifications", "games", "ratings", "tournaments", "lobby")

#: What each app may import (besides itself). ``config`` is the project's own plumbing (settings,
#: pushes, error bodies): the apps use it, and it names the apps only in its routing.
MAY_IMPORT = {
    "accounts": {"config"},
    "chat": {"config", "accounts"},
    "notifications": {"config", "accounts"},
    "games": {"config", "accounts", "chat", "notifications"},
    "ratings": {"config", "accounts", "games", "notifications"},
    "tournaments": {"config", "accounts", "chat", "notifications", "games", "ratings"},
    "lobby": {"config", "accounts", "games", "ratings", "tournaments"},
}

#: Pure libraries: nothing of Django, and nothing of the apps around them.
PURE = (
    "games.engine",
    "ratings.elo",
    "ratings.glicko",
    "ratings.compute",
    "tournaments.formats",
    "accounts.usernames",
)


def _is_pure(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in PURE)


def _modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The app module ``name`` is (or is in), None outside the app code."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _package(module: str) -> str:
    is_package = MODULES[module].name == "__init__.py"
    return module if is_package else module.rpartition(".")[0]


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """Every name an import statement brings in, made absolute."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        parts = _package(module).split(".")
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join([*parts, base] if base else parts)
    for alias in node.names:
        yield f"{base}.{alias.name}"  # a submodule, else resolved back to ``base``


class _Imports(ast.NodeVisitor):
    """Each import of a module, and whether it sits inside a function."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.depth = 0
        self.found: list[tuple[str, int, bool]] = []  # (imported, line, in a function)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        for target in _targets(self.module, node):
            self.found.append((target, node.lineno, self.depth > 0))

    visit_Import = visit_ImportFrom = _import


def _imports(module: str) -> list[tuple[str, int, bool]]:
    visitor = _Imports(module)
    visitor.visit(ast.parse(MODULES[module].read_text(), str(MODULES[module])))
    return visitor.found


IMPORTS = {module: _imports(module) for module in MODULES}


def _graph() -> dict[str, set[str]]:
    """Module to the app modules it imports, ``TYPE_CHECKING`` imports included: a cycle of
    types is a cycle of meaning too."""
    graph: dict[str, set[str]] = {}
    for module, found in IMPORTS.items():
        targets = {_resolve(target) for target, _, _ in found}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while (top := stack.pop()) != node:
                component.append(top)
            component.append(node)
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_imports_it_should() -> None:
    """The checks below are only as good as the graph: it knows the modules and their edges."""
    graph = _graph()
    assert "tournaments.rounds" in graph["tournaments.services"]
    assert "games.engine.state" in graph["games.engine.play"]  # a relative import
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_the_app_code() -> None:
    assert _cycles(_graph()) == []


def test_no_import_inside_a_function() -> None:
    """A helper two modules need gets its own module; an import inside a function to dodge a
    cycle means the layering is wrong. ``AppConfig.ready`` is the one place Django wants one:
    models are not loaded when ``apps.py`` is imported."""
    inside = [
        f"{module}:{line} imports {target}"
        for module, found in IMPORTS.items()
        for target, line, in_function in found
        if in_function and not module.endswith(".apps")
    ]
    assert inside == []


@pytest.mark.parametrize("app", sorted(MAY_IMPORT))
def test_each_app_imports_only_the_apps_below_it(app: str) -> None:
    wrong = [
        f"{module}:{line} imports {target}"
        for module, found in IMPORTS.items()
        if module.split(".")[0] == app
        for target, line, _ in found
        if target.split(".")[0] in APPS
        and target.split(".")[0] != app
        and target.split(".")[0] not in MAY_IMPORT[app]
    ]
    assert wrong == []


@pytest.mark.parametrize("pure", PURE)
def test_the_pure_libraries_import_nothing_of_django_or_the_apps(pure: str) -> None:
    wrong = [
        f"{module}:{line} imports {target}"
        for module, found in IMPORTS.items()
        if _is_pure(module) and (module == pure or module.startswith(pure + "."))
        for target, line, _ in found
        if target.split(".")[0] in {"django", "rest_framework", "channels", "celery"}
        or (target.split(".")[0] in APPS and not _is_pure(target))
    ]
    assert wrong == []
