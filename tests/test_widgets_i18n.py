"""Widget labels follow the notebook's language (``i18n.set_language``): English by default, Chinese
after ``set_language("zh-CN")``; the data the controls offer (endpoints, modes, policies) stays as it is."""

from __future__ import annotations

import pytest
from conftest import REPO

import toolkit
from toolkit.analysis.whatif import POLICIES
from toolkit.knowledge import dsh_runtime
from toolkit.present import i18n
from toolkit.present import widgets as w


@pytest.fixture(autouse=True)
def _language(monkeypatch):
    monkeypatch.delenv(i18n.ENV, raising=False)
    i18n.set_language(None)
    w.forget_selections()
    yield
    i18n.set_language(None)
    w.forget_selections()


@pytest.fixture(scope="module")
def har():
    return toolkit.load_capture(REPO / "data" / "before-fix" / "capture.har")


def _labels(explorer) -> list[str]:
    return [
        c.description for c in (explorer.endpoint, explorer.model, explorer.status, explorer.layer, explorer.exchange)
    ]


def test_capture_explorer_labels_in_both_languages(har):
    en = w.CaptureExplorer(har, remember=False)
    assert _labels(en) == ["endpoint", "model", "status", "layer", "exchanges"]
    assert en.status.options[0] == ("any", None)
    i18n.set_language("zh-CN")
    zh = w.CaptureExplorer(har, remember=False)
    assert _labels(zh) == ["端点", "模型", "状态", "层", "交换"]
    assert zh.status.options[0] == ("全部", None)
    assert zh.endpoint.options[1:] == en.endpoint.options[1:]  # the captured values are not translated
    assert zh.exchange.options == en.exchange.options


@pytest.mark.parametrize("lang,any_label", [("en", "any"), ("zh-CN", "全部")])
def test_capture_explorer_any_choices_show_their_label(har, lang, any_label):
    """ipywidgets shows a blank box for ``value=None`` even when an option's value is None: each filter starts
    on its "any" choice by index, and comes back to it, label shown, when code sets the value to None."""
    i18n.set_language(lang)
    ex = w.CaptureExplorer(har, remember=False)
    filters = {"endpoint": ex.endpoint, "model": ex.model, "status": ex.status, "layer": ex.layer}
    for name, control in filters.items():
        assert (control.index, control.label, control.value) == (0, any_label, None), name
        control.index = 1
        assert control.value is not None and ex.filters()[name] == control.value, name
        control.value = None
        assert (control.index, control.label) == (0, any_label), name
        assert ex.filters()[name] is None, name
    assert len(ex.matching()) == len(har.exchanges)


def test_widgets_note_to_run_the_cell_in_both_languages(har):
    from IPython.core.formatters import DisplayFormatter

    assert DisplayFormatter().format(w.CaptureExplorer(har, remember=False))[0]["text/plain"] == (
        "Run this cell to use the widget."
    )
    i18n.set_language("zh-CN")
    for widget in (w.CaptureExplorer(har, remember=False), w.StrictVariantComparer(), w.WhatIfExplorer(har)):
        assert DisplayFormatter().format(widget)[0]["text/plain"] == "运行此单元格即可使用该控件。"


def test_whatif_explorer_labels_in_both_languages(har):
    en = w.WhatIfExplorer(har, remember=False)
    assert (en.mode.description, en.policies.description) == ("mode", "policies")
    i18n.set_language("zh-CN")
    zh = w.WhatIfExplorer(har, remember=False)
    assert (zh.mode.description, zh.policies.description) == ("沙箱模式", "策略")
    assert list(zh.mode.options) == list(dsh_runtime.MODES) and list(zh.policies.options) == list(POLICIES)


