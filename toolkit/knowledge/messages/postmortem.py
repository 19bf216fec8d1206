"""The postmortem template: its headings, table columns and the sentences its code writes.

The English column labels are the column names the template showed before it was translated, so the
English write-up is unchanged. Identifiers shown as data (layer names, policies, modes, rule ids, entry
points) and every upstream text stay as they are in both languages.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    "postmortem.title": {
        "en": "Tool calls refused after the gateway migration",
        "zh-CN": "网关迁移后工具调用被拒绝",
    },
    # the timeline
    "postmortem.timeline.request": {"en": "{api} request to {model}", "zh-CN": "发往 {model} 的 {api} 请求"},
    "postmortem.timeline.tool_result": {"en": "tool result for {call_id}", "zh-CN": "{call_id} 的工具结果"},
    # column labels of the tables the template shows
    "postmortem.col.time": {"en": "time", "zh-CN": "时间"},
    "postmortem.col.source": {"en": "source", "zh-CN": "来源"},
    "postmortem.col.what": {"en": "what", "zh-CN": "事件"},
    "postmortem.col.outcome": {"en": "outcome", "zh-CN": "结果"},
    "postmortem.col.calls": {"en": "calls", "zh-CN": "工具调用"},
    "postmortem.col.severity": {"en": "severity", "zh-CN": "严重程度"},
    "postmortem.col.layer": {"en": "layer", "zh-CN": "层"},
    "postmortem.col.line": {"en": "line", "zh-CN": "行号"},
    "postmortem.col.message": {"en": "message", "zh-CN": "信息"},
    "postmortem.col.dsh_message": {"en": "dsh_message", "zh-CN": "DSH 原文"},
    "postmortem.col.call_id": {"en": "call_id", "zh-CN": "调用 ID"},
    "postmortem.col.tool": {"en": "tool", "zh-CN": "工具"},
    "postmortem.col.strict_state": {"en": "strict_state", "zh-CN": "strict 状态"},
    "postmortem.col.arguments": {"en": "arguments", "zh-CN": "参数"},
    "postmortem.col.exchange_id": {"en": "exchange_id", "zh-CN": "交换 ID"},
    "postmortem.col.declared_input": {"en": "declared_input", "zh-CN": "声明的输入"},
    "postmortem.col.images_sent": {"en": "images_sent", "zh-CN": "发送的图片"},
    "postmortem.col.placeholder": {"en": "placeholder", "zh-CN": "占位符"},
    "postmortem.col.verdict": {"en": "verdict", "zh-CN": "结论"},
    "postmortem.col.entry_point": {"en": "entry point", "zh-CN": "入口"},
    "postmortem.col.dsh_text": {"en": "DSH's text", "zh-CN": "DSH 原文"},
    "postmortem.col.mode": {"en": "mode", "zh-CN": "沙箱模式"},
    "postmortem.col.granted_mode": {"en": "granted_mode", "zh-CN": "授予的模式"},
    "postmortem.col.agrees": {"en": "agrees", "zh-CN": "与记录一致"},
    "postmortem.col.kind": {"en": "kind", "zh-CN": "类型"},
    "postmortem.col.rule_id": {"en": "rule_id", "zh-CN": "规则 ID"},
    "postmortem.col.field": {"en": "field", "zh-CN": "字段"},
    "postmortem.col.question": {"en": "question", "zh-CN": "问题"},
    "postmortem.col.answer": {"en": "answer", "zh-CN": "回答"},
    "postmortem.col.actor": {"en": "actor", "zh-CN": "责任方"},
    "postmortem.col.settled": {"en": "settled", "zh-CN": "已确定"},
    "postmortem.col.policy": {"en": "policy", "zh-CN": "策略"},
    # the fixes and the experiment
    "postmortem.no_fix": {"en": "The settings need no change.", "zh-CN": "配置无需修改。"},
    "postmortem.no_experiment": {
        "en": "No experiment was named (EXPERIMENT = None).",
        "zh-CN": "未指定实验（EXPERIMENT = None）。",
    },
}
