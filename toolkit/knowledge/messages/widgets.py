"""The notebook widgets' words: control labels, and every sentence, heading and note their panes show.

The values the controls hand to code (gateway names, compat words, adapters, apis, modes, policies)
are not here: only the labels shown for them. Upstream texts (OpenAI's error, DSH's refusals, pi-ai's
and the adapters' errors) and data are parameters, verbatim.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

_COLUMNS = {  # the tables' column headers: the frame's column name in English
    "name": "名称",
    "call_id": "调用 ID",
    "arguments_raw": "原始参数",
    "parse_error": "解析错误",
    "complete": "完整",
    "strict_state": "strict 状态",
    "required": "必填",
    "optional": "可选",
    "role": "角色",
    "item_type": "条目类型",
    "part_type": "片段类型",
    "media_type": "媒体类型",
    "byte_size": "字节数",
    "text_preview": "文本预览",
    "image_dropped": "图片被丢弃",
    "field": "字段",
    "value": "值",
    "kind": "类别",
    "message": "消息",
    "layer": "层",
    "rule_id": "规则 ID",
    "fix": "修复",
    "tool": "工具",
    "mode": "沙箱模式",
    "granted_mode": "授予的模式",
    "mode_source": "模式来源",
    "baseline": "基线结果",
    "baseline_stage": "基线阶段",
    "note": "备注",
}

MESSAGES: dict[str, dict[str, str]] = {
    "widget.endpoint": {"en": "endpoint", "zh-CN": "端点"},
    "widget.model": {"en": "model", "zh-CN": "模型"},
    "widget.status": {"en": "status", "zh-CN": "状态"},
    "widget.layer": {"en": "layer", "zh-CN": "层"},
    "widget.time": {"en": "time", "zh-CN": "时间"},
    "widget.exchanges": {"en": "exchanges", "zh-CN": "交换"},
    "widget.any": {"en": "any", "zh-CN": "全部"},
    "widget.no_times": {"en": "no times", "zh-CN": "无时间"},
    "widget.tool": {"en": "tool", "zh-CN": "工具"},
    "widget.mode": {"en": "mode", "zh-CN": "沙箱模式"},
    "widget.dsh": {"en": "DSH", "zh-CN": "DSH"},
    "widget.policies": {"en": "policies", "zh-CN": "策略"},
    "widget.left": {"en": "left", "zh-CN": "左"},
    "widget.right": {"en": "right", "zh-CN": "右"},
    "widget.left_to_right": {"en": "left → right:", "zh-CN": "左 → 右："},
    "widget.strict_verdict_for": {"en": "strict verdict for {tool}:", "zh-CN": "{tool} 的 strict 结论："},
    "widget.must_fill": {
        "en": "must fill under a strict reading: {fields}",
        "zh-CN": "按 strict 读取时必须填写：{fields}",
    },
    "widget.risky_fills": {"en": "risky fills:", "zh-CN": "有风险的填写："},
    "widget.side.adapter": {"en": "adapter", "zh-CN": "适配器"},
    "widget.side.api": {"en": "api", "zh-CN": "API"},
    "widget.side.compat": {"en": "compat", "zh-CN": "compat"},
    "widget.side.option": {"en": "option", "zh-CN": "选项"},
    "widget.side.gateway": {"en": "gateway", "zh-CN": "网关"},
    "widget.side.pi_ai": {"en": "pi-ai", "zh-CN": "pi-ai"},
    "widget.side.version": {"en": "version", "zh-CN": "版本"},
    # ---- shared
    "widget.none": {"en": "none", "zh-CN": "无"},
    # the plain-text stand-in a stored notebook shows for a widget until its cell runs (no widget state is stored)
    "widget.run_cell": {"en": "Run this cell to use the widget.", "zh-CN": "运行此单元格即可使用该控件。"},
    # ---- strict-variant comparer: the gateway choices' labels (the values stay the English names)
    "widget.gateway.pass-through": {"en": "pass-through", "zh-CN": "透传"},
    "widget.gateway.reads absent as strict": {"en": "reads absent as strict", "zh-CN": "缺省即按 strict 读取"},
    "widget.gateway.forces strict": {"en": "forces strict", "zh-CN": "强制 strict"},
    "widget.given_tool": {"en": "{name} (given)", "zh-CN": "{name}（传入的定义）"},
    # how the gateway reads what was sent (a view's read_as)
    "widget.read.non_strict": {"en": "non-strict", "zh-CN": "非 strict"},
    "widget.read.normalised": {
        "en": "strict by the gateway's normalisation",
        "zh-CN": "strict（网关规范化所致）",
    },
    "widget.read.transformed": {"en": "strict (pi-ai's transform)", "zh-CN": "strict（pi-ai 的转换）"},
    "widget.read.not_sent": {"en": "not sent", "zh-CN": "未发送"},
    "widget.read.as_sent": {"en": "strict (as the adapter sent it)", "zh-CN": "strict（按适配器发送的原样）"},
    "widget.state.not_sent": {"en": "not sent", "zh-CN": "未发送"},
    # what the model must send
    "widget.refuses": {
        "en": "{client} refuses before sending ({error})",
        "zh-CN": "{client} 在发送前拒绝（{error}）",
    },
    "widget.must.nothing": {"en": "nothing: {why}", "zh-CN": "无：{why}"},
    "widget.must.as_sent": {
        "en": "the schema as {adapter} sent it under strict true; OpenAI's strict mode wants every property "
        "required and additionalProperties false (optional here: {optional})",
        "zh-CN": "按 {adapter} 在 strict true 下发送的原样 schema；OpenAI 的 strict 模式要求所有属性都必填、"
        "additionalProperties 为 false（此处的可选字段：{optional}）",
    },
    # a side's pane
    "widget.route.pi_ai": {
        "en": "compat.supportsStrictMode {compat} · gateway {gateway} · pi-ai {pi_ai}",
        "zh-CN": "compat.supportsStrictMode {compat} · 网关：{gateway} · pi-ai {pi_ai}",
    },
    "widget.route.adapter": {
        "en": "{adapter} {version} · {option} · gateway {gateway}",
        "zh-CN": "{adapter} {version} · {option} · 网关：{gateway}",
    },
    "widget.head.state": {
        "en": "sent strict: {sent} · read as: {read} · additionalProperties: {ap}",
        "zh-CN": "发送的 strict：{sent} · 网关读作：{read} · additionalProperties：{ap}",
    },
    "widget.head.must_send": {"en": "must send: {must}", "zh-CN": "模型必须发送：{must}"},
    "widget.head.fields": {
        "en": "required: {required} · optional: {optional} · nullable: {nullable}",
        "zh-CN": "必填：{required} · 可选：{optional} · 可为 null：{nullable}",
    },
    "widget.head.description": {"en": "description", "zh-CN": "描述"},
    "widget.head.no_description": {"en": "description: none", "zh-CN": "描述：无"},
    "widget.no_schema": {"en": "no schema reaches the model", "zh-CN": "没有 schema 送达模型"},
    "widget.mark.differs": {"en": "differs from the other side", "zh-CN": "与另一侧不同"},
    "widget.mark.required_added": {"en": "required added", "zh-CN": "新增必填"},
    "widget.mark.became_nullable": {"en": "became nullable", "zh-CN": "变为可 null"},
    "widget.mark.required_this_side": {"en": "required on this side only", "zh-CN": "仅这一侧必填"},
    "widget.mark.nullable_this_side": {"en": "nullable on this side only", "zh-CN": "仅这一侧可为 null"},
    "widget.mark.ap_differs": {"en": "additionalProperties differs", "zh-CN": "additionalProperties 不同"},
    # the one-line summary of what changes from left to right
    "widget.summary.sent_strict": {"en": "sent strict", "zh-CN": "发送的 strict"},
    "widget.summary.read_as": {"en": "read as", "zh-CN": "网关读作"},
    "widget.summary.additional_properties": {"en": "additionalProperties", "zh-CN": "additionalProperties"},
    "widget.summary.change": {"en": "{label} {left} → {right}", "zh-CN": "{label}：{left} → {right}"},
    "widget.summary.required_added": {"en": "now required", "zh-CN": "变为必填"},
    "widget.summary.required_removed": {"en": "no longer required", "zh-CN": "不再必填"},
    "widget.summary.became_nullable": {"en": "now nullable", "zh-CN": "变为可 null"},
    "widget.summary.no_longer_nullable": {"en": "no longer nullable", "zh-CN": "不再可为 null"},
    "widget.summary.properties_added": {"en": "added", "zh-CN": "新增属性"},
    "widget.summary.properties_removed": {"en": "removed", "zh-CN": "移除属性"},
    "widget.summary.names": {"en": "{label}: {names}", "zh-CN": "{label}：{names}"},
    "widget.summary.sep": {"en": "; ", "zh-CN": "；"},
    "widget.summary.same": {
        "en": "no difference in what the model must send",
        "zh-CN": "模型必须发送的内容没有差别",
    },
    # the strict verdict
    "widget.verdict.accepted": {
        "en": "accepted by OpenAI strict as defined",
        "zh-CN": "按原定义即可通过 OpenAI strict 校验",
    },
    "widget.verdict.rejected": {
        "en": "OpenAI strict answers 400 at {path}{more}: {message}",
        "zh-CN": "OpenAI strict 在 {path} 处返回 400{more}：{message}",
    },
    "widget.verdict.more": {"en": " (and {n} more)", "zh-CN": "（另有 {n} 处）"},
    # ---- capture explorer
    "widget.status.error": {"en": "error", "zh-CN": "出错"},
    "widget.layer.none": {"en": "none", "zh-CN": "无错误"},
    "widget.count": {"en": "{n} of {total} exchanges match", "zh-CN": "{total} 个交换中有 {n} 个匹配"},
    "widget.no_exchange": {"en": "no exchange selected", "zh-CN": "未选择交换"},
    "widget.part.errors": {"en": "errors", "zh-CN": "错误"},
    "widget.part.calls": {"en": "calls", "zh-CN": "工具调用"},
    "widget.part.tools": {"en": "tools", "zh-CN": "工具定义"},
    "widget.part.inputs": {"en": "inputs", "zh-CN": "输入"},
    "widget.part.exchange": {"en": "exchange", "zh-CN": "交换"},
    "widget.no_part.errors": {"en": "no errors", "zh-CN": "无错误"},
    "widget.no_part.calls": {"en": "no calls", "zh-CN": "无工具调用"},
    "widget.no_part.tools": {"en": "no tools", "zh-CN": "无工具定义"},
    "widget.no_part.inputs": {"en": "no inputs", "zh-CN": "无输入"},
    "widget.no_part.exchange": {"en": "no exchange", "zh-CN": "无交换"},
    # ---- execution what-if
    "widget.whatif.head": {
        "en": "mode {mode} ({where}) · DSH {dsh} · policies: {policies}",
        "zh-CN": "沙箱模式 {mode}（{where}）· DSH {dsh} · 策略：{policies}",
    },
    "widget.whatif.given": {"en": "given", "zh-CN": "传入的模式"},
    "widget.whatif.default": {"en": "default", "zh-CN": "默认"},
    "widget.whatif.chosen": {"en": "chosen", "zh-CN": "手动选择"},
    "widget.whatif.own": {"en": "the session's own mode", "zh-CN": "会话自身的模式"},
    "widget.whatif.what_if": {
        "en": "what-if: the session ran in {mode}",
        "zh-CN": "假设推演：会话实际运行于 {mode}",
    },
    "widget.whatif.no_calls": {"en": "no tool calls in this capture", "zh-CN": "此抓包中没有工具调用"},
    "widget.whatif.runs": {"en": "runs", "zh-CN": "可运行"},
    **{f"widget.col.{name}": {"en": name, "zh-CN": zh} for name, zh in _COLUMNS.items()},
}
