"""No module binds one top-level name twice. A second `def _holds_years` (or `_SHARE_ASKED =`)
far down a long module replaces the first at import for every caller, silently: ruff's
F811 catches only a redefinition before any use."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p for d in ("agent", "ingest", "storage", "tablelens", "bench")
                 for p in (ROOT / d).rglob("*.py"))


def _top_level_names(tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names.extend(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            names.append(node.target.id)
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_top_level_name_is_bound_once(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    twice = [name for name, n in Counter(_top_level_names(tree)).items() if n > 1
             and name != "__all__"]
    assert twice == [], f"{path.name} binds {twice} more than once"


def test_a_second_binding_is_found() -> None:
    tree = ast.parse("def f():\n    return 1\n\nX = 1\n\ndef f():\n    return 2\n")
    assert Counter(_top_level_names(tree))["f"] == 2
