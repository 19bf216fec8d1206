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
}
