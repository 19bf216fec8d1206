"""The report in Chinese (``verify --lang zh-CN``): headings, layer names, verdict words and the toolkit's own
sentences translated; every exact upstream text (DSH's refusals, OpenAI's schema errors, config quotes)
verbatim in both languages; exit code and JSON the same whatever the language."""

from __future__ import annotations

import re
from html import escape

import pytest
from conftest import DEMO_BEFORE, REPO

from toolkit.knowledge import dsh_images, dsh_runtime
from toolkit.present import cli, i18n, report

BEFORE = DEMO_BEFORE


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)
    for var in (i18n.ENV, "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    i18n.set_language(None)
    yield
    i18n.set_language(None)


def run(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def verdict():
    """The before-fix verdict, computed once, with the inputs the CLI would show."""
    from toolkit.analysis.verify import verify
    from toolkit.capture import load_captures
    from toolkit.layers.config import load_settings

    settings = load_settings(REPO / "data/dsh-before-fix/settings.yaml", dsh="0.1.0-rc.8")
    capture = load_captures([REPO / "data/dsh-before-fix/capture.har", REPO / "data/dsh-before-fix/session.jsonl.zstd"])
    v = verify(settings, capture, dsh="0.1.0-rc.8")
    return v, report.Inputs("settings.yaml", ["capture.har"], ["session.jsonl.zstd"], v.mode, "0.1.0-rc.8")


def _upstream(v, english: str) -> list[str]:
    """The exact texts of the English report: every backticked and quoted span, DSH's texts by entry point,
    and the refusals the execution layer counts."""
    spans = re.findall(r"`([^`\n]+)`", english)
    spans += re.findall(r"(?<!\w)'([^'\n]{4,})'(?!\w)", english)  # not an apostrophe
    spans += re.findall(r'"([^"\n]+)"', english)
    spans += [t for r in v.results for _, t in r.dsh_messages]
    spans += [e.split(": ", 1)[1] for r in v.results for e in r.evidence if e.startswith("×")]
    return sorted(set(spans))


def test_cli_text_in_chinese_keeps_every_upstream_text(capsys, verdict):
    code_en, en = run(capsys, "verify", *BEFORE)
    code_zh, zh = run(capsys, "verify", *BEFORE, "--lang", "zh-CN")
    assert code_en == code_zh == 1
    assert zh != en
    assert zh.startswith("agent-contract verify：失败\n")
    for heading in ("配置", "序列化", "能力", "执行"):
        assert re.search(rf"^{heading} +(失败|警告|通过|无证据) ", zh, re.M), heading
    assert "    修复：" in zh and "    fix:" not in zh
    texts = _upstream(verdict[0], en)
    assert len(texts) > 20
    assert [t for t in texts if t not in zh] == []
    for must in (
        dsh_images.WEB_TOAST,
        dsh_images.WEB_TOAST_ZH,
        dsh_images.read_image_refusal("screenshot.png", "gw-coder"),
        dsh_runtime.EMPTY_JUSTIFICATION,
        dsh_images.PLACEHOLDER_USER,
    ):
        assert must in zh


def test_the_locale_and_the_environment_choose_the_cli_language(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, zh = run(capsys, "verify", *BEFORE)
    assert code == 1 and zh.startswith("agent-contract verify：失败")
    code, en = run(capsys, "verify", *BEFORE, "--lang", "en")
    assert code == 1 and en.startswith("agent-contract verify: FAIL")
    assert run(capsys, "verify", *BEFORE, "--lang", "fr")[0] == 2


def test_markdown_and_html_in_chinese(verdict):
    v, inputs = verdict
    en_md, zh_md = report.to_markdown(v, inputs, lang="en"), report.to_markdown(v, inputs, lang="zh-CN")
    assert zh_md.startswith("## 智能体工具调用契约：四层结论\n\n**结果：未通过**")
    assert "| 层 | 结论 | 概要 |" in zh_md and "| 执行 | ❌ 失败 |" in zh_md and "**修复：**" in zh_md
    codes = set(re.findall(r"`[^`\n]+`", en_md))
    assert [c for c in codes if c not in zh_md] == []
    en_html, zh_html = report.to_html(v, inputs, lang="en"), report.to_html(v, inputs, lang="zh-CN")
    assert '<html lang="zh-CN">' in zh_html and "<th>证据表明</th>" in zh_html and "至少有一层未通过。" in zh_html
    for r in v.results:
        for _, t in r.dsh_messages:
            assert f"<code>{escape(t)}</code>" in zh_html
    assert report.to_html(v, inputs) == en_html  # the library default is English


def test_the_language_setting_is_the_default_of_every_renderer(verdict):
    v, inputs = verdict
    i18n.set_language("zh-CN")
    assert report.to_text(v, inputs) == report.to_text(v, inputs, lang="zh-CN")
    assert report.verdict_html(v).startswith('<table class="agent-contract-verdict"><thead><tr><th>层</th>')
    assert "执行" in repr(report.view(v)) and "<th>层</th>" in report.view(v)._repr_html_()
    i18n.set_language("en")
    assert repr(report.view(v)) == repr(v)


def test_json_is_the_same_in_every_language(verdict):
    v, inputs = verdict
    i18n.set_language("zh-CN")
    zh = report.to_json(v, inputs)
    i18n.set_language(None)
    assert zh == report.to_json(v, inputs)
    assert zh["layers"][3]["summary"] == "DSH refused 2 of 2 calls"


def test_experiment_section_in_chinese_keeps_dsh_verbatim():
    from toolkit.experiment.run import load

    result = load(REPO / "data" / "experiment-before-fix")
    en, zh = report.experiment_markdown(result, lang="en"), report.experiment_markdown(result, lang="zh-CN")
    assert en == report.experiment_markdown(result)
    assert zh.startswith("## 实验：同一请求，契约的不同变体\n") and "### 返回了什么" in zh
    rules = [str(r) for r in result.summary["top_rule"].dropna()]
    assert rules and all(f"`{r}`" in zh for r in rules)
    html = report.experiment_html(result, lang="zh-CN")
    assert "<h3>各变体改了什么</h3>" in html and all(escape(r) in html for r in rules)
