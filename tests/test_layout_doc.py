"""docs/layout.md names every Python module of planmode (and no module that is gone), and its
plan-mode table lists the modules in import order (each imports only modules above it)."""

from __future__ import annotations

import re
from pathlib import Path

from test_import_graph import import_graph

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "planmode"
LAYOUT = ROOT / "docs" / "layout.md"


def test_the_layout_page_names_every_module() -> None:
    text = LAYOUT.read_text(encoding="utf-8")
    named = set()
    for row in re.findall(r"^\| (`[^|]+`) \|", text, re.M):
        for path in re.findall(r"`([^`]+)`", row):
            named.add(path if path.startswith("planmode/") else
                      f"planmode/agentscope/{path}" if path.startswith(("_plan/", "_admin/")) else f"planmode/{path}")
    modules = {str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py*") if p.suffix in (".py", ".pyi")}
    assert modules - named == set(), f"add these modules to docs/layout.md: {sorted(modules - named)}"
    assert named - modules == set(), f"docs/layout.md names modules that do not exist: {sorted(named - modules)}"


def test_the_plan_mode_table_is_in_import_order() -> None:
    text = LAYOUT.read_text(encoding="utf-8")
    table = text[text.index("## `planmode.agentscope._plan`"):text.index("## `planmode.agentscope._admin`")]
    order = ["planmode.agentscope." + p.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
             for p in re.findall(r"^\| `(_plan/[^`]+)`", table, re.M)]
    graph = import_graph(PACKAGE)
    upward = [(m, t) for i, m in enumerate(order) for t in sorted(graph[m]) if t in order[i:]]
    assert upward == [], f"reorder the _plan table of docs/layout.md (module -> what it imports): {upward}"
