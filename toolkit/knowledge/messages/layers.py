"""The layers' names, verdict and severity words, and the sentences ``toolkit.analysis.verify`` writes for each layer."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    "layer.config": {"en": "config", "zh-CN": "配置"},
    "layer.serialization": {"en": "serialization", "zh-CN": "序列化"},
    "layer.capability": {"en": "capability", "zh-CN": "能力"},
    "layer.execution": {"en": "execution", "zh-CN": "执行"},
    "verdict.pass": {"en": "pass", "zh-CN": "通过"},
    "verdict.warn": {"en": "warn", "zh-CN": "警告"},
    "verdict.fail": {"en": "fail", "zh-CN": "失败"},
    "verdict.no evidence": {"en": "no evidence", "zh-CN": "无证据"},
    "severity.error": {"en": "error", "zh-CN": "错误"},
    "severity.warning": {"en": "warning", "zh-CN": "警告"},
    "severity.info": {"en": "info", "zh-CN": "提示"},
    # ---- verify: the layers' own sentences ------------------------------------------------------
    "verify.finding": {"en": "{severity} ({where}): {message}", "zh-CN": "{severity}（{where}）：{message}"},
    "verify.finding_dsh": {
        "en": "{severity} ({where}): {message} — DSH: {dsh_text}",
        "zh-CN": "{severity}（{where}）：{message} — DSH：{dsh_text}",
    },
    "verify.where.line": {"en": "line {line}", "zh-CN": "第 {line} 行"},
    "verify.where.file_line": {"en": "{file} line {line}", "zh-CN": "{file} 第 {line} 行"},
    "verify.config.no_settings": {"en": "no settings file given", "zh-CN": "未提供 settings 文件"},
    "verify.config.no_settings_served": {
        "en": "no settings file given; the gateway ({gateway}) serves {models}",
        "zh-CN": "未提供 settings 文件；网关（{gateway}）提供 {models}",
    },
    "verify.config.clean": {
        "en": "{routes} routes and {models} models resolve cleanly",
        "zh-CN": "{routes} 条路由和 {models} 个模型均可正常解析",
    },
    "verify.config.clean_served": {
        "en": "{routes} routes and {models} models resolve cleanly; the gateway ({gateway}) serves {served}",
        "zh-CN": "{routes} 条路由和 {models} 个模型均可正常解析；网关（{gateway}）提供 {served}",
    },
    "verify.config.no_model": {"en": "no model", "zh-CN": "无模型"},
    "verify.config.finding_one": {"en": "{n} configuration finding", "zh-CN": "{n} 项配置问题"},
    "verify.config.findings": {"en": "{n} configuration findings", "zh-CN": "{n} 项配置问题"},
    "verify.serialization.on_wire": {"en": "tools on the wire: {states}", "zh-CN": "实际发送的工具：{states}"},
    "verify.serialization.filled": {
        "en": "{n} calls filled every optional field (read as strict), e.g. {tool} {call_id}: {arguments}",
        "zh-CN": "{n} 次工具调用填写了所有可选字段（按 strict 读取），例如 {tool} {call_id}：{arguments}",
    },
    "verify.serialization.read_as_strict": {
        "en": "`strict` was {states} and the model filled every optional field: the gateway read the tools as strict",
        "zh-CN": "`strict` 为 {states}，且模型填写了所有可选字段：网关按 strict 读取了这些工具",
    },
    "verify.serialization.fix_strict_false": {
        "en": "send `strict: false` explicitly (compat.supportsStrictMode: true)",
        "zh-CN": "显式发送 `strict: false`（compat.supportsStrictMode: true）",
    },
    "verify.serialization.no_tools": {"en": "no HTTP capture with tools", "zh-CN": "没有带工具的 HTTP 抓包"},
    "verify.serialization.as_configured": {"en": "tools went out as configured", "zh-CN": "工具按配置发出"},
    "verify.serialization.left_to_gateway": {
        "en": "`strict` is left to the gateway on a Responses route",
        "zh-CN": "在 Responses 路由上，`strict` 交由网关决定",
    },
    "verify.strict.line": {"en": "strict reading: {line}", "zh-CN": "strict 读取：{line}"},
    "verify.strict.first": {
        "en": "first: {rule} at {path} of {tool}: {message}",
        "zh-CN": "首个：{tool} 的 {path} 处 {rule}：{message}",
    },
    "verify.strict.refused": {
        "en": "{n} of {total} tools would be refused by OpenAI strict as sent ({first})",
        "zh-CN": "按发送内容，{total} 个工具中有 {n} 个会被 OpenAI strict 拒绝（{first}）",
    },
    "verify.strict.none_refused": {
        "en": "{n} of {total} tools are read as strict as sent, none refused",
        "zh-CN": "按发送内容，{total} 个工具中有 {n} 个按 strict 读取，无一被拒",
    },
    "verify.strict.none_refused_forced": {
        "en": "{n} of {total} tools are read as strict as sent, none refused; if sent strict, {forced} would be "
        "refused ({first})",
        "zh-CN": "按发送内容，{total} 个工具中有 {n} 个按 strict 读取，无一被拒；若以 strict 发送，{forced} 个会被拒绝（{first}）",
    },
    "verify.strict.called": {
        "en": "strict reading of {tool} (called): the model must fill {fields}; risky fills: {fills}",
        "zh-CN": "{tool}（已调用）的 strict 读取：模型必须填写 {fields}；有风险的填写：{fills}",
    },
    "verify.capability.requests": {"en": "requests with images: {counts}", "zh-CN": "带图片的请求：{counts}"},
    "verify.capability.not_reached": {
        "en": "{bad} of {n} image requests did not reach a model that takes them",
        "zh-CN": "{n} 个图片请求中有 {bad} 个未到达支持图片的模型",
    },
    "verify.capability.fix_declare": {
        "en": "declare `input: [text, image]` only where the backend accepts images",
        "zh-CN": "仅在后端接受图片时声明 `input: [text, image]`",
    },
    "verify.capability.all_accepted": {
        "en": "{n} image requests, all declared and accepted",
        "zh-CN": "{n} 个图片请求，均已声明并被接受",
    },
    "verify.capability.no_image": {"en": "no request carried an image", "zh-CN": "没有请求携带图片"},
    "verify.capability.undeclared": {"en": "image input is not declared", "zh-CN": "未声明图片输入"},
    "verify.capability.disagree": {
        "en": "DSH's settings and the gateway config disagree",
        "zh-CN": "DSH 的 settings 与网关配置不一致",
    },
    "verify.execution.none": {"en": "no tool call could be judged", "zh-CN": "没有可判定的工具调用"},
    "verify.execution.none_mode": {
        "en": "no tool call could be judged (pass mode= for HTTP captures)",
        "zh-CN": "没有可判定的工具调用（HTTP 抓包请传入 mode=）",
    },
    "verify.execution.judged": {
        "en": "{n} calls judged under DSH {dsh} in {modes}{seen}; {failed} refused",
        "zh-CN": "按 DSH {dsh} 在 {modes} 下判定了 {n} 次调用{seen}；{failed} 次被拒",
    },
    "verify.execution.seen": {
        "en": " (seen {n} times across the captures)",
        "zh-CN": "（在各抓包中共出现 {n} 次）",
    },
    "verify.execution.granted_one": {
        "en": "{n} approved escalation granted {modes}",
        "zh-CN": "{n} 次获批的提权授予了 {modes}",
    },
    "verify.execution.granted": {
        "en": "{n} approved escalations granted {modes}",
        "zh-CN": "{n} 次获批的提权授予了 {modes}",
    },
    "verify.execution.disagree": {
        "en": "{n} verdicts differ from DSH's recorded results",
        "zh-CN": "{n} 个结论与 DSH 记录的结果不同",
    },
    "verify.execution.all_run": {"en": "all {n} calls run", "zh-CN": "全部 {n} 次调用均可执行"},
    "verify.execution.avoids": {
        "en": "{policy}: avoids {avoided} of {n} refusals",
        "zh-CN": "{policy}：可避免 {n} 次拒绝中的 {avoided} 次",
    },
    "verify.execution.whatif_unavailable": {
        "en": "what-if policies unavailable: {error}",
        "zh-CN": "无法计算 what-if 策略：{error}",
    },
    "verify.execution.refused": {
        "en": "DSH refused {failed} of {n} calls",
        "zh-CN": "DSH 拒绝了 {n} 次调用中的 {failed} 次",
    },
}
