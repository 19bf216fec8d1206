"""Regenerate the notebooks (``make notebooks``): each ``NN_name.py`` (jupytext percent format) is the
source of two notebooks, ``NN_name.ipynb`` in English and ``zh-CN/NN_name.ipynb`` in simplified Chinese.

A source holds every markdown cell twice, the English one tagged ``en`` and right after it its Chinese
twin tagged ``zh-CN``; the code cells are shared, so the two languages cannot drift apart. Each notebook
is executed top to bottom in a fresh kernel and written with its outputs; the Chinese one starts with a
setup cell that switches the toolkit's language (and runs from ``notebooks/`` wherever it was opened).

The outputs are what nbval compares in ``make test``, so they are written reproducibly: no widget
state, no timings, a fixed kernelspec, no Python patch version, and cell ids derived from the cells
(and the language). The language tags are removed from the written notebooks; other tags stay.

JupyterLab writes the kernel's ``language_info`` into a notebook as soon as its kernel starts, patch
version included, and autosaves it, which would leave ``git status`` dirty after merely opening a
notebook. ``make lab`` therefore saves the built notebooks through ``lab_pre_save`` (configured in
``notebooks/.jupyter/jupyter_server_config.py``), which drops what ``portable_metadata`` drops here.

While a source still has no language tag at all it counts as English and its Chinese build is skipped
with a message; once every source is converted, an untagged markdown cell is an error.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

from toolkit.knowledge.messages import LANGUAGES

HERE = Path(__file__).resolve().parent
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TARGET_DIR = {"en": HERE, "zh-CN": HERE / "zh-CN"}
# The Chinese notebook's first cell (the scheme of issue 19): nbval and Lab run it from notebooks/zh-CN,
# while every path in the shared code cells is relative to notebooks/.
ZH_SETUP = (
    "import os\n"
    'if os.path.basename(os.getcwd()) == "zh-CN":  # run from notebooks/zh-CN: the paths below are notebooks/\'s\n'
    '    os.chdir("..")\n'
    "from toolkit.present import i18n\n"
    'i18n.set_language("zh-CN")'
)


class SourceError(ValueError):
    """A source whose markdown cells are not in en/zh-CN pairs; names the source and the cell."""


def sources() -> list[Path]:
    return sorted(HERE.glob("[0-9][0-9]_*.py"))


def _language(cell) -> str | None:
    tags = [t for t in cell.metadata.get("tags", []) if t in LANGUAGES]
    if len(tags) > 1:
        raise SourceError(f"{cell.metadata.get('_where')}: tagged with more than one language ({', '.join(tags)})")
    return tags[0] if tags else None


def _where(source: Path, i: int, cell) -> str:
    first = cell.source.strip().splitlines()[0][:60] if cell.source.strip() else "(empty)"
    return f"notebooks/{source.name}: cell {i + 1} ({cell.cell_type}: {first!r})"


def is_converted(nb) -> bool:
    """A source is converted once any of its markdown cells carries a language tag."""
    return any(c.cell_type == "markdown" and set(c.metadata.get("tags", [])) & set(LANGUAGES) for c in nb.cells)


def split(source: Path, nb, *, strict: bool) -> dict[str, list | None]:
    """The cells of each language's notebook, in order (code cells in both); ``None`` for a language whose
    notebook cannot be built yet (an unconverted source, while ``strict`` is off)."""
    for i, cell in enumerate(nb.cells):
        cell.metadata["_where"] = _where(source, i, cell)
    try:
        if not is_converted(nb):
            untagged = next((c for c in nb.cells if c.cell_type == "markdown"), None)
            if strict and untagged is not None:
                raise SourceError(f"{untagged.metadata['_where']}: markdown cell without a language tag (en or zh-CN)")
            return {"en": list(nb.cells), "zh-CN": None}
        out: dict[str, list | None] = {"en": [], "zh-CN": []}
        previous = None  # the language of the markdown cell before, while a pair is open
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                if previous == "en":
                    raise SourceError(f"{cell.metadata['_where']}: follows an en cell that has no zh-CN twin")
                for cells in out.values():
                    cells.append(cell)  # type: ignore[union-attr]
                continue
            lang = _language(cell)
            if lang is None:
                raise SourceError(f"{cell.metadata['_where']}: markdown cell without a language tag (en or zh-CN)")
            if lang == "en" and previous == "en":
                raise SourceError(f"{cell.metadata['_where']}: en cell after an en cell that has no zh-CN twin")
            if lang == "zh-CN" and previous != "en":
                raise SourceError(f"{cell.metadata['_where']}: zh-CN cell that does not follow its en cell")
            out[lang].append(cell)  # type: ignore[union-attr]
            previous = "en" if lang == "en" else None
        if previous == "en":
            raise SourceError(f"notebooks/{source.name}: the last en cell has no zh-CN twin")
        return out
    finally:
        for cell in nb.cells:
            cell.metadata.pop("_where", None)


def _clean(cell):
    """A copy of the cell without the language tags (other tags, e.g. ``parameters``, stay)."""
    cell = copy.deepcopy(cell)
    tags = [t for t in cell.metadata.get("tags", []) if t not in LANGUAGES]
    if tags:
        cell.metadata["tags"] = tags
    else:
        cell.metadata.pop("tags", None)
    return cell


def notebook(source: Path, nb, lang: str, cells: list):
    """The notebook of one language, unexecuted, with its cell ids."""
    out = copy.deepcopy(nb)
    out.cells = [_clean(c) for c in cells]
    if lang == "zh-CN":
        out.cells.insert(0, nbformat.v4.new_code_cell(ZH_SETUP))
    # ids from the position and the source (and the language, for the Chinese one), so a rebuild changes
    # no id; the English ids are the ones the single-language build gave
    prefix = source.stem if lang == "en" else f"{lang}:{source.stem}"
    for i, cell in enumerate(out.cells):
        cell.id = hashlib.sha1(f"{prefix}:{i}:{cell.source}".encode()).hexdigest()[:8]
    return out


def portable_metadata(metadata: dict) -> None:
    """Drop, in place, the notebook metadata that differs between machines or runs: the widget state,
    the Python patch version of ``language_info`` and jupytext's header. The one definition of what the
    build leaves out, used by the build and by Lab's save (``lab_pre_save``) alike."""
    metadata.pop("widgets", None)
    language = metadata.get("language_info")
    if isinstance(language, dict):
        language.pop("version", None)
    metadata.pop("jupytext", None)


