"""Render the postmortem notebook to one self-contained HTML file (``make postmortem``).

The notebook runs top to bottom with the evidence its first cell names; the code is hidden, the
figures are embedded, and the two scripts nbconvert links from a CDN (MathJax, RequireJS, unused
here) are dropped, so the file opens offline and can be attached to a postmortem as it is.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

HERE = Path(__file__).resolve().parent
_EXTERNAL_SCRIPT = re.compile(r'<script[^>]*\bsrc="https?://[^"]*"[^>]*>\s*</script>\s*', re.I)
# script blocks that fetch code at run time (MathJax's config, the Mermaid loader): nothing here needs them
_FETCHING_BLOCK = re.compile(r'<script type="(?:module|text/x-mathjax-config)">(?:(?!</script>).)*?</script>\s*', re.S)


def render(notebook: Path, out: Path) -> Path:
    nb = nbformat.read(notebook, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}}
    ).execute()
    html, _ = HTMLExporter(
        exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True
    ).from_notebook_node(nb)
    html = _FETCHING_BLOCK.sub("", _EXTERNAL_SCRIPT.sub("", html))
    if re.search(r'(src|href)="https?://|import\("https?://', html):
        raise SystemExit(f"{out}: the rendered report still links an external resource")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notebook", type=Path, default=HERE / "06_postmortem.ipynb")
    ap.add_argument("--out", type=Path, default=HERE.parent / "reports" / "postmortem.html")
    args = ap.parse_args(argv)
    path = render(args.notebook, args.out)
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
