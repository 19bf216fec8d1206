"""The toolkit's own translated strings, in one place: report chrome, verdict words, layer names, the
explanations and fixes ``verify`` writes, widget labels.

Exact upstream texts (DSH's refusals, pi-ai's placeholder, a gateway's error, a config line) are never
here: they are parameters (``{dsh_text}`` and the like), passed verbatim, as they are what a reader
searches for. ``Message`` is a ``str`` holding the English text, so code and tests that read the English
see exactly what they saw before, with the key and parameters kept to render it in another language.

Pure data and formatting: no I/O, no pandas.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LANGUAGES", "MESSAGES", "Message", "text"]

LANGUAGES = ("en", "zh-CN")

MESSAGES: dict[str, dict[str, str]] = {
    # ---- layers, verdicts, severities -----------------------------------------------------------
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
    # ---- settings findings (toolkit.layers.config) -----------------------------------------------
    "config.api_key_unset": {
        "en": "`{env}` is not set in this environment (checked by name only; the value is never read): every request "
        "on this route fails before it is sent",
        "zh-CN": "当前环境未设置 `{env}`（只按名称检查，从不读取其值）：这条路由上的每个请求在发送前就会失败",
    },
    "config.api_key_unset.fix": {
        "en": "set {env} through DSH's credentials service or export it where DSH starts",
        "zh-CN": "通过 DSH 的凭据服务设置 {env}，或在启动 DSH 的环境中 export 它",
    },
    "config.input_modalities_ignored": {
        "en": "`inputModalities` on llm-pi-ai model `{model}` is silently ignored (unknown keys pass through); the key "
        "is `input`, so the model resolves to {input} from {source}",
        "zh-CN": "llm-pi-ai 模型 `{model}` 上的 `inputModalities` 被静默忽略（未知键会原样通过）；正确的键是 `input`，"
        "因此该模型解析为 {input}，来自 {source}",
    },
    "config.input_modalities_ignored.fix_rename": {
        "en": "rename `inputModalities` to `input`",
        "zh-CN": "把 `inputModalities` 改名为 `input`",
    },
    "config.input_modalities_ignored.fix_delete": {
        "en": "delete `inputModalities` (`input` is set)",
        "zh-CN": "删除 `inputModalities`（`input` 已设置）",
    },
    "config.image_undeclared": {
        "en": "model `{model}` declares no `input` and route `{route}` defaults to {default_input}: DSH refuses "
        "images for it before sending, and pi-ai replaces any that reach it with `{placeholder}`",
        "zh-CN": "模型 `{model}` 未声明 `input`，路由 `{route}` 默认为 {default_input}：DSH 会在发送前拒绝发给它的图片，"
        "而到达它的图片会被 pi-ai 替换为 `{placeholder}`",
    },
    "config.image_undeclared.fix": {
        "en": "if the endpoint accepts images, declare `input: [text, image]` on the model",
        "zh-CN": "如果端点接受图片，在该模型上声明 `input: [text, image]`",
    },
    "config.image_undeclared.fix_misspelled": {
        "en": "if the endpoint accepts images, declare `input: [text, image]` on the model (the misspelled "
        "`inputModalities` already says so: rename it)",
        "zh-CN": "如果端点接受图片，在该模型上声明 `input: [text, image]`（拼错的 `inputModalities` 已经这样写了：改名即可）",
    },
    "config.strict_absent": {
        "en": "route `{route}` (openai-responses) does not declare `compat.supportsStrictMode`, so pi-ai {version} "
        "omits `strict` from every tool sent to `{model}`; what an absent `strict` means is left to the gateway "
        "(OpenAI Responses reads it as strict: every field required, optional ones nullable)",
        "zh-CN": "路由 `{route}`（openai-responses）未声明 `compat.supportsStrictMode`，因此 pi-ai {version} "
        "发给 `{model}` 的每个工具都省略了 `strict`；缺省的 `strict` 如何理解交由网关决定"
        "（OpenAI Responses 按 strict 读取：所有字段必填，可选字段可为 null）",
    },
    "config.strict_absent.fix": {
        "en": "declare `compat: {{supportsStrictMode: true}}` on the route so tools go out with `strict: false`",
        "zh-CN": "在路由上声明 `compat: {{supportsStrictMode: true}}`，让工具以 `strict: false` 发出",
    },
    # ---- the report ---------------------------------------------------------------------------
    "report.title": {
        "en": "Agent tool-call contract: four-layer verdict",
        "zh-CN": "智能体工具调用契约：四层结论",
    },
    "report.text.head": {"en": "agent-contract verify: {status}", "zh-CN": "agent-contract verify：{status}"},
    "report.all_pass": {"en": "all layers pass", "zh-CN": "各层均通过"},
    "report.text.fail": {"en": "FAIL", "zh-CN": "失败"},
    "report.failing": {"en": "failing", "zh-CN": "未通过"},
    "report.dsh_says": {"en": "DSH says ({entry}): {dsh_text}", "zh-CN": "DSH 原文（{entry}）：{dsh_text}"},
    "report.fix": {"en": "fix", "zh-CN": "修复"},
    "report.text.fix": {"en": "    fix: {fix}", "zh-CN": "    修复：{fix}"},
    "report.text.provenance": {
        "en": "WHO CHANGED WHAT (provenance; ? = not settled by the evidence)",
        "zh-CN": "谁改了什么（溯源；? = 证据不足以确定）",
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
    "report.figure_missing": {
        "en": "The summary figure is left out: it needs matplotlib ({extra}).",
        "zh-CN": "未包含汇总图：需要 matplotlib（{extra}）。",
    },
    # ---- the experiment section -----------------------------------------------------------------
    "experiment.title": {
        "en": "Experiment: the same request, variants of the contract",
        "zh-CN": "实验：同一请求，契约的不同变体",
    },
    "experiment.dry_run": {
        "en": "A dry run: nothing was sent. Give an endpoint to send the variants.",
        "zh-CN": "试运行：未发送任何内容。提供一个端点即可发送各变体。",
    },
    "experiment.not_in_json": {
        "en": "the JSON report has no experiment section: use --format markdown or html",
        "zh-CN": "JSON 报告没有实验部分：请使用 --format markdown 或 html",
    },
    "experiment.counted": {
        "en": "Accepted and refused count the calls the model made, judged by DSH's own rules (the execution layer, "
        "in the session's mode); in brackets the 95% Wilson interval.",
        "zh-CN": "“接受”和“拒绝”统计的是模型发出的工具调用，按 DSH 自身的规则判定（执行层，使用会话的沙箱模式）；"
        "括号内为 95% Wilson 区间。",
    },
    "experiment.rate": {"en": "{k} of {n}", "zh-CN": "{n} 次中 {k} 次"},
    "experiment.rate_interval": {"en": "{k} of {n} ({low}–{high}%)", "zh-CN": "{n} 次中 {k} 次（{low}–{high}%）"},
    "experiment.fact.capture": {"en": "capture", "zh-CN": "抓包"},
    "experiment.fact.exchange": {"en": "exchange", "zh-CN": "交换"},
    "experiment.fact.endpoint": {"en": "endpoint", "zh-CN": "端点"},
    "experiment.fact.variants": {"en": "variants", "zh-CN": "变体"},
    "experiment.fact.samples": {"en": "samples", "zh-CN": "样本"},
    "experiment.fact.judged_by": {"en": "judged by", "zh-CN": "判定依据"},
    "experiment.fact.when": {"en": "when", "zh-CN": "时间"},
    "experiment.fact.complete": {"en": "complete", "zh-CN": "完整"},
    "experiment.sha": {"en": " (sha256 {sha}…)", "zh-CN": "（sha256 {sha}…）"},
    "experiment.no_endpoint": {"en": "none (dry run: nothing was sent)", "zh-CN": "无（试运行：未发送任何内容）"},
    "experiment.samples": {"en": "{n} per variant, interleaved", "zh-CN": "每个变体 {n} 个，交错发送"},
    "experiment.rules": {"en": "DSH's rules", "zh-CN": "DSH 的规则"},
    "experiment.rules_version": {"en": "DSH {dsh}'s rules", "zh-CN": "DSH {dsh} 的规则"},
    "experiment.rules_mode": {"en": "{rules} in {mode}", "zh-CN": "{rules}，沙箱模式 {mode}"},
    "experiment.when": {"en": "{started} to {finished} (UTC)", "zh-CN": "{started} 至 {finished}（UTC）"},
    "experiment.incomplete": {
        "en": "no: stopped early, what was sent is recorded",
        "zh-CN": "否：提前停止，已发送的内容均已记录",
    },
    "experiment.changed": {"en": "What each variant changed", "zh-CN": "各变体改了什么"},
    "experiment.came_back": {"en": "What came back", "zh-CN": "返回了什么"},
    "experiment.grouped": {"en": "{n} tools: {names}", "zh-CN": "{n} 个工具：{names}"},
    "experiment.as_captured": {"en": "the captured request as it is", "zh-CN": "原样使用抓包中的请求"},
    "experiment.nothing_to_change": {
        "en": "nothing to change: the same body as captured (sent all the same, so the comparison keeps its arm)",
        "zh-CN": "无需改动：请求体与抓包相同（仍然发送，以便对比保留这一组）",
    },
    "experiment.top_rule": {
        "en": "The most frequent refusal, as DSH words it:",
        "zh-CN": "最常见的拒绝（DSH 原文）：",
    },
    "experiment.refused_calls": {"en": "{variant}: {rate} calls refused", "zh-CN": "{variant}：{rate} 调用被拒"},
    "experiment.figure_alt": {
        "en": "refused and accepted share of calls per variant, with 95% Wilson intervals",
        "zh-CN": "各变体被拒与被接受的调用占比，含 95% Wilson 区间",
    },
    "experiment.col.variant": {"en": "variant", "zh-CN": "变体"},
    "experiment.col.tool": {"en": "tool", "zh-CN": "工具"},
    "experiment.col.path": {"en": "path", "zh-CN": "路径"},
    "experiment.col.kind": {"en": "kind", "zh-CN": "类型"},
    "experiment.col.before": {"en": "before", "zh-CN": "之前"},
    "experiment.col.after": {"en": "after", "zh-CN": "之后"},
    "experiment.col.requests": {"en": "requests", "zh-CN": "请求"},
    "experiment.col.answered": {"en": "answered", "zh-CN": "已应答"},
    "experiment.col.errors": {"en": "errors", "zh-CN": "错误"},
    "experiment.col.calls": {"en": "calls", "zh-CN": "调用"},
    "experiment.col.accepted": {"en": "accepted", "zh-CN": "接受"},
    "experiment.col.refused": {"en": "refused", "zh-CN": "拒绝"},
    "experiment.col.filled empty": {"en": "filled empty", "zh-CN": "填空值"},
    # ---- widgets ------------------------------------------------------------------------------
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
}


def text(key: str, lang: str = "en", **params: Any) -> str:
    """The text of ``key`` in ``lang`` with ``params`` filled in; a ``Message`` parameter is rendered in
    the same language, anything else is inserted as it is (upstream texts stay verbatim)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: known {', '.join(LANGUAGES)}")
    try:
        entry = MESSAGES[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in toolkit.knowledge.messages.MESSAGES") from None
    filled = {k: v.render(lang) if isinstance(v, Message) else v for k, v in params.items()}
    return entry[lang].format(**filled)


class Message(str):
    """A toolkit sentence: the English text as a ``str`` (byte-identical to what the toolkit wrote before
    it was translated), with its key and parameters kept so ``render`` can write it in another language."""

    key: str
    params: dict[str, Any]

    def __new__(cls, key: str, /, **params: Any) -> Message:
        self = super().__new__(cls, text(key, "en", **params))
        self.key = key
        self.params = params
        return self

    def render(self, lang: str = "en") -> str:
        return text(self.key, lang, **self.params)

    def __reduce__(
        self,
    ) -> tuple[Any, tuple[str, dict[str, Any]]]:  # pickles (and deep-copies) as a Message, not as its English text
        return (_message, (self.key, self.params))


def _message(key: str, params: dict[str, Any]) -> Message:
    return Message(key, **params)
