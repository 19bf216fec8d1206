"""Dependencies point downward: wire ← sources ← capture ← presentation."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "toolkit"

# module group -> the toolkit modules it may import
ALLOWED = {
    "wire": {"toolkit.wire"},
    "knowledge": {"toolkit.knowledge"},
    "sources": {"toolkit.wire", "toolkit.sources", "toolkit.errors"},
}
# the verification layers may use everything below them, never the presentation on top
LAYERS = ("capture", "config", "capability")
PRESENTATION = ("toolkit.cli", "toolkit.widgets", "toolkit.plots", "toolkit.report")


def _toolkit_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(PKG.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "toolkit"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module and node.module.split(".")[0] == "toolkit":
                found.add(node.module)
    return found


@pytest.mark.parametrize("group", sorted(ALLOWED))
def test_layers_import_only_downward(group):
    offenders = []
    for path in sorted((PKG / group).glob("*.py")):
        for mod in _toolkit_imports(path):
            if not any(mod == a or mod.startswith(a + ".") for a in ALLOWED[group]):
                offenders.append(f"{path.name} imports {mod}")
    assert not offenders, offenders


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_do_not_import_presentation(layer):
    imports = _toolkit_imports(PKG / f"{layer}.py")
    assert not [m for m in imports if m.startswith(PRESENTATION)], imports


def test_wire_uses_no_pandas_and_no_files():
    for path in (PKG / "wire").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import pandas" not in text, path.name
        assert "open(" not in text, f"{path.name} does file I/O"


def test_import_toolkit_is_cheap():
    code = "import sys, toolkit; print(sorted(m for m in ('pandas', 'matplotlib', 'ipywidgets') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
