"""planmode's modules import each other without a circle: the graph is built from the source
(every import: module level, under ``TYPE_CHECKING`` and inside functions, so a cycle cannot be
hidden by moving an import into a function) and must have no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "planmode"


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package) for every module under ``root``."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, tuple[Path, bool]]) -> set[str]:
    """The modules of ``modules`` that one import statement in ``package`` loads."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in modules}
    base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
    source = ".".join([*base, *([node.module] if node.module else [])])
    return {f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names} & set(modules)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the planmode modules it imports (any import statement anywhere in the file)."""
    modules = _modules(root)
    graph = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        imports = (n for n in ast.walk(ast.parse(path.read_text(), str(path)))
                   if isinstance(n, (ast.Import, ast.ImportFrom)))
        graph[name] = set().union(*(_targets(n, package, modules) for n in imports)) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node):] + [node]
        if node in done:
            return None
        for target in sorted(graph[node]):
            if (cycle := visit(target, [*path, node])) is not None:
                return cycle
        done.add(node)
        return None

    return next((c for n in sorted(graph) if (c := visit(n, [])) is not None), None)


def test_planmode_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert "planmode.agentscope._plan._mode" in graph and graph["planmode.agentscope._plan._mode"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("where", ["module", "function", "type_checking"])
def test_the_check_sees_a_cycle_wherever_the_import_stands(tmp_path: Path, where: str) -> None:
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from . import b\n")
    back = {"module": "from .a import x\n",
            "function": "def f():\n    from .a import x\n",
            "type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import x\n"}[where]
    (root / "b.py").write_text(back)
    assert find_cycle(import_graph(root)) == ["pkg.a", "pkg.b", "pkg.a"]
    (root / "b.py").write_text("import os\n")
    assert find_cycle(import_graph(root)) is None