def is_built(notebook: Path) -> bool:
    """Whether a notebook is one the build writes: ``NN_name.ipynb`` beside its source ``NN_name.py``, or
    in the ``zh-CN/`` folder beside it (wherever the folder is, so a copy of ``notebooks/`` counts too)."""
    if not notebook.match("[0-9][0-9]_*.ipynb"):
        return False
    folder = notebook.parent.parent if notebook.parent.name == "zh-CN" else notebook.parent
    return (folder / notebook.with_suffix(".py").name).is_file()


def lab_pre_save(model: dict, path: str, contents_manager, **_) -> None:
    """Jupyter's pre-save hook for ``make lab``: a built notebook is saved with the metadata the build
    stores (``portable_metadata``), so opening it in Lab, which writes the kernel's ``language_info``,
    changes no byte. Any other file is saved as Lab sends it."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    if is_built(Path(contents_manager.root_dir, path.lstrip("/"))):
        portable_metadata(model["content"].setdefault("metadata", {}))


def _stable_widget_ids(nb) -> None:
    """A widget view's model id is random, and its model is not stored (no widget state): replace it with
    one derived from the cell, so that a rebuild writes the same bytes (nbval skips the widget view)."""
    for cell in nb.cells:
        for n, output in enumerate(cell.get("outputs", [])):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view and "model_id" in view:
                view["model_id"] = hashlib.sha1(f"{cell.id}:{n}".encode()).hexdigest()[:32]


def build(source: Path, *, strict: bool | None = None, languages: tuple[str, ...] = LANGUAGES) -> list[Path]:
    """Execute and write the source's notebooks; returns the paths written. ``strict`` defaults to
    whether every source is converted."""
    if strict is None:
        strict = all(is_converted(jupytext.read(s)) for s in sources())
    nb = jupytext.read(source)
    parts = split(source, nb, strict=strict)
    written = []
    for lang in languages:
        cells = parts[lang]
        if cells is None:
            print(f"\n  {source.name}: no zh-CN cells yet, {lang} notebook not built", end="", file=sys.stderr)
            continue
        out = notebook(source, nb, lang, cells)
        directory = TARGET_DIR[lang]
        directory.mkdir(exist_ok=True)
        NotebookClient(
            out,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(directory)}},
            record_timing=False,
        ).execute()
        portable_metadata(out.metadata)
        _stable_widget_ids(out)
        out.metadata["kernelspec"] = KERNELSPEC
        target = directory / source.with_suffix(".ipynb").name
        nbformat.write(out, target)
        written.append(target)
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="notebooks to rebuild (default: all), e.g. 02_serialization")
    ap.add_argument("--lang", choices=LANGUAGES, action="append", help="only this language (repeatable; default: both)")
    args = ap.parse_args(argv)
    # the kernels inherit this environment: an English notebook must not pick up the caller's language
    os.environ.pop("AGENT_CONTRACT_LANG", None)
    found = sources()
    chosen = [s for s in found if not args.names or s.stem in args.names or s.name in args.names]
    unknown = set(args.names) - {s.stem for s in found} - {s.name for s in found}
    if unknown:
        print(f"error: no source notebooks/{', '.join(sorted(unknown))}(.py)", file=sys.stderr)
        return 2
    strict = all(is_converted(jupytext.read(s)) for s in found)
    for source in chosen:
        t = time.monotonic()
        print(f"{source.name} ...", end="", flush=True, file=sys.stderr)
        try:
            build(source, strict=strict, languages=tuple(args.lang or LANGUAGES))
        except SourceError as exc:
            print(f"\nerror: {exc}", file=sys.stderr)
            return 1
        print(f" {time.monotonic() - t:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
