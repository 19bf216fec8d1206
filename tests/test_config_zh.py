"""The config layer and the CLI in Chinese: every finding's explanation and fix, the sources of resolved
values and the CLI's own lines are toolkit ``Message``s (English byte-identical to before), while the
config quotes, DSH's and LiteLLM's texts, keys and YAML paths stay verbatim in every language."""

from __future__ import annotations

import contextlib
import json
import re
import string
from pathlib import Path

import pytest
from conftest import REPO

from toolkit.knowledge import dsh_images
from toolkit.knowledge import litellm_config as llc
from toolkit.knowledge.messages import MESSAGES, Message, render, text
from toolkit.layers.config import CODES, GatewayConfigError, load_gateway_config, load_settings
from toolkit.layers.config.gateway import gateway_findings
from toolkit.present import cli

BEFORE = "data/dsh-before-fix/settings.yaml"
SNAPSHOT = REPO / "tests" / "snapshots" / "config_dsh_before_fix.en.txt"  # `config` on BEFORE, before issue 19
CJK = re.compile(r"[\u4e00-\u9fff]")
#: settings texts for the codes the DSH fixtures do not cover (they are not refusals DSH records)
EXTRA_SETTINGS = {
    "yaml-syntax": "llm-pi-ai: [\n",
    "not-a-mapping": "- llm-pi-ai\n",
    "unknown-preset": "permission:\n  defaultPreset: nope\n",
    "default-route-missing": "agent-default-model:\n  provider: gone\n  model: m\n",
}
GATEWAY_TEXTS = {"gateway-no-model-list": "general_settings: {}\n"}
#: findings whose message is only a problem text of ``toolkit.knowledge.litellm_config`` after the file
#: name (that module's texts count as upstream, tests/test_messages.py): only the colon is translated
PROBLEM_ONLY = {"gateway-no-model-list", "gateway-flag-not-bool"}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)
    for name in ("GATEWAY_API_KEY", "DSH_PERMISSION_MODE", "AGENT_CONTRACT_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _every_finding():
    """One finding of each code, from the DSH fixtures, the gateway fixtures and the few texts above."""
    found = {}
    settings = [r["settings"] for r in json.loads((REPO / "tests/fixtures/dsh/config.json").read_text())["records"]]
    for body in [*settings, *EXTRA_SETTINGS.values()]:
        for f in load_settings(text=body, env={})._findings:
            found.setdefault(f.code, f)
    gateways = [load_gateway_config(text=t) for t in GATEWAY_TEXTS.values()]
    for path in sorted((REPO / "tests/fixtures/litellm/config").glob("*.yaml")):
        with contextlib.suppress(GatewayConfigError):  # LiteLLM's proxy refuses it: an InputError, English
            gateways.append(load_gateway_config(path))
    dsh = [load_settings(p) for p in ("data/configs/settings.before.yaml", "data/dsh-image/settings.yaml")]
    for g in gateways:
        for s in (None, *dsh):
            for f in gateway_findings(g, s):
                found.setdefault(f.code, f)
    return found


FINDINGS = _every_finding()


def _verbatim(m: Message) -> list[str]:
    """The parameters of a Message (and of those nested in it) that are not toolkit words: upstream texts,
    keys, paths, values."""
    out = []
    for v in [*m.params.values(), *getattr(m, "parts", ())]:
        if isinstance(v, Message):
            out += _verbatim(v)
        elif isinstance(v, str) and v:
            out.append(v)
    return out


def test_every_code_is_covered():
    assert sorted(FINDINGS) == sorted(CODES)


@pytest.mark.parametrize("code", CODES)
def test_every_finding_is_a_message_in_both_languages_with_its_quotes_verbatim(code):
    f = FINDINGS[code]
    for said in (f.message, f.fix):
        if said is None:
            continue
        assert isinstance(said, Message), (code, said)
        zh = said.render("zh-CN")
        assert said.render("en") == str(said)
        if code in PROBLEM_ONLY and said is f.message:
            assert zh == "{file}：{problem}".format(**said.params), zh
        else:
            assert CJK.search(zh), (code, zh)
        for quote in _verbatim(said):
            assert quote in zh, (code, quote)


def test_the_gateway_problem_and_litellm_answer_stay_verbatim():
    g = load_gateway_config(text=GATEWAY_TEXTS["gateway-no-model-list"])
    (f,) = gateway_findings(g)
    assert f.message == f"{g.name}: {llc.PROBLEMS['no-model-list']}"
    assert f.message.render("zh-CN") == f"{g.name}：{llc.PROBLEMS['no-model-list']}"
    missing = FINDINGS["gateway-model-missing"]
    assert llc.unknown_model_text("gw-coder").splitlines()[0] in missing.message.render("zh-CN")


def test_every_config_and_cli_key_renders_in_both_languages():
    keys = [k for k in MESSAGES if k.startswith(("config.", "cli."))]
    assert len(keys) > 100
    for key in keys:
        fields = {f for _, f, _, _ in string.Formatter().parse(MESSAGES[key]["en"]) if f}
        params = {f: f"<{f}>" for f in fields}
        for lang in ("en", "zh-CN"):
            assert all(f"<{f}>" in text(key, lang, **params) for f in fields), (key, lang)


def test_the_sources_of_resolved_values_are_messages():
    m = load_settings(BEFORE).models.iloc[0]
    assert m["input_source"] == "route defaultInput (default [text])"  # the English text, as before
    assert render(m["input_source"], "zh-CN") == "路由 defaultInput（默认 [text]）"
    assert render(m["context_window_source"], "zh-CN") == "模型条目"
    assert m["strict_mode_winner"].startswith("provider's resolved value")
    assert "`?? true`" in render(m["strict_mode_winner"], "zh-CN")
    assert render(m["strict_mode_source"], "zh-CN") == m["strict_mode_source"]  # pi-ai's default, as modelled
    wide = load_settings(
        text="llm-pi-ai:\n  providers:\n    r:\n      api: openai-completions\n      baseURL: http://x\n"
        "      defaultContextWindow: 9000\n      models:\n        - id: m\n",
        env={},
    )
    row = wide.models.iloc[0]
    assert (row["context_window_source"], row["max_tokens_source"]) == (
        "route defaultContextWindow",
        "defaultMaxTokens default",
    )
    assert render(row["context_window_source"], "zh-CN") == "路由 defaultContextWindow"
    assert render(row["max_tokens_source"], "zh-CN") == "defaultMaxTokens 默认值"
    preset = load_settings(text="{}\n", env={}).default_preset["source"]
    assert (preset, render(preset, "zh-CN")) == (
        "base bundle default (sandbox-policy)",
        "基础 bundle 默认值（sandbox-policy）",
    )


def test_the_gateway_vision_sentence_renders_in_chinese_with_the_file_line_verbatim():
    g = load_gateway_config("tests/fixtures/litellm/config/text-only.yaml")
    said = g.vision(g.model_names[0])
    assert said.state == "text-only" and isinstance(said.sentence, Message)
    zh = said.sentence.render("zh-CN")
    assert "仅支持文本" in zh and "`supports_vision: false`" in zh
    assert re.search(rf"{re.escape(g.name)} 第 \d+ 行：`model_info\.supports_vision: false`", zh), zh


def test_config_in_english_is_byte_identical_to_before(capsys):
    code, out, err = run(capsys, "config", BEFORE)
    assert (code, err) == (0, "")
    assert out == SNAPSHOT.read_text(encoding="utf-8")
    assert run(capsys, "config", BEFORE, "--lang", "en")[1] == out


def test_config_in_chinese_translates_labels_and_keeps_every_quote(capsys):
    code, out, err = run(capsys, "config", BEFORE, "--lang", "zh-CN")
    assert (code, err) == (0, "")
    first = out.splitlines()[0].split()
    assert first[:4] == ["路由", "模型", "api", "输入"] and "输入来源" in first
    for label in (
        "4 项发现：",
        "警告 [序列化] 第 12 行（llm-pi-ai.providers.gateway.compat）：",
        "    修复：",
        "    DSH 原文：",
        "以 diff 形式查看最小修复：agent-contract config --diff " + BEFORE,
        "路由 defaultInput（默认 [text]）",
    ):
        assert label in out, label
    for english in ("findings:", "fix:", "DSH says", "new agents use", "the minimal fix"):
        assert english not in out, english
    settings = load_settings(BEFORE)
    quotes = [t for _, t in dsh_images.refusals("gw-coder")] + list(settings.findings["dsh_message"].dropna())
    quotes += list(settings.findings["yaml_path"]) + [
        "`GATEWAY_API_KEY`",
        "gateway/gw-coder",
        "permission.defaultPreset",
    ]
    quotes += ["`compat: {supportsStrictMode: true}`", "`(image omitted: model does not support images)`"]
    for quote in quotes:
        assert quote in out, quote


def test_a_zh_locale_chooses_chinese_and_an_unknown_language_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert "4 项发现：" in run(capsys, "config", BEFORE)[1]
    assert run(capsys, "config", BEFORE, "--lang", "en")[1] == SNAPSHOT.read_text(encoding="utf-8")
    for command in (["config", BEFORE], ["verify"], ["experiment", "x.har"], ["ingest", "x.har", "--out", "d"]):
        code, out, err = run(capsys, *command, "--lang", "fr")
        assert code == 2 and out == ""
        assert "error: argument --lang: invalid choice: 'fr' (choose from 'en', 'zh-CN')" in err, err
    monkeypatch.setenv("AGENT_CONTRACT_LANG", "fr")
    assert run(capsys, "config", BEFORE) == (
        2,
        "",
        "agent-contract: error: AGENT_CONTRACT_LANG: unknown language 'fr': known en, zh-CN\n",
    )


def test_an_input_error_stays_english_in_chinese(capsys):
    code, _, err = run(capsys, "config", "no-such-settings.yaml", "--lang", "zh-CN")
    assert code == 2 and err.startswith("agent-contract: error: no-such-settings.yaml: cannot read: ")


@pytest.mark.parametrize(("data", "word", "code"), [("dsh-before-fix", "失败", 1), ("dsh-after-fix", "通过", 0)])
def test_the_pass_fail_line_in_chinese(capsys, tmp_path, data, word, code):
    out = tmp_path / "r.txt"
    args = ["verify", "--settings", f"data/{data}/settings.yaml", "--capture", f"data/{data}/capture.har"]
    args += ["--session", f"data/{data}/session.jsonl.zstd", "--dsh", "0.1.0-rc.8", "--out", str(out)]
    assert run(capsys, *args, "--lang", "zh-CN") == (code, "", f"{word}：已写入 {out}\n")
    english = "FAIL" if code else "PASS"
    assert run(capsys, *args) == (code, "", f"{english}: wrote {out}\n")


def test_experiment_dry_run_in_chinese_keeps_the_data_verbatim(capsys):
    args = ["experiment", "data/dsh-before-fix/capture.har", "--exchange", "capture.har:1"]
    code, en, en_err = run(capsys, *args)
    assert code == 0 and en_err == "agent-contract: no --endpoint: a dry run, nothing is sent\n"
    assert en.startswith("data/dsh-before-fix/capture.har capture.har:1 (responses), mode unknown\n")
    assert "\ndry run: nothing sent (10 requests would be sent to no endpoint (give --endpoint URL))\n" in en
    code, zh, zh_err = run(capsys, *args, "--lang", "zh-CN")
    assert code == 0 and zh_err == "agent-contract：未给出 --endpoint：试运行，不发送任何请求\n"
    assert zh.startswith("data/dsh-before-fix/capture.har capture.har:1（responses），沙箱模式 未知\n")
    assert "strict-absent：0 处改动（与抓包相同）" in zh and "strict-false：25 处改动" in zh
    assert "试运行：未发送任何请求（共 10 个请求，目标：无端点（用 --endpoint URL 指定））" in zh
    heads = next(line for line in zh.splitlines() if "工具" in line).split()
    assert heads == ["工具", "路径", "类型", "之前", "之后"]
    for cell in ("$.tools[0].strict", "strict added", "str_replace_editor $.tools[17].strict"):
        assert cell in en and cell in zh


def test_ingest_lines_in_chinese(capsys, tmp_path):
    code, out, err = run(
        capsys, "ingest", "data/dsh-before-fix/capture.har", "--out", str(tmp_path), "--jobs", "1", "--lang", "zh-CN"
    )
    assert code == 0 and err == f"已将 1 个抓包和 manifest.json 写入 {tmp_path}\n"
    assert re.fullmatch(r"capture\.har：5 个交换，用时 \d+\.\ds（5 exchanges, 100 tools, .*）\n", out), out


def test_the_readmes_mention_lang_on_config_and_experiment():
    for name in ("README.md", "README.zh-CN.md"):
        body = Path(REPO / name).read_text(encoding="utf-8")
        assert re.search(r"agent-contract config .*--lang", body), name
        assert re.search(r"agent-contract experiment .*--lang", body), name
