"""One source, two languages (issue 19): every markdown cell of a notebook source comes as an ``en`` cell
followed by its ``zh-CN`` twin, the twin is Chinese and keeps every backticked text verbatim (exact upstream
texts are what a reader searches for), and the two written notebooks run the same code."""

from __future__ import annotations

import importlib.util
import re

import jupytext
import nbformat
import pytest
from conftest import REPO

from toolkit.knowledge.messages import LANGUAGES

NOTEBOOK_DIR = REPO / "notebooks"
SOURCES = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
FENCED = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
COMMENT = re.compile(r"[ \t]+#[ \t].*$", re.M)
INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
IDS = [p.stem for p in SOURCES]

_spec = importlib.util.spec_from_file_location("notebook_build", NOTEBOOK_DIR / "build.py")
assert _spec and _spec.loader
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)
ZH_SETUP = build.ZH_SETUP  # the Chinese notebook's first cell, as the build writes it


def _markdown(source):
    """``(cell number, language tag or None, text)`` of each markdown cell, in order."""
    out = []
    for i, cell in enumerate(jupytext.read(source).cells):
        if cell.cell_type == "markdown":
            tags = [t for t in cell.metadata.get("tags", []) if t in LANGUAGES]
            out.append((i + 1, tags[0] if len(tags) == 1 else None, cell.source))
    return out


def _pairs(source):
    cells = jupytext.read(source).cells
    return [
        (i + 1, cell.source, cells[i + 1].source)
        for i, cell in enumerate(cells[:-1])
        if cell.cell_type == "markdown" and "en" in cell.metadata.get("tags", [])
    ]


def _uncommented(text: str) -> str:
    """A fenced block without its end-of-line comments (prose, which a translation may translate)."""
    return COMMENT.sub("", text)


def _verbatim(text: str) -> list[str]:
    """The spans a translation must keep: fenced blocks (but for their comments) and inline code spans."""
    spans = [_uncommented(m.group(0)) for m in FENCED.finditer(text)]
    rest = FENCED.sub("", text)
    return spans + [m.group(0) for m in INLINE.finditer(rest)]


def _kept(span: str, zh: str) -> bool:
    if span.startswith(("```", "~~~")):
        return any(_uncommented(m.group(0)) == span for m in FENCED.finditer(zh))
    return span in zh


def test_there_are_sources():
    assert SOURCES


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_markdown_cells_come_in_en_zh_pairs(source):
    cells = jupytext.read(source).cells
    for i, cell in enumerate(cells):
        tags = [t for t in cell.metadata.get("tags", []) if t in LANGUAGES]
        where = f"notebooks/{source.name} cell {i + 1}"
        if cell.cell_type != "markdown":
            assert not tags, f"{where}: a {cell.cell_type} cell is shared and takes no language tag"
            continue
        assert len(tags) == 1, f"{where}: a markdown cell needs exactly one of en, zh-CN (has {tags})"
        if tags == ["en"]:
            nxt = cells[i + 1] if i + 1 < len(cells) else None
            assert nxt is not None and nxt.cell_type == "markdown" and nxt.metadata.get("tags") == ["zh-CN"], (
                f"{where}: the en cell is not followed by its zh-CN twin"
            )
        else:
            prev = cells[i - 1] if i else None
            assert prev is not None and "en" in prev.metadata.get("tags", []), (
                f"{where}: the zh-CN cell does not follow an en cell"
            )
    langs = [lang for _, lang, _ in _markdown(source)]
    assert langs.count("en") == langs.count("zh-CN") > 0


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_every_zh_cell_is_chinese(source):
    """A twin that is only exact upstream text (code spans, nothing else to translate) may stay as it is."""
    for number, en, zh in _pairs(source):
        prose = INLINE.sub("", FENCED.sub("", zh))
        if re.search(r"[A-Za-z]{2}", INLINE.sub("", FENCED.sub("", en))):
            assert CJK.search(prose), f"notebooks/{source.name} cell {number + 1}: the zh-CN twin has no Chinese"


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_backticked_texts_stay_verbatim(source):
    pairs = _pairs(source)
    assert pairs
    for number, en, zh in pairs:
        missing = [s for s in _verbatim(en) if not _kept(s, zh)]
        assert not missing, f"notebooks/{source.name} cell {number + 1}: the zh-CN twin lacks {missing}"


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_the_chinese_notebook_exists(source):
    assert (NOTEBOOK_DIR / "zh-CN" / f"{source.stem}.ipynb").exists(), (
        f"no notebooks/zh-CN/{source.stem}.ipynb; regenerate with `make notebooks`"
    )


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_both_notebooks_run_the_same_code(source):
    zh_path = NOTEBOOK_DIR / "zh-CN" / f"{source.stem}.ipynb"
    if not zh_path.exists():
        pytest.fail(f"no {zh_path.relative_to(REPO)}", pytrace=False)
    en = nbformat.read(source.with_suffix(".ipynb"), as_version=4).cells
    zh = nbformat.read(zh_path, as_version=4).cells
    assert zh[0].cell_type == "code" and zh[0].source == ZH_SETUP, "the zh-CN notebook starts with its setup cell"
    assert zh[0].outputs == [], "the setup cell prints nothing"

    def code(cells):
        return [(c.source, c.metadata.get("tags", [])) for c in cells if c.cell_type == "code"]

    assert code(zh[1:]) == code(en)
    assert sum(c.cell_type == "markdown" for c in zh) == sum(c.cell_type == "markdown" for c in en)


