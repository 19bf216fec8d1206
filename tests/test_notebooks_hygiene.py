"""What nbval cannot catch: notebooks executed top to bottom, no widget state, sources in sync.

Each source ``notebooks/NN_name.py`` is written twice (``notebooks/build.py``): ``notebooks/NN_name.ipynb``
from its ``en`` markdown cells and the code, ``notebooks/zh-CN/NN_name.ipynb`` from its ``zh-CN`` cells,
the code and one setup cell first. Both are checked here; the pairing itself in test_notebooks_i18n.py.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import shutil

import jupytext
import nbformat
import pytest
from conftest import REPO

from toolkit.knowledge.messages import MESSAGES

NOTEBOOK_DIR = REPO / "notebooks"
_spec = importlib.util.spec_from_file_location("notebooks_build", NOTEBOOK_DIR / "build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
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


def _lang(path) -> str:
    return "zh-CN" if path.parent.name == "zh-CN" else "en"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_a_stored_widget_says_to_run_its_cell(path):
    """No widget state is stored, so until its cell runs a widget shows only its text/plain: the note."""
    note = MESSAGES["widget.run_cell"][_lang(path)]
    for cell in nbformat.read(path, as_version=4).cells:
        for output in cell.get("outputs", []):
            if WIDGET_VIEW in output.get("data", {}):
                assert output["data"].get("text/plain") == note, f"{path.name}; {REBUILD}"


# ---- what JupyterLab writes on opening a notebook ------------------------------------------------


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """The python3 kernel's own ``language_info`` and its spec, from a real kernel (on IPC sockets: no ports)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path_factory.mktemp("kernel") / "k"))
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        info = kc.kernel_info(reply=True, timeout=120)["content"]["language_info"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    spec = KernelSpecManager().get_kernel_spec("python3")
    return {
        "language_info": info,
        "kernelspec": {"name": "python3", "display_name": spec.display_name, "language": spec.language},
    }


def _opened_in_lab(path, kernel) -> dict:
    """The notebook as Lab 4 sends it to be saved after opening it: NotebookPanel writes the kernel's
    ``language_info`` and ``{name, display_name, language}`` of its spec into the metadata (a change only
    where they differ: YNotebook.setMetadata), and autosave sends the whole notebook."""
    content = json.loads(path.read_text(encoding="utf-8"))
    content["metadata"].update(copy.deepcopy(kernel))
    return {"type": "notebook", "format": "json", "content": content}


def test_the_stored_language_info_is_the_kernels_without_its_patch_version(kernel):
    expected = copy.deepcopy(kernel)
    build.portable_metadata(expected)
    assert "version" in kernel["language_info"] and "version" not in expected["language_info"]
    for path in NOTEBOOKS:
        metadata = nbformat.read(path, as_version=4).metadata
        assert metadata["language_info"] == expected["language_info"], f"{path.name}; {REBUILD}"
        assert metadata["kernelspec"] == kernel["kernelspec"] == build.KERNELSPEC, path.name


def test_opening_and_saving_in_make_lab_changes_no_byte(tmp_path, monkeypatch, kernel):
    """Saved through the server configuration ``make lab`` adds (loaded as Jupyter loads it) by Jupyter's own
    contents manager, into a copy of notebooks/, every built notebook comes back byte for byte; a notebook
    of the user's own keeps what Lab wrote."""
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("jupyter_server_config.py", path=str(NOTEBOOK_DIR / ".jupyter")).load_config()
    root = tmp_path / "notebooks"
    (root / "zh-CN").mkdir(parents=True)
    for path in [*SOURCES, *NOTEBOOKS]:
        shutil.copy2(path, root / path.relative_to(NOTEBOOK_DIR))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))  # the notebook-signing key
    cm = AsyncLargeFileManager(root_dir=str(root), config=config)
    for path in NOTEBOOKS:
        rel = path.relative_to(NOTEBOOK_DIR).as_posix()
        asyncio.run(cm.save(_opened_in_lab(path, kernel), rel))
        assert (root / rel).read_bytes() == path.read_bytes(), f"{rel} changed by opening it in Lab"
    asyncio.run(cm.save(_opened_in_lab(NOTEBOOKS[0], kernel), "scratch.ipynb"))
    saved = json.loads((root / "scratch.ipynb").read_text(encoding="utf-8"))
    assert saved["metadata"]["language_info"] == kernel["language_info"]
