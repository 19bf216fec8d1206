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
    "verdict.not checked": {"en": "not checked", "zh-CN": "未检查"},
    # the overall verdict (toolkit.analysis.verify.OVERALL)
    "overall.pass": {"en": "pass", "zh-CN": "通过"},
    "overall.fail": {"en": "fail", "zh-CN": "失败"},
    "overall.inconclusive": {"en": "inconclusive", "zh-CN": "无定论"},
    # what input would check a layer the inputs held no evidence for (verify.NEEDS); never the word
    # "pass" (an inconclusive report has none): the CLI adds the option that takes each input
    "verify.needs.config": {
        "en": "a DSH settings file that defines routes, or the gateway's LiteLLM proxy config",
        "zh-CN": "定义了路由的 DSH settings 文件，或网关的 LiteLLM 代理配置",
    },
    "verify.needs.serialization": {
        "en": "an HTTP capture of requests that send tool definitions",
        "zh-CN": "含有发送工具定义的请求的 HTTP 抓包",
    },
    "verify.needs.capability": {
        "en": "a capture or DSH session log in which a request carries an image",
        "zh-CN": "其中有请求携带图片的抓包或 DSH 会话日志",
    },
    "verify.needs.execution": {
        "en": "tool calls: a DSH session log, or an HTTP capture with the sandbox mode it ran in",
        "zh-CN": "工具调用：DSH 会话日志，或附带其运行时沙箱模式的 HTTP 抓包",
    },
    "verify.config.no_routes": {
        "en": "{source} defines no routes: there is no route or model to resolve",
        "zh-CN": "{source} 未定义任何路由：没有可解析的路由或模型",
    },
    "severity.error": {"en": "error", "zh-CN": "错误"},
    "severity.warning": {"en": "warning", "zh-CN": "警告"},
    "severity.info": {"en": "info", "zh-CN": "提示"},
    # ---- verify: the layers' own sentences ------------------------------------------------------
    "verify.mode_source.settings": {"en": "settings: {source}", "zh-CN": "settings：{source}"},
    # serialization.variants' must_send: what the model must send under each strict variant
    "serialization.must.every_field": {"en": "every field", "zh-CN": "全部字段"},
    "serialization.must.every_field_nullable": {
        "en": "every field; {fields} must be present and may be null",
        "zh-CN": "全部字段；{fields} 必须出现，可以为 null",
    },
    "serialization.must.leave_out": {
        "en": "{names}; the other {n} may be left out",
        "zh-CN": "{names}；其余 {n} 个可以省略",
    },
    "serialization.must.leave_out_all": {
        "en": "nothing; the other {n} may be left out",
        "zh-CN": "没有必填字段；{n} 个字段都可以省略",
    },
    "serialization.must.invents": {
        "en": "every field; {fields} cannot be left out, and only the already-nullable may be null, so the model "
        "invents values (e.g. an empty string)",
        "zh-CN": "全部字段；{fields} 不能省略，且只有原本可为 null 的字段才能取 null，模型只好编造取值（例如空字符串）",
    },
    "serialization.must.no_transform": {
        "en": "pi-ai {version} has no strict transform: the schema goes out as defined with strict true, and a "
        "strict API enforces it as it stands (OpenAI's strict mode wants every property required and "
        "additionalProperties false)",
        "zh-CN": "pi-ai {version} 没有 strict 转换：schema 按原定义随 strict true 发出，strict API 按原样强制执行"
        "（OpenAI 的 strict 模式要求所有属性都必填、additionalProperties 为 false）",
    },
    "serialization.must.cannot_strict": {
        "en": "pi-ai cannot make this schema strict: {error} (at {path})",
        "zh-CN": "pi-ai 无法把这个 schema 转成 strict：{error}（位置：{path}）",
    },
    # toolkit.layers.execution's replay: where a call's mode came from, why a call was not judged
    "execution.mode_source.given": {"en": "given", "zh-CN": "调用方指定"},
    "execution.mode_source.unknown": {"en": "unknown", "zh-CN": "未知"},
    "execution.mode_source.event": {"en": "event", "zh-CN": "事件"},
    "execution.mode_source.sandbox_mode": {
        "en": "sandbox/mode ({source}, {location})",
        "zh-CN": "sandbox/mode（{source}，{location}）",
    },
    # {option}: toolkit.knowledge.messages.surface.option, spelled for the surface (mode= or --mode)
    "execution.mode_source.no_event": {
        "en": "no sandbox/mode event: give {option}",
        "zh-CN": "没有 sandbox/mode 事件：请传入 {option}",
    },
    "execution.note.route_not_in_settings": {
        "en": "the model's route is not in the settings",
        "zh-CN": "该模型的路由不在设置中",
    },
    "execution.note.not_modelled": {
        "en": "not modelled (the validator covers bash, pwsh, write and edit; read_image with {option})",
        "zh-CN": "未建模（校验器覆盖 bash、pwsh、write 和 edit；传入 {option} 时也覆盖 read_image）",
    },
    "execution.note.unparsed": {"en": "arguments could not be parsed: {error}", "zh-CN": "参数无法解析：{error}"},
    "execution.note.mode_unknown": {
        "en": "the sandbox mode is unknown: give {option} for an HTTP capture",
        "zh-CN": "沙箱模式未知：HTTP 抓包需要传入 {option}",
    },
    "execution.note.stream_cut": {
        "en": "the stream was cut before the call's arguments ended: not judged",
        "zh-CN": "流在调用参数结束前被截断：未判定",
    },
    # toolkit.layers.execution.NOT_JUDGED: why a call has no verdict, as the execution layer counts them
    "execution.not_judged.stream-cut": {"en": "stream cut mid-call", "zh-CN": "流在调用中途截断"},
    "execution.not_judged.tool-not-modelled": {
        "en": "tool not in the model of DSH",
        "zh-CN": "DSH 模型未覆盖该工具",
    },
    "execution.not_judged.arguments-unparsed": {"en": "arguments not parseable", "zh-CN": "参数无法解析"},
    "execution.not_judged.mode-unknown": {"en": "sandbox mode unknown", "zh-CN": "沙箱模式未知"},
    "execution.not_judged.settings-missing": {"en": "no settings given", "zh-CN": "未提供 settings"},
    "execution.not_judged.route-not-in-settings": {
        "en": "model's route not in the settings",
        "zh-CN": "模型的路由不在 settings 中",
    },
    "execution.not_judged.policy-unknown": {"en": "approval policy unknown", "zh-CN": "审批策略未知"},
    "execution.not_judged.case-not-modelled": {"en": "case not modelled", "zh-CN": "该情形未建模"},
    "execution.note.dsh_disagrees": {
        "en": "DSH's recorded result differs from the model of DSH (version or model wrong?)",
        "zh-CN": "DSH 记录的结果与 DSH 模型的判定不同（版本或模型有误？）",
    },
    "execution.note.codex_disagrees": {
        "en": "{note}; Codex's recorded result differs from the model of Codex",
        "zh-CN": "{note}；Codex 记录的结果与 Codex 模型的判定不同",
    },
    "execution.codex.no_escalation": {
        "en": "Codex: no escalation asked; runs in the session's mode",
        "zh-CN": "Codex：未请求提权；按会话的模式运行",
    },
    "execution.codex.also": {"en": "; also: {text}", "zh-CN": "；另见：{text}"},
    "execution.codex.refuses_unknown_text": {
        "en": "Codex refuses escalation under {policy}; its text for it is not known{also}",
        "zh-CN": "Codex 在 {policy} 下拒绝提权；其拒绝原文未知{also}",
    },
    "execution.codex.refuses": {
        "en": "Codex refuses {asked} under approval {policy}{also}",
        "zh-CN": "Codex 在审批策略 {policy} 下拒绝 {asked}{also}",
    },
    "execution.codex.trap_not_modelled": {
        "en": "Codex's own answer under on-request in danger-full-access is not modelled",
        "zh-CN": "Codex 在 danger-full-access 下、on-request 审批时的回答未建模",
    },
    "execution.codex.policy_unknown": {
        "en": "the approval policy is unknown (no approval/policy event)",
        "zh-CN": "审批策略未知（没有 approval/policy 事件）",
    },
    "execution.codex.asks": {
        "en": "Codex asks the user ({asked}, approval on-request)",
        "zh-CN": "Codex 询问用户（{asked}，审批策略 on-request）",
    },
    # toolkit.analysis.whatif.OUTCOMES: what a policy would have done to a call
    "execution.outcome.avoided": {"en": "avoided", "zh-CN": "可避免"},
    "execution.outcome.still fails": {"en": "still fails", "zh-CN": "仍失败"},
    "execution.outcome.newly fails": {"en": "newly fails", "zh-CN": "新出现失败"},
    "execution.outcome.no failure": {"en": "no failure", "zh-CN": "无失败"},
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
    "verify.serialization.filled_one": {
        "en": "{n} call filled every optional field (read as strict): {tool} {call_id}: {arguments}",
        "zh-CN": "{n} 次工具调用填写了所有可选字段（按 strict 读取）：{tool} {call_id}：{arguments}",
    },
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
    "verify.strict.fill": {"en": "{field}={filled} ({why})", "zh-CN": "{field}={filled}（{why}）"},
    "verify.strict.fills": {"en": "{first}; {rest}", "zh-CN": "{first}；{rest}"},
    "verify.capability.verdict": {"en": "{verdict}: {evidence}", "zh-CN": "{verdict}：{evidence}"},
    "verify.capability.requests": {"en": "requests with images: {counts}", "zh-CN": "带图片的请求：{counts}"},
    "verify.capability.not_reached_one": {
        "en": "{bad} of {n} image request did not reach a model that takes it",
        "zh-CN": "{n} 个图片请求中有 {bad} 个未到达支持图片的模型",
    },
    "verify.capability.not_reached": {
        "en": "{bad} of {n} image requests did not reach a model that takes them",
        "zh-CN": "{n} 个图片请求中有 {bad} 个未到达支持图片的模型",
    },
    "verify.capability.fix_declare": {
        "en": "declare `input: [text, image]` only where the backend accepts images",
        "zh-CN": "仅在后端接受图片时声明 `input: [text, image]`",
    },
    "verify.capability.all_accepted_one": {
        "en": "{n} image request, declared and accepted",
        "zh-CN": "{n} 个图片请求，已声明并被接受",
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
    "verify.execution.no_calls": {"en": "the inputs hold no tool call", "zh-CN": "输入中没有工具调用"},
    "verify.execution.only_read_image": {
        "en": "no tool call but read_image, which the capability layer judges",
        "zh-CN": "除 read_image 外没有工具调用，read_image 由能力层判定",
    },
    # the calls the execution layer could not judge, counted by reason (toolkit.layers.execution.NOT_JUDGED)
    "verify.execution.none_because": {
        "en": "no tool call could be judged: {reasons}",
        "zh-CN": "没有可判定的工具调用：{reasons}",
    },
    "verify.execution.not_judged_one": {
        "en": "{n} call not judged: {reasons}",
        "zh-CN": "{n} 次调用未判定：{reasons}",
    },
    "verify.execution.not_judged": {
        "en": "{n} calls not judged: {reasons}",
        "zh-CN": "{n} 次调用未判定：{reasons}",
    },
    "verify.execution.reason": {"en": "{reason} ×{n}", "zh-CN": "{reason} ×{n}"},
    "verify.execution.reason_mode": {
        "en": "{reason} ×{n} (give {option} for HTTP captures)",
        "zh-CN": "{reason} ×{n}（HTTP 抓包请传入 {option}）",
    },
    "verify.execution.reasons": {"en": "{first}, {then}", "zh-CN": "{first}，{then}"},
    "verify.execution.and_not_judged": {"en": "{summary}; {not_judged}", "zh-CN": "{summary}；{not_judged}"},
    "verify.execution.judged": {
        "en": "{n} calls judged under DSH {dsh} in {modes}{seen}; {failed} refused",
        "zh-CN": "按 DSH {dsh} 在 {modes} 下判定了 {n} 次调用{seen}；{failed} 次被拒",
    },
    "verify.execution.judged_one": {
        "en": "{n} call judged under DSH {dsh} in {modes}{seen}; {failed} refused",
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
    "verify.execution.refusal": {"en": "×{n}: {message}", "zh-CN": "×{n}：{message}"},
    "verify.execution.disagree": {
        "en": "{n} verdicts differ from DSH's recorded results",
        "zh-CN": "{n} 个结论与 DSH 记录的结果不同",
    },
    "verify.execution.disagree_one": {
        "en": "{n} verdict differs from DSH's recorded results",
        "zh-CN": "{n} 个结论与 DSH 记录的结果不同",
    },
    "verify.execution.all_run": {"en": "all {n} calls run", "zh-CN": "全部 {n} 次调用均可执行"},
    "verify.execution.all_run_one": {"en": "{n} call runs", "zh-CN": "{n} 次调用可执行"},
    "verify.execution.avoids": {
        "en": "{policy}: avoids {avoided} of {n} refusals",
        "zh-CN": "{policy}：可避免 {n} 次拒绝中的 {avoided} 次",
    },
    "verify.execution.avoids_one": {
        "en": "{policy}: avoids {avoided} of {n} refusal",
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
    "verify.execution.refused_one": {
        "en": "DSH refused {failed} of {n} call",
        "zh-CN": "DSH 拒绝了 {n} 次调用中的 {failed} 次",
    },
    # ---- strict: why a value a strict reading forces the model to fill is risky (strict.risky_fills) ----
    "strict.fill.escalation": {
        "en": "every member ({members}) is a sandbox escalation: any filled value asks for wider access (approval, "
        "or refused as not strictly wider)",
        "zh-CN": "{members} 每个取值都是沙箱提权：填哪个都等于申请更大的权限，要么需要审批，要么因并非严格放宽而被拒",
    },
    "strict.fill.first_enum": {
        "en": "the first enum member is what a forced model tends to pick; it is a choice, not the default",
        "zh-CN": "被迫填写时，模型往往选枚举的第一个值；这只是一种选择，并非默认值",
    },
    "strict.fill.dsh_empty_justification": {
        "en": "DSH refuses an empty justification: {dsh_text}",
        "zh-CN": "DSH 拒绝空的 justification：{dsh_text}",
    },
    "strict.fill.dsh_refuses": {"en": "DSH refuses it: {dsh_text}", "zh-CN": "DSH 拒绝该值：{dsh_text}"},
    "strict.fill.empty_string": {
        "en": "an empty string is sent where the field was left out",
        "zh-CN": "本应省略的字段被填成了空字符串",
    },
    "strict.fill.zero": {
        "en": "0 is sent where the field was left out (not its default)",
        "zh-CN": "本应省略的字段被填成了 0（并非其默认值）",
    },
    "strict.fill.false": {
        "en": "false is sent where the field was left out; safe only if false is the runtime's default",
        "zh-CN": "本应省略的字段被填成了 false；只有运行时的默认值恰好是 false 时才安全",
    },
    "strict.fill.pair": {
        "en": "mutually dependent optional pair: each without the other is refused ({needs} / {lone}); a forced "
        "model sends both",
        "zh-CN": "互相依赖的一对可选字段：只填其中一个会被拒绝（{needs} / {lone}）；被迫填写的模型会两个都发",
    },
    # ---- capability: the evidence of each image request's verdict (capability.check) ------------------
    "capability.sent": {
        "en": "{n} image part(s) sent ({media_types}, {size} bytes)",
        "zh-CN": "发送了 {n} 个图片部分（{media_types}，{size} 字节）",
    },
    "capability.nothing_sent": {"en": "no image part on the wire", "zh-CN": "请求中没有图片部分"},
    "capability.refused_before_sending": {
        "en": "DSH refused before sending: {dsh_text}",
        "zh-CN": "DSH 在发送前拒绝：{dsh_text}",
    },
    "capability.no_route": {
        "en": "{sent}; no configured route serves model `{model}` at this URL",
        "zh-CN": "{sent}；没有已配置的路由在这个 URL 上提供模型 `{model}`",
    },
    "capability.step_failed": {
        "en": "the step failed (a DSH log keeps no HTTP status): {answer}",
        "zh-CN": "该步骤失败（DSH 日志不记录 HTTP 状态码）：{answer}",
    },
    "capability.backend_answered": {"en": "backend answered {status} {answer}", "zh-CN": "后端返回 {status} {answer}"},
    "capability.backend_status": {"en": "backend answered {status}", "zh-CN": "后端返回 {status}"},
    "capability.step_completed": {
        "en": "the step completed (a DSH log keeps no HTTP status)",
        "zh-CN": "该步骤已完成（DSH 日志不记录 HTTP 状态码）",
    },
    "capability.declared_then": {
        "en": "declared {declared} ({source}); {sent}; {outcome}",
        "zh-CN": "声明为 {declared}（{source}）；{sent}；{outcome}",
    },
    "capability.declared_but": {"en": "declared {declared}, but {sent}", "zh-CN": "声明为 {declared}，但{sent}"},
    "capability.declared_but_placeholder": {
        "en": "declared {declared}, but {sent} and pi-ai's placeholder was sent instead",
        "zh-CN": "声明为 {declared}，但{sent}，发出的是 pi-ai 的占位符",
    },
    "capability.declared_yet": {
        "en": "declared {declared} ({source}), yet {sent}: the capture was made with another configuration",
        "zh-CN": "声明为 {declared}（{source}），却{sent}：该抓包是在另一套配置下录制的",
    },
    "capability.placeholder": {
        "en": "pi-ai sent its placeholder `{placeholder}` instead",
        "zh-CN": "pi-ai 改为发送了占位符 `{placeholder}`",
    },
    "capability.dsh_refused": {"en": "DSH refused: {dsh_text}", "zh-CN": "DSH 拒绝：{dsh_text}"},
    "capability.declared_local": {
        "en": "declared {declared} ({source}); {local}",
        "zh-CN": "声明为 {declared}（{source}）；{local}",
    },
    "capability.declared_local_capable": {
        "en": "declared {declared} ({source}); {local}; but `{model}` accepted images on route `{route}` ({exchange})",
        "zh-CN": "声明为 {declared}（{source}）；{local}；但 `{model}` 在路由 `{route}` 上接受了图片（{exchange}）",
    },
    "capability.and_gateway": {"en": "{evidence}; and {gateway}", "zh-CN": "{evidence}；另外，{gateway}"},
    # ---- attribution: which client library sent a capture's tools (attribution_verdict) --------------
    "attribution.no_adapter": {
        "en": "no profile matches: no modelled adapter sends this api",
        "zh-CN": "没有匹配的 profile：已建模的适配器都不发送这种 API",
    },
    "attribution.closest": {
        "en": "no profile matches; the closest is {name} {version} with {options} ({exact} of {tools} tools exact)",
        "zh-CN": "没有匹配的 profile；最接近的是 {name} {version}，选项 {options}（{tools} 个工具中有 {exact} 个完全一致）",
    },
    "attribution.profile": {"en": "{name} {versions} with {options}", "zh-CN": "{name} {versions}，选项 {options}"},
    "attribution.profile_api": {
        "en": "{name} {versions} ({api}) with {options}",
        "zh-CN": "{name} {versions}（{api}），选项 {options}",
    },
    "attribution.option": {"en": "{option} {values}", "zh-CN": "{option} 为 {values}"},
    "attribution.or": {"en": "{first} or {last}", "zh-CN": "{first} 或 {last}"},
    "attribution.then": {"en": "{first}; {rest}", "zh-CN": "{first}；{rest}"},
    "attribution.or_last": {"en": "{first}; or {last}", "zh-CN": "{first}；或 {last}"},
    "attribution.looks_like": {"en": "these tools look like {profiles}", "zh-CN": "这些工具看起来出自 {profiles}"},
    "attribution.tied": {
        "en": "{verdict} (tied: these tools cannot tell them apart)",
        "zh-CN": "{verdict}（并列：仅凭这些工具无法区分）",
    },
    "attribution.loose": {
        "en": "{verdict} (descriptions and key order not compared: load with keep_bodies=True)",
        "zh-CN": "{verdict}（未比较描述和键顺序：请用 keep_bodies=True 加载）",
    },
}
