"""The public face: ``toolkit.__all__`` is what the package exports, and every public module says what it exports."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import toolkit

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(toolkit.__path__, "toolkit.") if not m.name.rsplit(".", 1)[-1].startswith("_")
)


def test_top_level_exports_resolve_and_nothing_else_is_public():
    assert toolkit.__all__ == sorted(toolkit.__all__)
    for name in toolkit.__all__:
        assert getattr(toolkit, name) is not None, name
    with pytest.raises(AttributeError):
        toolkit.not_a_thing  # noqa: B018
    public = {n for n in dir(toolkit) if not n.startswith("_") and not inspect.ismodule(getattr(toolkit, n))}
    assert public - set(toolkit.__all__) <= {
        "annotations",
        "import_module",
        "Any",
    }


@pytest.mark.parametrize("name", MODULES)
def test_every_public_module_declares_all(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_every_public_definition(name):
    """A public function or class defined in a module and left out of ``__all__`` is a forgotten export."""
    module = importlib.import_module(name)
    path = module.__file__
    tree = ast.parse(open(path, encoding="utf-8").read())
    defined = {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) and not n.name.startswith("_")
    }
    assert not defined - set(getattr(module, "__all__", ())), f"{name}: public but not in __all__"