def test_strict_comparer_labels_in_both_languages():
    en = w.StrictVariantComparer(tool="bash", remember=False)
    assert en.tool.description == "tool" and en.left_adapter.description == "adapter"
    assert "<b>strict verdict for bash:</b>" in en.verdict.value
    i18n.set_language("zh-CN")
    zh_cmp = w.StrictVariantComparer(tool="bash", remember=False)
    assert zh_cmp.tool.description == "工具" and zh_cmp.left_adapter.description == "适配器"
    assert zh_cmp.left_api.options == en.left_api.options
    zh = zh_cmp.verdict.value
    assert "<b>bash 的 strict 结论：</b>" in zh and "按 strict 读取时必须填写：" in zh


# ---- what the panes render: Chinese with every upstream text verbatim, English unchanged -----------------

import html as _html  # noqa: E402
import re  # noqa: E402

from toolkit.knowledge import adapters  # noqa: E402
from toolkit.knowledge.messages import Message  # noqa: E402
from toolkit.knowledge.openai_strict import check  # noqa: E402
from toolkit.layers.strict import strict_verdict  # noqa: E402

# three or more Latin words separated by single spaces: an English sentence (a list of field names is
# joined by ", ", an identifier is one token: danger-full-access, compat.supportsStrictMode)
_ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){2,}")
# proper names the panes show as they are (an adapter's name, e.g. "Vercel AI SDK")
_NAMES = tuple(p.name for p in adapters.PROFILES.values())


def _visible(fragment: str, upstream=()) -> str:
    """What a reader sees of the toolkit's words: tags, code spans, schemas (<pre>), DSH's tool
    descriptions (<details>), table cells (captured data) and the given upstream texts removed."""
    text = re.sub(
        r"<style>.*?</style>|<pre.*?</pre>|<code>.*?</code>|<details>.*?</details>|<td>.*?</td>",
        " ",
        fragment,
        flags=re.S,
    )
    text = re.sub(r'title="([^"]*)"', lambda m: ">" + m.group(1) + "<", text)  # a mark's title is read too
    text = _html.unescape(re.sub(r"<[^>]+>", " ", text))
    for verbatim in sorted({str(u) for u in upstream if u} | set(_NAMES), key=len, reverse=True):
        text = text.replace(verbatim, " ")
    return text


def _no_english(fragment: str, upstream=()) -> None:
    runs = _ENGLISH_RUN.findall(_visible(fragment, upstream))
    assert not runs, runs


def _params(value) -> list[str]:
    """The verbatim texts a toolkit Message carries (its parameters, recursively)."""
    if not isinstance(value, Message):
        return []
    out = []
    for p in [*value.params.values(), *getattr(value, "parts", ())]:
        out += _params(p) if isinstance(p, Message) else [str(p)]
    return out


def _tool(name: str) -> dict:
    import json

    har = json.loads((REPO / "data" / "dsh-before-fix" / "capture.har").read_text(encoding="utf-8"))
    body = json.loads(har["log"]["entries"][1]["request"]["postData"]["text"])
    return next(t for t in body["tools"] if t["name"] == name)


