"""Render the postmortem notebook to one self-contained HTML file (``make postmortem``).

The notebook runs top to bottom with the evidence its first cell names; the code is hidden, the
figures are embedded, and the two scripts nbconvert links from a CDN (MathJax, RequireJS, unused
here) are dropped, so the file opens offline and can be attached to a postmortem as it is.

``--lang zh-CN`` renders the Chinese write-up (notebooks/zh-CN/06_postmortem.ipynb, whose setup cell
switches the toolkit's words to Chinese) to reports/postmortem.zh-CN.html; the HTML says its language
(``<html lang="zh-CN">``). ``-p NAME VALUE`` sets a parameter of the first cell for this run only
(papermill's way: a cell after it, tagged ``injected-parameters``), e.g. ``-p TITLE "…"``.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

HERE = Path(__file__).resolve().parent
LANGUAGES = ("en", "zh-CN")
NOTEBOOK = {"en": HERE / "06_postmortem.ipynb", "zh-CN": HERE / "zh-CN" / "06_postmortem.ipynb"}
OUT = {"en": HERE.parent / "reports" / "postmortem.html", "zh-CN": HERE.parent / "reports" / "postmortem.zh-CN.html"}
LANG_ENV = "AGENT_CONTRACT_LANG"  # toolkit.present.i18n.ENV: the notebook's setup cell decides, not the caller's shell
_EXTERNAL_SCRIPT = re.compile(r'<script[^>]*\bsrc="https?://[^"]*"[^>]*>\s*</script>\s*', re.I)
# script blocks that fetch code at run time (MathJax's config, the Mermaid loader): nothing here needs them
_FETCHING_BLOCK = re.compile(r'<script type="(?:module|text/x-mathjax-config)">(?:(?!</script>).)*?</script>\s*', re.S)
_HTML_TAG = re.compile(r"<html\b[^>]*>", re.I)
_SETS_LANGUAGE = re.compile(r"""i18n\.set_language\(\s*["']([^"']+)["']\s*\)""")


def language_of(nb) -> str:
    """The notebook's language: the one its setup cell (notebooks/build.py's ``ZH_SETUP``) sets, else English."""
    first = next((c for c in nb.cells if c.cell_type == "code"), None)
    found = _SETS_LANGUAGE.search(first.source) if first is not None else None
    return found.group(1) if found else "en"


def inject(nb, parameters: dict[str, Any]) -> None:
    """Put ``parameters`` in a cell right after the one tagged ``parameters`` (papermill's convention), so
    they override its values for this run; the notebook file is not changed."""
    if not parameters:
        return
    at = next((i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])), None)
    if at is None:
        raise SystemExit("the notebook has no cell tagged `parameters` to override")
    source = "\n".join(f"{name} = {value!r}" for name, value in parameters.items())
    cell = nbformat.v4.new_code_cell(f"# Injected parameters\n{source}", metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(at + 1, cell)


def render(
    notebook: Path,
    out: Path,
    *,
    lang: str | None = None,
    parameters: dict[str, Any] | None = None,
    cwd: Path | None = None,
) -> Path:
    """Execute ``notebook`` (in ``cwd``, default its folder) and write it to ``out`` as HTML. ``lang``
    checks the notebook is in that language (default: whatever it is) and is written as the HTML's."""
    nb = nbformat.read(notebook, as_version=4)
    written_in = language_of(nb)
    if lang is not None and lang != written_in:
        raise SystemExit(f"{notebook}: written in {written_in}, not {lang} (the {lang} one: {NOTEBOOK[lang]})")
    inject(nb, parameters or {})
    saved = os.environ.pop(LANG_ENV, None)
    try:
        NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd or notebook.parent)}}
        ).execute()
    finally:
        if saved is not None:
            os.environ[LANG_ENV] = saved
    html, _ = HTMLExporter(
        exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True
    ).from_notebook_node(nb, resources={"metadata": {"name": _title(nb, written_in)}})
    html = _FETCHING_BLOCK.sub("", _EXTERNAL_SCRIPT.sub("", html))
    if re.search(r'(src|href)="https?://|import\("https?://', html):
        raise SystemExit(f"{out}: the rendered report still links an external resource")
    html = _HTML_TAG.sub(f'<html lang="{written_in}">', html, count=1)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out


def _title(nb, lang: str) -> str:
    """The HTML's ``<title>``: the write-up's ``TITLE`` (its parameters cell, then any injected one), else
    the default title in the notebook's language."""
    from toolkit.knowledge.messages import text

    title = None
    for cell in nb.cells:
        if cell.cell_type == "code" and {"parameters", "injected-parameters"} & set(cell.metadata.get("tags", [])):
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "TITLE" for t in node.targets):
                    value = node.value.value if isinstance(node.value, ast.Constant) else None
                    title = value if isinstance(value, str) and value else None
    return title or text("postmortem.title", lang)


def _value(text: str) -> Any:
    """A parameter's value: a Python literal (``None``, ``3``, ``["a", "b"]``), else the text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", choices=LANGUAGES, help="the write-up's language (default: the notebook's, else en)")
    ap.add_argument("--notebook", type=Path, help="default: notebooks/06_postmortem.ipynb (zh-CN: notebooks/zh-CN/…)")
    ap.add_argument("--out", type=Path, help="default: reports/postmortem.html (zh-CN: reports/postmortem.zh-CN.html)")
    ap.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="override a parameter",
    )
    args = ap.parse_args(argv)
    notebook = args.notebook or NOTEBOOK[args.lang or "en"]
    lang = args.lang or language_of(nbformat.read(notebook, as_version=4))
    path = render(notebook, args.out or OUT[lang], lang=lang, parameters={k: _value(v) for k, v in args.parameter})
    print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
