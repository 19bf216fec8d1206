"""The report's chrome: titles, headings, column names, the inputs line."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    "report.title": {
        "en": "Agent tool-call contract: four-layer verdict",
        "zh-CN": "智能体工具调用契约：四层结论",
    },
    "report.text.head": {"en": "agent-contract verify: {status}", "zh-CN": "agent-contract verify：{status}"},
    "report.all_pass": {"en": "all layers pass", "zh-CN": "各层均通过"},
    "report.text.fail": {"en": "FAIL", "zh-CN": "失败"},
    "report.failing": {"en": "failing", "zh-CN": "未通过"},
    "report.partial_pass": {
        "en": "the checked layers pass ({checked}); not checked: {unchecked}",
        "zh-CN": "已检查的各层均无问题（{checked}）；未检查：{unchecked}",
    },
    "report.inconclusive": {
        "en": "INCONCLUSIVE: no layer could be checked",
        "zh-CN": "无定论：没有任何一层可以检查",
    },
    "report.not_checked": {"en": "Not checked", "zh-CN": "未检查"},
    "report.needs": {"en": "needs: {needs}", "zh-CN": "需要：{needs}"},
    "report.needs_flags": {"en": "needs: {needs} ({flags})", "zh-CN": "需要：{needs}（{flags}）"},
    "report.list_sep": {"en": ", ", "zh-CN": "、"},
    "report.dsh_says": {"en": "DSH says ({entry}): {dsh_text}", "zh-CN": "DSH 原文（{entry}）：{dsh_text}"},
    "report.fix": {"en": "fix", "zh-CN": "修复"},
    "report.text.fix": {"en": "    fix: {fix}", "zh-CN": "    修复：{fix}"},
    "report.text.provenance": {
        "en": "WHO CHANGED WHAT (provenance; ? = not settled by the evidence)",
        "zh-CN": "谁改了什么（溯源；? = 证据不足以确定）",
    },
    "report.text.qa": {"en": "{q}: {answer}", "zh-CN": "{q}：{answer}"},
    "report.text.provenance_folded": {
        "en": "WHO CHANGED WHAT (provenance: the settled answers, then each open question once; ? = not settled "
        "by the evidence; --detail lists every field)",
        "zh-CN": "谁改了什么（溯源：先列已确定的回答，再把每个未确定的问题各列一行；? = 证据不足以确定；--detail 列出每个字段）",
    },
    "report.text.root_causes": {
        "en": "ROOT CAUSES (the failing layers, in the order a request meets them)",
        "zh-CN": "根本原因（失败的各层，按请求经过的顺序）",
    },
    "report.root_causes": {
        "en": "Root causes (the failing layers, in the order a request meets them)",
        "zh-CN": "根本原因（失败的各层，按请求经过的顺序）",
    },
    "report.fields_more": {"en": "{fields} and {n} more", "zh-CN": "{fields} 等另外 {n} 个"},
    "report.unsettled_for_one": {"en": "{n} field ({fields})", "zh-CN": "{n} 个字段（{fields}）"},
    "report.unsettled_for": {"en": "{n} fields ({fields})", "zh-CN": "{n} 个字段（{fields}）"},
    "report.provenance_all": {
        "en": "Every field's answers ({n} rows)",
        "zh-CN": "每个字段的全部回答（{n} 行）",
    },
    "report.text.experiment": {"en": "experiment: {sentence}\n", "zh-CN": "实验：{sentence}\n"},
    "report.inputs.settings": {"en": "settings {path}", "zh-CN": "settings {path}"},
    "report.inputs.gateway": {"en": "gateway config {path}", "zh-CN": "网关配置 {path}"},
    "report.inputs.captures": {"en": "captures {paths}", "zh-CN": "抓包 {paths}"},
    "report.inputs.sessions": {"en": "sessions {paths}", "zh-CN": "会话 {paths}"},
    "report.inputs.mode": {"en": "mode {mode}; DSH {dsh}", "zh-CN": "沙箱模式 {mode}；DSH {dsh}"},
    "report.inputs.none": {"en": "(none)", "zh-CN": "（无）"},
    "report.inputs.sessions_only": {"en": "(from the sessions only)", "zh-CN": "（仅取自会话）"},
    "report.markdown.result": {"en": "**Result: {status}**", "zh-CN": "**结果：{status}**"},
    "report.markdown.inputs": {"en": "Inputs: {inputs}", "zh-CN": "输入：{inputs}"},
    "report.col.layer": {"en": "layer", "zh-CN": "层"},
    "report.col.verdict": {"en": "verdict", "zh-CN": "结论"},
    "report.col.summary": {"en": "summary", "zh-CN": "概要"},
    "report.col.evidence_says": {"en": "what the evidence says", "zh-CN": "证据表明"},
    "report.col.fix": {"en": "fix", "zh-CN": "修复"},
    "report.col.field": {"en": "field", "zh-CN": "字段"},
    "report.col.question": {"en": "question", "zh-CN": "问题"},
    "report.col.answer": {"en": "answer", "zh-CN": "回答"},
    "report.col.settled": {"en": "settled", "zh-CN": "已确定"},
    "report.col.evidence": {"en": "evidence", "zh-CN": "证据"},
    "report.yes": {"en": "yes", "zh-CN": "是"},
    "report.no": {"en": "no", "zh-CN": "否"},
    "report.markdown.dsh_by_entry": {"en": "**What DSH says, by entry point:**", "zh-CN": "**DSH 的原文（按入口）：**"},
    "report.markdown.fix": {"en": "**Fix:**", "zh-CN": "**修复：**"},
    "report.provenance": {"en": "Who changed what", "zh-CN": "谁改了什么"},
    "report.html.captures": {"en": "The captures", "zh-CN": "抓包"},
    "report.html.figure_alt": {
        "en": "timeline, errors by layer and strict states",
        "zh-CN": "时间线、按层的错误与 strict 状态",
    },
    "report.html.all_pass": {"en": "All layers pass.", "zh-CN": "各层均通过。"},
    "report.html.some_fail": {"en": "At least one layer fails.", "zh-CN": "至少有一层未通过。"},
    "report.html.more": {"en": "{n} more", "zh-CN": "另外 {n} 条"},
    "report.html.layers": {"en": "The four layers", "zh-CN": "四个层"},
    "report.html.partial_pass": {
        "en": "The checked layers pass ({checked}); not checked: {unchecked}.",
        "zh-CN": "已检查的各层均无问题（{checked}）；未检查：{unchecked}。",
    },
    "report.html.inconclusive": {
        "en": "Inconclusive: no layer could be checked.",
        "zh-CN": "无定论：没有任何一层可以检查。",
    },
    "report.figure_missing": {
        "en": "The summary figure is left out: it needs matplotlib ({extra}).",
        "zh-CN": "未包含汇总图：需要 matplotlib（{extra}）。",
    },
}
