"""The postmortem template renders to one self-contained HTML file, in English and in Chinese."""

from __future__ import annotations

import html as htmllib
import re
import sys

import jupytext
import nbformat
import pytest
from conftest import REPO

import toolkit
from toolkit.analysis.verify import verify
from toolkit.knowledge.messages import text

sys.path.insert(0, str(REPO / "notebooks"))
import build
import render_postmortem

NOTEBOOKS = REPO / "notebooks"
SOURCE = NOTEBOOKS / "06_postmortem.py"
DATA = REPO / "data" / "dsh-before-fix"


@pytest.fixture(scope="module")
def evidence():
    """The verdict and DSH's texts for the template's default evidence, read from the recorded run."""
    settings = toolkit.load_settings(DATA / "settings.yaml", env={}, dsh="0.1.0-rc.8")
    capture = toolkit.load_captures([DATA / "capture.har", DATA / "session.jsonl.zstd"])
    result = verify(settings, capture, dsh="0.1.0-rc.8")
    refusals = capture.tool_results[capture.tool_results["is_error"].fillna(False)]["text"]
    texts = {t for r in result.results for _, t in r.dsh_messages}
    texts |= set(refusals) | set(settings.findings["dsh_message"].dropna())
    assert len(texts) >= 10 and "Error: invalid justification: expected a non-empty sentence" in texts
    return result, texts


def _from_source(lang: str, tmp_path):
    """The ``lang`` notebook as notebooks/build.py makes it from the source, unexecuted (the lead's rebuild
    writes the same cells to notebooks/ and notebooks/zh-CN/)."""
    nb = jupytext.read(SOURCE)
    path = tmp_path / f"06_postmortem.{lang}.ipynb"
    nbformat.write(build.notebook(SOURCE, nb, lang, build.split(SOURCE, nb, strict=True)[lang]), path)
    return path


def _check_self_contained(html: str) -> None:
    assert not re.search(r'(src|href)="https?://|import\("https?://', html)  # nothing fetched when opened
    assert html.count('src="data:image/png;base64,') >= 1  # the figure is embedded
    assert "sk-lab-FAKE" not in html and "def " not in html  # redacted, and the code is hidden


def test_postmortem_renders_offline_with_every_section(tmp_path, evidence):
    _, texts = evidence
    out = render_postmortem.render(NOTEBOOKS / "06_postmortem.ipynb", tmp_path / "pm.html")
    html = out.read_text(encoding="utf-8")
    _check_self_contained(html)
    assert html.count("<html") == 1 and '<html lang="en">' in html
    for heading in ("Summary", "Timeline", "Evidence by layer", "Root causes", "Fixes"):
        assert f">{heading}<" in html
    assert ">Tool calls refused after the gateway migration<" in html  # the default title
    assert "<title>Tool calls refused after the gateway migration</title>" in html  # not nbconvert's "Notebook"
    assert "invalid justification: expected a non-empty sentence" in html
    shown = htmllib.unescape(html)
    assert not [t for t in texts if t not in shown]  # every text DSH showed, character for character


def test_postmortem_renders_in_chinese_with_upstream_texts_verbatim(tmp_path, evidence):
    result, texts = evidence
    out = render_postmortem.render(_from_source("zh-CN", tmp_path), tmp_path / "pm.zh-CN.html", cwd=NOTEBOOKS)
    html = out.read_text(encoding="utf-8")
    _check_self_contained(html)
    assert '<html lang="zh-CN">' in html
    for heading in ("事后复盘", "摘要", "时间线", "各层的证据", "根因", "修复"):
        assert f">{heading}<" in html
    assert f">{text('postmortem.title', 'zh-CN')}<" in html
    assert f"<title>{text('postmortem.title', 'zh-CN')}</title>" in html
    for r in result.results:  # the verdict words of the layers as verify judged them
        assert f'font-weight:bold">{text(f"verdict.{r.verdict}", "zh-CN")}</td>' in html
    for r, _ in result.root_causes:  # every failing layer of the recorded incident, from its evidence
        assert f"<li>{text(f'layer.{r.layer}', 'zh-CN')}：" in html
    for label in ("entry_point", "dsh_text", "call_id", "severity", "question"):
        assert f"<th>{text(f'postmortem.col.{label}', 'zh-CN')}</th>" in html
    assert "<td>谁定义了该字段</td>" in html and "<td>警告</td>" in html  # words shown as values
    shown = htmllib.unescape(html)
    assert "invalid justification: expected a non-empty sentence" in shown
    assert not [t for t in texts if t not in shown]  # every text DSH showed, character for character
    english = ["Summary", "Timeline", "Root causes", "Tool calls refused", "request to", "tool result for"]
    english += ["entry point", "DSH's text", "No layer failed", "the failing layers"]
    visible = re.sub(r"<[^>]+>", " ", re.sub(r"<(style|script)\b.*?</\1>", "", shown, flags=re.S))
    assert not [w for w in english if w in visible]  # none of the template's own English words is left


def test_parameters_override_the_first_cell_for_one_run(tmp_path):
    source = _from_source("zh-CN", tmp_path)
    parameters = {"TITLE": "网关迁移复盘（测试）", "EXPERIMENT": None}
    out = render_postmortem.render(source, tmp_path / "p.html", lang="zh-CN", parameters=parameters, cwd=NOTEBOOKS)
    html = out.read_text(encoding="utf-8")
    assert ">网关迁移复盘（测试）<" in html and text("postmortem.title", "zh-CN") not in html
    assert "<title>网关迁移复盘（测试）</title>" in html
    assert text("postmortem.no_experiment", "zh-CN") in html and "实验：同一请求" not in html
    assert "injected-parameters" not in source.read_text(encoding="utf-8")  # the file is not changed


def test_the_language_picks_the_notebook_and_the_output(monkeypatch, tmp_path):
    calls = []

    def fake(notebook, out, **kw):
        calls.append((notebook, out, kw["lang"], kw["parameters"]))
        out = tmp_path / "x.html"
        out.write_text("x")
        return out

    monkeypatch.setattr(render_postmortem, "render", fake)
    render_postmortem.main([])
    render_postmortem.main(["--lang", "zh-CN"])
    render_postmortem.main(["--notebook", str(_from_source("zh-CN", tmp_path)), "-p", "EXPERIMENT", "None"])
    render_postmortem.main(["-p", "TITLE", "Gateway: tools refused", "-p", "CAPTURES", '["a.har"]'])
    reports = REPO / "reports"
    assert calls[0] == (NOTEBOOKS / "06_postmortem.ipynb", reports / "postmortem.html", "en", {})
    assert calls[1] == (NOTEBOOKS / "zh-CN" / "06_postmortem.ipynb", reports / "postmortem.zh-CN.html", "zh-CN", {})
    assert calls[2][1:] == (reports / "postmortem.zh-CN.html", "zh-CN", {"EXPERIMENT": None})  # its own language
    assert calls[3][3] == {"TITLE": "Gateway: tools refused", "CAPTURES": ["a.har"]}  # literals, else the text


def test_a_notebook_in_another_language_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="written in en, not zh-CN"):
        render_postmortem.render(_from_source("en", tmp_path), tmp_path / "x.html", lang="zh-CN")