# the HTML before the panes were translated (captured from the code at 54580cc), for English byte-identity
_EN_SUMMARY = (
    '<div class="tk-summary"><b>left → right:</b> sent strict absent → false; read as strict by the gateway&#x27;s'
    " normalisation → non-strict; additionalProperties false → absent; no longer required: timeoutMs, workdir, "
    "run_in_background, sandbox_permissions, justification</div>"
)
_EN_LEFT_HEAD = (
    '<div class="tk-head">sent strict: <mark class="tk-changed" title="differs from the other side"><code>absent'
    '</code></mark> · read as: <mark class="tk-changed" title="differs from the other side">strict by the gateway'
    '&#x27;s normalisation</mark> · additionalProperties: <mark class="tk-changed" title="differs from the other '
    'side"><code>false</code></mark></div><div class="tk-head">must send: <mark class="tk-changed" title="differs'
    ' from the other side">every field; timeoutMs, workdir, run_in_background, sandbox_permissions, justification '
    "cannot be left out, and only the already-nullable may be null, so the model invents values (e.g. an empty "
    'string)</mark></div><div class="tk-head">required: command, description, timeoutMs, workdir, run_in_background,'
    " sandbox_permissions, justification · optional: none · nullable: none</div>"
)
_EN_ADAPTER_MUST = (
    '<div class="tk-head">must send: <mark class="tk-changed" title="differs from the other side">the schema as '
    "Vercel AI SDK sent it under strict true; OpenAI&#x27;s strict mode wants every property required and "
    "additionalProperties false (optional here: timeoutMs, workdir, run_in_background, sandbox_permissions, "
    "justification)</mark></div>"
)
_EN_VERDICT_OK = (
    '<div class="tk-verdict"><div class="tk-head"><b>strict verdict for read_image:</b> accepted by OpenAI strict '
    'as defined</div><div class="tk-head">must fill under a strict reading: none</div></div>'
)
_EN_WHATIF_HEAD = (
    '<div class="tk-head">mode <b>danger-full-access</b> (the session&#x27;s own mode) · DSH 0.1.1-rc.2 · '
    "policies: prune-schema, same-mode-noop, strip-non-widening, explicit-strict-false</div>"
)
_SIDES = [
    {},
    {"gateway": "pass-through"},
    {"gateway": "forces strict", "compat": "false"},
    {"api": "openai-completions", "pi_ai": "0.73.1"},
    {"pi_ai": "0.82.1", "compat": "true", "gateway": "forces strict"},
    {"adapter": "ai-sdk", "option": "true", "gateway": "pass-through"},
    {"adapter": "agents-sdk", "option": "false"},
    {"adapter": "litellm", "option": "true"},
]
_CONSTRAINED = {"type": "json_schema"}


def test_english_panes_are_byte_identical_to_before(session):
    from toolkit.layers.strict import all_keys_required

    cmp = w.StrictVariantComparer(tool="bash", remember=False)
    assert cmp.summary.value == _EN_SUMMARY
    assert _EN_LEFT_HEAD in cmp.left_pane.value
    ai_sdk = w.variant_view("bash", adapter="ai-sdk", api="responses", option="true", gateway="pass-through")
    assert (
        _EN_ADAPTER_MUST
        in w.diff_html(w.variant_view("bash", api="openai-responses", gateway="pass-through"), ai_sdk)[1]
    )
    tool = _tool("read_image")
    assert w.strict_variants.verdict_html(tool | {"parameters": all_keys_required(tool["parameters"])}) == (
        _EN_VERDICT_OK
    )
    assert _EN_WHATIF_HEAD in w.WhatIfExplorer(session, remember=False).table.value
    assert list(cmp.left_gateway.options) == list(w.GATEWAYS)  # plain values in English, as before


@pytest.fixture(scope="module")
def session():
    return toolkit.load_capture(REPO / "data" / "dsh-before-fix" / "session.jsonl.zstd")


@pytest.mark.parametrize("tool", ["bash", "pwsh", "write", "edit", "given", "constrained", "refused"])
def test_comparer_panes_in_chinese(tool):
    definition = {
        "given": _tool("bash"),
        "constrained": {**w.tool_definition("bash"), "constrainedSampling": _CONSTRAINED},
        "refused": {**w.tool_definition("bash"), "constrainedSampling": {**_CONSTRAINED, "strict": "require"}},
    }.get(tool, tool)
    i18n.set_language("zh-CN")
    seen = set()
    for left in _SIDES:
        for right in _SIDES[:3]:
            cmp = w.StrictVariantComparer(tool=definition, left=left, right=right, remember=False)
            lv, rv = cmp.views()
            upstream = [*_params(lv["must_send"]), *_params(rv["must_send"])]
            for value in (cmp.left_pane.value, cmp.right_pane.value, cmp.summary.value):
                _no_english(value, upstream)
                seen.add(_html.unescape(re.sub(r"<[^>]+>", " ", value)))
    text = " ".join(seen)
    assert "发送的 strict：" in text and "模型必须发送：" in text and "网关：" in text
    if tool == "refused":  # pi-ai's refusal, verbatim inside the translated sentence
        assert "pi-ai 在发送前拒绝（" in text and "requires JSON-schema constrained sampling" in text


