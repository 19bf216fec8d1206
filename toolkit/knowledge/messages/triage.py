"""Triage's own sentences (``toolkit.analysis.triage``): what ``classify`` says when no rule, or more than
one rule, could have produced a message.

A rule's ``explain`` and ``fix`` are data of the rule table (``triage_rules/``), and the error texts
and rule ids are shown as they are in every language.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    "triage.unknown": {
        "en": "no triage rule matches this error; the layer is not guessed",
        "zh-CN": "没有归类规则与这条错误匹配；不猜测它所在的层",
    },
    "triage.candidates": {
        "en": "{n} rules could have produced this text ({rules}); the text does not say which: each candidate "
        "names its rule and the full text it fits",
        "zh-CN": "这段文字可能出自 {n} 条规则（{rules}）；仅凭这段文字无法确定是哪一条：每个候选都给出它的规则和它所符合的完整文本",
    },
    # the coverage table of the triage corpus (toolkit.analysis.triage_coverage)
    "triage.coverage.intro": {
        "en": "There are {rules} packaged rules, {generic} of them generic fallbacks. Measured on the triage corpus "
        "(`tests/corpus/triage/`): {texts} real error texts from {stacks} stacks in {families} families, {held} of "
        "them held out (from sources the rules were not written from). Each cell: all texts (held-out texts).",
        "zh-CN": "共有 {rules} 条内置规则，其中 {generic} 条为通用兜底规则。在归类语料（`tests/corpus/triage/`）上测得："
        "{families} 个家族、{stacks} 个技术栈的 {texts} 条真实错误文本，其中 {held} 条为留出文本（来自编写规则时未参考的来源）。"
        "每格：全部文本（留出文本）。",
    },
    "triage.coverage.family": {"en": "Family", "zh-CN": "家族"},
    "triage.coverage.texts": {"en": "Texts", "zh-CN": "文本数"},
    "triage.coverage.specific": {"en": "Specific rule, right layer", "zh-CN": "具体规则，层正确"},
    "triage.coverage.layer": {"en": "Right layer only", "zh-CN": "仅层正确"},
    "triage.coverage.generic": {"en": "Generic fallback", "zh-CN": "通用兜底规则"},
    "triage.coverage.unknown": {"en": "Unknown", "zh-CN": "未知"},
    "triage.coverage.wrong": {"en": "Wrong layer", "zh-CN": "层错误"},
    "triage.coverage.unknown_share": {"en": "Left unknown", "zh-CN": "未知占比"},
    "triage.coverage.total": {"en": "all families", "zh-CN": "全部家族"},
}