# ---- the build's own rules -----------------------------------------------------------------------


def _nb(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def _md(text, *tags):
    return nbformat.v4.new_markdown_cell(text, metadata={"tags": list(tags)} if tags else {})


def test_the_build_splits_a_source_into_its_two_notebooks():
    code = nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]})
    nb = _nb(_md("# Hello", "en"), _md("# 你好", "zh-CN"), code)
    parts = build.split(NOTEBOOK_DIR / "99_demo.py", nb, strict=True)
    assert [c.source for c in parts["en"]] == ["# Hello", "x = 1"]
    assert [c.source for c in parts["zh-CN"]] == ["# 你好", "x = 1"]
    zh = build.notebook(NOTEBOOK_DIR / "99_demo.py", nb, "zh-CN", parts["zh-CN"])
    assert zh.cells[0].source == ZH_SETUP
    assert [c.metadata.get("tags") for c in zh.cells] == [None, None, ["parameters"]]
    en = build.notebook(NOTEBOOK_DIR / "99_demo.py", nb, "en", parts["en"])
    assert {c.id for c in en.cells}.isdisjoint(c.id for c in zh.cells)


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ((_md("# Hello", "en"), _md("# 你好", "zh-CN"), _md("untagged")), "cell 3 (markdown: 'untagged')"),
        ((_md("# Hello", "en"), nbformat.v4.new_code_cell("x = 1")), "cell 2 (code: 'x = 1'): follows an en cell"),
        ((_md("# 你好", "zh-CN"),), "cell 1 (markdown: '# 你好'): zh-CN cell that does not follow"),
        ((_md("# Hello", "en"),), "the last en cell has no zh-CN twin"),
    ],
)
def test_the_build_names_the_cell_that_breaks_the_pairs(cells, message):
    with pytest.raises(build.SourceError, match=re.escape(f"notebooks/99_demo.py: {message}")):
        build.split(NOTEBOOK_DIR / "99_demo.py", _nb(*cells), strict=False)


def test_an_unconverted_source_builds_english_only_until_every_source_is_converted():
    nb = _nb(_md("# Hello"), nbformat.v4.new_code_cell("x = 1"))
    parts = build.split(NOTEBOOK_DIR / "99_demo.py", nb, strict=False)
    assert parts["zh-CN"] is None and [c.source for c in parts["en"]] == ["# Hello", "x = 1"]
    with pytest.raises(build.SourceError, match=r"99_demo\.py: cell 1 .*without a language tag"):
        build.split(NOTEBOOK_DIR / "99_demo.py", nb, strict=True)
