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
