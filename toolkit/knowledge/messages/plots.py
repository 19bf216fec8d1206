"""The plots' titles, axis labels, legends and annotations (``toolkit.present.plots``).

Column names (``endpoint``, ``api``, ``started_at``), ``strict`` states, tool and model names and numbers are
data: they are parameters, shown as they are in every language. A Chinese text added here needs its
glyphs in the bundled font: ``make font`` (tests/test_plots_zh.py names any that are missing).
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    # a legend entry: a category and how many it holds
    "plots.count": {"en": "{label} ({n})", "zh-CN": "{label}（{n}）"},
    "plots.no_exchanges": {"en": "no exchanges", "zh-CN": "无交换"},
    # timeline
    "plots.timeline.title": {
        "en": "Exchanges over time by {by} ({n} exchanges)",
        "zh-CN": "各 {by} 的交换时间线（{n} 个交换）",
    },
    "plots.timeline.xlabel": {"en": "started_at (UTC)", "zh-CN": "started_at（UTC）"},
    "plots.timeline.no_start": {"en": "no exchange has a start time", "zh-CN": "所有交换都没有开始时间"},
    "plots.timeline.outcomes": {"en": "outcome (colour)", "zh-CN": "结果（颜色）"},
    "plots.timeline.layers": {"en": "error layer (marker)", "zh-CN": "错误层（标记）"},
    # an exchange's outcome: its terminal state, or no response
    "plots.outcome.completed": {"en": "completed", "zh-CN": "完成"},
    "plots.outcome.incomplete": {"en": "incomplete", "zh-CN": "未完成"},
    "plots.outcome.failed": {"en": "failed", "zh-CN": "失败"},
    "plots.outcome.cut": {"en": "cut", "zh-CN": "中断"},
    "plots.outcome.http-error": {"en": "http-error", "zh-CN": "HTTP 错误"},
    "plots.outcome.no response": {"en": "no response", "zh-CN": "无响应"},
    # triage's error layers (not the four layers of the verdict, ``layer.*``)
    "plots.error_layer.none": {"en": "none", "zh-CN": "无错误"},
    "plots.error_layer.config-capability": {"en": "config-capability", "zh-CN": "配置/能力"},
    "plots.error_layer.serialization-protocol": {"en": "serialization-protocol", "zh-CN": "序列化/协议"},
    "plots.error_layer.runtime-policy": {"en": "runtime-policy", "zh-CN": "运行时策略"},
    "plots.error_layer.transport-gateway": {"en": "transport-gateway", "zh-CN": "传输/网关"},
    "plots.error_layer.unknown": {"en": "unknown", "zh-CN": "未知"},
    # errors_by_layer
    "plots.errors.title": {
        "en": "Errors by layer per {by} ({n} errors)",
        "zh-CN": "各 {by} 按层统计的错误（{n} 个错误）",
    },
    "plots.errors.xlabel": {"en": "errors", "zh-CN": "错误数"},
    "plots.errors.none_one": {"en": "no errors in {n} exchange", "zh-CN": "{n} 个交换中没有错误"},
    "plots.errors.none_many": {"en": "no errors in {n} exchanges", "zh-CN": "{n} 个交换中没有错误"},
    "plots.errors.legend": {"en": "layer", "zh-CN": "层"},
    # strict_matrix
    "plots.strict.title": {
        "en": "Tool definitions by strict state per {rows} and {cols} ({n} definitions)",
        "zh-CN": "按 {rows} 和 {cols} 统计工具定义的 strict 状态（{n} 个定义）",
    },
    "plots.strict.none": {"en": "no tool definitions", "zh-CN": "无工具定义"},
    "plots.strict.no_tools": {"en": "no tools", "zh-CN": "无工具"},
    "plots.strict.legend": {"en": "strict state", "zh-CN": "strict 状态"},
    "plots.strict.bar": {"en": "bar: share per cell", "zh-CN": "色条：各格内占比"},
    # summary_figure
    "plots.summary.title": {
        "en": "Capture summary: {exchanges} exchanges, {tools} tool definitions",
        "zh-CN": "抓包概览：{exchanges} 个交换，{tools} 个工具定义",
    },
    # the exchanges an HTTP capture and a DSH session log of the same run both hold (plots.recorded_twice)
    "plots.summary.merged": {
        "en": "{n} exchanges of {source} are {kept}'s (same call ids): each counted once, as sent on the wire",
        "zh-CN": "{source} 中的 {n} 个交换即 {kept} 中的交换（调用 ID 相同）：各只计一次，按线上发送的内容",
    },
    "plots.summary.merged_one": {
        "en": "{n} exchange of {source} is {kept}'s (same call ids): counted once, as sent on the wire",
        "zh-CN": "{source} 中的 {n} 个交换即 {kept} 中的交换（调用 ID 相同）：只计一次，按线上发送的内容",
    },
    # experiment_rates
    "plots.experiment.title": {
        "en": "Calls DSH would refuse or accept, per variant ({n} calls, 95% Wilson intervals)",
        "zh-CN": "各变体中 DSH 会拒绝或接受的调用（共 {n} 次调用，95% Wilson 区间）",
    },
    "plots.experiment.xlabel": {"en": "share of the variant's calls", "zh-CN": "占该变体调用的比例"},
    "plots.experiment.none": {"en": "no variants", "zh-CN": "无变体"},
    "plots.experiment.no_calls": {"en": "no calls", "zh-CN": "无调用"},
    "plots.experiment.rate.refused": {"en": "{k} of {n} refused", "zh-CN": "{n} 次中 {k} 次被拒"},
    "plots.experiment.rate.accepted": {"en": "{k} of {n} accepted", "zh-CN": "{n} 次中 {k} 次被接受"},
    "plots.experiment.legend": {"en": "DSH's verdict", "zh-CN": "DSH 的判定"},
}
