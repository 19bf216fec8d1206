"""What nbval cannot catch: notebooks executed top to bottom, no widget state, sources in sync.

Each source ``notebooks/NN_name.py`` is written twice (``notebooks/build.py``): ``notebooks/NN_name.ipynb``
from its ``en`` markdown cells and the code, ``notebooks/zh-CN/NN_name.ipynb`` from its ``zh-CN`` cells,
the code and one setup cell first. Both are checked here; the pairing itself in test_notebooks_i18n.py.
"""

from __future__ import annotations

import jupytext
import nbformat
import pytest
from conftest import REPO

NOTEBOOK_DIR = REPO / "notebooks"
SOURCES = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
EN_NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
ZH_NOTEBOOKS = sorted((NOTEBOOK_DIR / "zh-CN").glob("[0-9][0-9]_*.ipynb"))
NOTEBOOKS = EN_NOTEBOOKS + ZH_NOTEBOOKS
IDS = [p.relative_to(NOTEBOOK_DIR).as_posix() for p in NOTEBOOKS]
LANGUAGE_TAGS = {"en", "zh-CN"}
REBUILD = "regenerate with `make notebooks`"


def _source_of(path):
    return NOTEBOOK_DIR / path.with_suffix(".py").name


def _expected_sources(path) -> list[str]:
    """The cells the build writes from the source: the code cells and the markdown cells of the notebook's
    language (an untagged markdown cell counts as English); the Chinese notebook's setup cell comes first."""
    lang = "zh-CN" if path.parent.name == "zh-CN" else "en"
    cells = jupytext.read(_source_of(path)).cells
    mine = []
    for cell in cells:
        tags = set(cell.metadata.get("tags", [])) & LANGUAGE_TAGS
        if cell.cell_type != "markdown" or tags == {lang} or (not tags and lang == "en"):
            mine.append(cell.source)
    return mine if lang == "en" else [nbformat.read(path, as_version=4).cells[0].source, *mine]


def test_every_source_has_its_notebook_and_back():
    assert [p.stem for p in SOURCES] == [p.stem for p in EN_NOTEBOOKS]
    assert EN_NOTEBOOKS, "no notebooks"
    orphans = [p.name for p in ZH_NOTEBOOKS if not _source_of(p).exists()]
    assert not orphans, f"notebooks/zh-CN/ holds notebooks without a source: {orphans}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_executed_in_order_in_a_fresh_kernel(path):
    nb = nbformat.read(path, as_version=4)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), f"{path.name}: execution counts {counts}; {REBUILD}"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{path.name} stored an error: {errors[0].get('ename')}; {REBUILD}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_widget_state_and_a_portable_kernel(path):
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata, f"{path.name} stores widget state; {REBUILD}"
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "version" not in nb.metadata.get("language_info", {})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_matches_its_source(path):
    stored = [c.source for c in nbformat.read(path, as_version=4).cells]
    assert stored == _expected_sources(path), f"{path} differs from {_source_of(path).name}; {REBUILD}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_language_tags_in_the_written_notebook(path):
    tagged = [
        i + 1
        for i, c in enumerate(nbformat.read(path, as_version=4).cells)
        if set(c.metadata.get("tags", [])) & LANGUAGE_TAGS
    ]
    assert not tagged, f"{path}: cells {tagged} keep a language tag; {REBUILD}"
