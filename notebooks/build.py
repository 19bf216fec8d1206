"""Regenerate the notebooks (``make notebooks``): each ``NN_name.py`` (jupytext percent format) is the
source; it is executed top to bottom in a fresh kernel and written as ``NN_name.ipynb`` with its outputs.

The outputs are what nbval compares in ``make test``, so they are written reproducibly: no widget
state, no timings, a fixed kernelspec, no Python patch version, and cell ids derived from the cells.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def build(source: Path) -> Path:
    nb = jupytext.read(source)
    for i, cell in enumerate(nb.cells):  # ids from the position and the source, so a rebuild changes no id
        digest = hashlib.sha1(f"{source.stem}:{i}:{cell.source}".encode()).hexdigest()
        cell.id = digest[:8]
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}, record_timing=False
    ).execute()
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata.get("language_info", {}).pop("version", None)
    nb.metadata.pop("jupytext", None)
    target = source.with_suffix(".ipynb")
    nbformat.write(nb, target)
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="notebooks to rebuild (default: all), e.g. 02_serialization")
    args = ap.parse_args(argv)
    sources = sorted(HERE.glob("[0-9][0-9]_*.py"))
    if args.names:
        sources = [s for s in sources if s.stem in args.names or s.name in args.names]
    for source in sources:
        t = time.monotonic()
        print(f"{source.name} ...", end="", flush=True, file=sys.stderr)
        build(source)
        print(f" {time.monotonic() - t:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
