"""The package's import graph, read from its source: for the architecture tests and their report.

Every import counts, at module level, inside a function (a lazy import is still a dependency) and
under ``if TYPE_CHECKING:`` (a type named across is a dependency of the code's meaning). The layers
themselves are import-linter's contracts in ``pyproject.toml`` (``lint-imports``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_handoff"


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def folder_of(module: str, known: Mapping[str, Path]) -> str:
    """The package a module sits in (a package's ``__init__`` sits in the package itself)."""
    return module if known[module].name == "__init__.py" else module.rpartition(".")[0]


def imports(module: str, known: Mapping[str, Path]) -> Iterator[tuple[str, int, bool]]:
    """(imported module of the package, line, inside a function) for each import that runs."""
    path = known[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_function = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for inner in ast.walk(node)
    }
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                yield target, node.lineno, id(node) in in_function


def graph() -> dict[str, set[str]]:
    known = modules()
    return {module: {target for target, _, _ in imports(module, known)} for module in known}


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def top_level(known: Mapping[str, Path]) -> list[str]:
    """The modules directly in the package (not in a folder of it), the package's own included."""
    return sorted(m for m, p in known.items() if p.parent == PACKAGE and m.count(".") <= 1)


def report() -> str:
    """The figures the architecture tests hold to, as text (``python tests/architecture.py``)."""
    known = modules()
    circles = cycles(graph())
    lazy = sum(1 for module in known for _, _, inside in imports(module, known) if inside)
    long = [(m, n) for m, p in known.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    lines = [
        f"modules: {len(known)}, at the top of the package: {len(top_level(known))}",
        f"import circles (every import counted): {len(circles)}",
        *(f"  {' <-> '.join(c)}" for c in circles),
        f"function-level imports of the package's own modules: {lazy}",
        f"modules over 500 lines: {len(long)}",
        *(f"  {m}: {n}" for m, n in long),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report())
