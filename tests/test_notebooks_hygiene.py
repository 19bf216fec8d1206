"""What nbval cannot catch: notebooks executed top to bottom, no widget state, sources in sync."""

from __future__ import annotations

import jupytext
import nbformat
import pytest
from conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOURCES = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.py"))
REBUILD = "regenerate with `make notebooks`"


def test_every_source_has_its_notebook_and_back():
    assert [p.stem for p in SOURCES] == [p.stem for p in NOTEBOOKS]
    assert NOTEBOOKS, "no notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_executed_in_order_in_a_fresh_kernel(path):
    nb = nbformat.read(path, as_version=4)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), f"{path.name}: execution counts {counts}; {REBUILD}"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{path.name} stored an error: {errors[0].get('ename')}; {REBUILD}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_widget_state_and_a_portable_kernel(path):
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata, f"{path.name} stores widget state; {REBUILD}"
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "version" not in nb.metadata.get("language_info", {})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_matches_its_source(path):
    stored = [c.source for c in nbformat.read(path, as_version=4).cells]
    source = [c.source for c in jupytext.read(path.with_suffix(".py")).cells]
    assert stored == source, f"{path.name} differs from {path.with_suffix('.py').name}; {REBUILD}"