def test_comparer_gateway_labels_translated_values_kept():
    i18n.set_language("zh-CN")
    cmp = w.StrictVariantComparer(tool="bash", remember=False)
    assert [v for _, v in cmp.left_gateway.options] == list(w.GATEWAYS)
    assert [lab for lab, _ in cmp.left_gateway.options] == ["透传", "缺省即按 strict 读取", "强制 strict"]
    assert cmp.value["left"]["gateway"] == "reads absent as strict"
    cmp.left_gateway.value = "forces strict"  # code sets the English value, the reader sees the label
    assert "网关：强制 strict" in cmp.left_pane.value
    given = w.StrictVariantComparer(tool=_tool("bash"), remember=False)
    assert given.tool.options[-1][0] == "bash（传入的定义）"


@pytest.mark.parametrize("tool", ["bash", "pwsh", "write", "edit", "recorded-bash", "recorded-read_image"])
def test_verdict_in_chinese_keeps_openai_and_dsh_texts(tool):
    definition = _tool(tool.split("-", 1)[1]) if tool.startswith("recorded-") else w.tool_definition(tool)
    i18n.set_language("zh-CN")
    html = w.strict_variants.verdict_html(definition)
    v = strict_verdict(definition)
    upstream = [x.message for x in v.violations] + [p for f in v.risky_fills for p in _params(f["why"])]
    _no_english(html, upstream)
    text = _html.unescape(html)
    found = check(definition["parameters"], name=definition["name"])
    if found:
        assert f"OpenAI strict 在 <code>{found[0].path}</code> 处返回 400" in text and found[0].message in text
    else:
        assert "按原定义即可通过 OpenAI strict 校验" in text
    for f in v.risky_fills:  # each fill's why in Chinese, DSH's text in it verbatim
        assert f["why"].render("zh-CN") in text and all(p in text for p in _params(f["why"]))
    if tool == "recorded-bash":
        assert dsh_runtime.EMPTY_JUSTIFICATION in text


@pytest.mark.parametrize("path", ["before-fix/capture.har", "dsh-before-fix/session.jsonl.zstd"])
def test_capture_explorer_panes_in_chinese(path):
    cap = toolkit.load_capture(REPO / "data" / path)
    i18n.set_language("zh-CN")
    ex = w.CaptureExplorer(cap, remember=False)
    _no_english(ex.count.value)
    assert "个交换中有" in ex.count.value
    assert ("出错", "error") in ex.status.options and ("无错误", "none") in ex.layer.options
    for xid in ex.exchange.options:
        html = w.detail_html(cap, xid[1])
        _no_english(html)
        assert ("<h5>工具调用</h5>" in html and "<th>调用 ID</th>" in html) or "无工具调用" in html
    _no_english(w.detail_html(cap, None))
    assert "未选择交换" in w.detail_html(cap, None)


def test_whatif_explorer_in_chinese(session):
    i18n.set_language("zh-CN")
    x = w.WhatIfExplorer(session, remember=False)
    en = w.whatif_table(session)
    html = x.table.value
    _no_english(html)
    assert "（会话自身的模式）" in html and "<th>基线结果</th>" in html
    for p in POLICIES:
        assert f"<th>{p}</th>" in html  # policy names as they are
    assert "可避免" in html and "still fails" not in html and "avoided" not in html
    for msg in en["baseline"].dropna():  # DSH's refusals verbatim
        assert msg in _html.unescape(html)
    x.mode.value = "read-only"
    _no_english(x.table.value)
    assert "假设推演：会话实际运行于 danger-full-access" in x.table.value
    x.policies.value = ()
    assert "策略：无" in x.table.value
