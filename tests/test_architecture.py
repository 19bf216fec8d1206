"""Dependencies point downward only, package by package:
knowledge ← wire ← sources ← capture ← layers ← analysis ← experiment ← present."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "toolkit"

# bottom to top; each package may import itself and every package before it
ORDER = ("errors", "knowledge", "wire", "sources", "capture", "layers", "analysis", "experiment", "present")
ALLOWED = {name: {f"toolkit.{n}" for n in ORDER[: i + 1]} for i, name in enumerate(ORDER)}
ALLOWED["wire"] = {"toolkit.errors", "toolkit.knowledge", "toolkit.wire"}  # wire and knowledge are pure peers
ALLOWED["knowledge"] = {"toolkit.errors", "toolkit.knowledge"}
PURE = ("knowledge", "wire")  # no pandas, no files, no network
IMPURE = {"pandas", "socket", "requests", "httpx", "urllib.request", "http.client", "subprocess"}


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


def _modules(group: str) -> list[Path]:
    path = PKG / group
    return sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]


def test_every_module_belongs_to_a_package():
    top = {p.stem for p in PKG.glob("*.py")} | {p.name for p in PKG.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert top - {"__init__"} == set(ORDER)


@pytest.mark.parametrize("group", ORDER)
def test_packages_import_only_downward(group):
    offenders = []
    modules = _modules(group)
    assert modules, group
    for path in modules:
        for mod in _toolkit_imports(path):
            if not any(mod == a or mod.startswith(a + ".") for a in ALLOWED[group]):
                offenders.append(f"{path.relative_to(PKG)} imports {mod}")
    assert not offenders, offenders


@pytest.mark.parametrize("group", PURE)
def test_pure_packages_use_no_pandas_and_no_files(group):
    for path in _modules(group):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        banned = [m for m in names if m.split(".")[0] in IMPURE or m in IMPURE]
        assert not banned, f"{path.name} imports {banned}"
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "open" not in calls, f"{path.name} does file I/O"


def test_import_toolkit_is_cheap():
    code = "import sys, toolkit; print(sorted(m for m in ('pandas', 'matplotlib', 'ipywidgets') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


_MARKUP = re.compile(  # HTML tags (not a regex's named group such as (?P<code>...)), Markdown headings and tables
    r"(?<!\?P)</?(table|thead|tbody|tr|td|th|ul|ol|li|div|span|p|h[1-6]|b|i|br|pre|code|mark|style)\b[^>]*>"
    r"|^\s*#{1,6} \S|\|\s*---\s*\|",
    re.M,
)


def test_analysis_returns_data_and_renders_no_html_or_markdown():
    """HTML and Markdown are the presentation's job (``toolkit.present.report``): an analysis returns data."""
    offenders = []
    for path in _modules("analysis"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                offenders += [f"{path.name} imports {n}" for n in names if n.split(".")[0] in ("html", "markdown")]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                "_repr_html_",
                "_repr_markdown_",
            ):
                offenders.append(f"{path.name}:{node.lineno} defines {node.name}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MARKUP.search(node.value):
                offenders.append(f"{path.name}:{node.lineno} writes markup {_MARKUP.search(node.value).group(0)!r}")
    assert not offenders, offenders


def test_contributing_draws_the_same_order():
    """CONTRIBUTING's picture of the layout is the order this test enforces, package for package."""
    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")
    picture = next(line for line in text.splitlines() if line.startswith("errors ←"))
    assert tuple(p.strip() for p in picture.split("←")) == ORDER
