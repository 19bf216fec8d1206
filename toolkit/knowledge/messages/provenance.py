"""The ``verify`` provenance table: the six questions and the answers ``toolkit.analysis.provenance`` writes."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    # the questions (the table keeps them in English, as identifiers: toolkit.analysis.provenance.QUESTIONS)
    "provenance.question.who defined the field": {"en": "who defined the field", "zh-CN": "谁定义了该字段"},
    "provenance.question.who changed the schema": {"en": "who changed the schema", "zh-CN": "谁改动了 schema"},
    "provenance.question.who interpreted strict": {"en": "who interpreted strict", "zh-CN": "谁解释了 strict"},
    "provenance.question.who declared the model's capability": {
        "en": "who declared the model's capability",
        "zh-CN": "谁声明了模型的能力",
    },
    "provenance.question.who finally validated the parameters": {
        "en": "who finally validated the parameters",
        "zh-CN": "谁最终校验了参数",
    },
    "provenance.question.who owns the real permission state": {
        "en": "who owns the real permission state",
        "zh-CN": "谁掌握真实的权限状态",
    },
    "provenance.question.who filled the value": {"en": "who filled the value", "zh-CN": "谁填写了该值"},
}

# ---- the answers and the hints in ``evidence`` (toolkit.analysis.provenance) -------------------------------
# Upstream texts (DSH's refusals, config source quotes), values, identifiers and places (file entry or line,
# JSON/YAML paths, event types) are parameters, verbatim.
MESSAGES.update(
    {
        # who defined strict
        "provenance.answer.strict_defined": {
            "en": "pi-ai {action} because compat.supportsStrictMode resolved to {value} ({source})",
            "zh-CN": "pi-ai {action}，因为 compat.supportsStrictMode 解析为 {value}（{source}）",
        },
        "provenance.action.omitted_key": {"en": "omitted the key", "zh-CN": "省略了该键"},
        "provenance.action.wrote_strict": {"en": "wrote strict: {state}", "zh-CN": "写入了 strict: {state}"},
        "provenance.answer.strict_sent_no_settings": {
            "en": "pi-ai sent strict {state}; without the settings, why is unknown",
            "zh-CN": "pi-ai 发送的 strict 为 {state}；没有配置文件，无从得知原因",
        },
        "provenance.answer.strict_not_on_wire": {
            "en": "unknown: no HTTP capture shows the tool on the wire",
            "zh-CN": "未知：没有 HTTP 抓包记录到线上的该工具",
        },
        "provenance.where.route_line": {
            "en": "{file} {path} (route line {line})",
            "zh-CN": "{file} {path}（路由在第 {line} 行）",
        },
        # {option}: toolkit.knowledge.messages.surface.option, spelled for the surface (settings= or --settings)
        "provenance.hint.pass_settings": {"en": "give {option} to settle it", "zh-CN": "传入 {option} 即可定论"},
        # who sent the tools, when toolkit.layers.attribution does not establish pi-ai
        "provenance.answer.sender_unidentified": {
            "en": "an unidentified client sent strict {state}: no modelled profile reproduces its tools; {closest}",
            "zh-CN": "一个未识别的客户端发送了 strict {state}：没有任何已建模的客户端能复现其工具；{closest}",
        },
        "provenance.closest": {
            "en": "closest (not a match): {name} {version} with {options}, {exact} of {tools} tools exact",
            "zh-CN": "最接近的（并不匹配）：{name} {version}，选项 {options}，{tools} 个工具中有 {exact} 个完全一致",
        },
        "provenance.answer.sender_no_profile": {
            "en": "an unidentified client sent strict {state}: no modelled adapter sends this api",
            "zh-CN": "一个未识别的客户端发送了 strict {state}：已建模的适配器都不发送这种接口",
        },
        "provenance.answer.sender_other": {
            "en": "strict {state} was sent by a client other than pi-ai: {verdict}",
            "zh-CN": "strict {state} 由 pi-ai 之外的客户端发送：{verdict}",
        },
        "provenance.answer.sender_tied": {
            "en": "strict {state} was sent by one of the clients these tools cannot tell apart: {verdict}",
            "zh-CN": "strict {state} 由这些工具无法区分的几个客户端之一发送：{verdict}",
        },
        "provenance.hint.sender": {
            "en": "the client's name and version (its `user-agent` header, or the agent's own log) would settle it",
            "zh-CN": "客户端的名称和版本（其 `user-agent` 请求头，或智能体自己的日志）即可定论",
        },
        "provenance.hint.sender_tied": {
            "en": "the settings that route this model ({option}) or a DSH session log of the same run would settle it",
            "zh-CN": "为该模型配置路由的配置文件（{option}）或同一次运行的 DSH 会话日志即可定论",
        },
        "provenance.hint.capture_pi_ai_gateway": {
            "en": "a capture between pi-ai and the gateway would settle it",
            "zh-CN": "在 pi-ai 与网关之间抓包即可定论",
        },
        # who changed the schema
        "provenance.answer.changed_named": {
            "en": "{named}, the hop between {a} and {b} ({what})",
            "zh-CN": "{named}，即 {a} 与 {b} 之间的这一跳（{what}）",
        },
        "provenance.answer.changed_hop": {
            "en": "the hop between {a} and {b} ({what})",
            "zh-CN": "{a} 与 {b} 之间的这一跳（{what}）",
        },
        "provenance.answer.changed_nobody": {
            "en": "nobody between the recorded hops: the schema arrived as pi-ai sent it",
            "zh-CN": "已记录的各跳之间无人改动：schema 到达时与 pi-ai 发出时一致",
        },
        "provenance.answer.changed_unknown": {
            "en": "unknown beyond the recorder: no capture behind the next hop",
            "zh-CN": "录制点之后未知：下一跳之后没有抓包",
        },
        "provenance.where.hops_agree": {"en": "{a} and {b} agree", "zh-CN": "{a} 与 {b} 一致"},
        "provenance.where.only": {"en": "only {src}", "zh-CN": "仅有 {src}"},
        "provenance.where.no_http_capture": {"en": "no HTTP capture", "zh-CN": "没有 HTTP 抓包"},
        "provenance.where.empty_capture": {"en": "(empty capture)", "zh-CN": "（空抓包）"},
        "provenance.where.retried": {
            "en": "{where} ({n} upstream attempts)",
            "zh-CN": "{where}（上游共尝试 {n} 次）",
        },
        "provenance.where.collapsed": {
            "en": "{where} ({n} client requests, one upstream request)",
            "zh-CN": "{where}（{n} 个客户端请求，合为一个上游请求）",
        },
        "provenance.where.header": {
            "en": "{where} {direction} header {name}: {value}",
            "zh-CN": "{where} {direction}头 {name}: {value}",
        },
        "provenance.direction.request": {"en": "request", "zh-CN": "请求"},
        "provenance.direction.response": {"en": "response", "zh-CN": "响应"},
        "provenance.hint.capture_behind_hop": {
            "en": "a capture behind the proxy or gateway (loaded with keep_bodies) would settle it",
            "zh-CN": "在代理或网关之后抓包（用 keep_bodies 加载）即可定论",
        },
        "provenance.list": {"en": "{first}, {then}", "zh-CN": "{first}，{then}"},
        # who interpreted strict
        "provenance.answer.interpreted_litellm": {
            "en": "{named} returned a response object echoing strict {read} (sent strict {sent}); "
            "the backend behind it is not in this capture",
            "zh-CN": "{named} 返回的响应对象回显 strict {read}（发送的是 strict {sent}）；其后的后端不在此抓包中",
        },
        "provenance.answer.interpreted_backend": {
            "en": "the backend {verb} (sent strict {sent}, echoed strict {read} in its response object)",
            "zh-CN": "后端{verb}（发送的是 strict {sent}，其响应对象回显 strict {read}）",
        },
        "provenance.verb.read_strict": {"en": "read it as strict", "zh-CN": "按 strict 解读"},
        "provenance.verb.read_non_strict": {"en": "read it as non-strict", "zh-CN": "按非 strict 解读"},
        "provenance.verb.echoed": {"en": "echoed {read}", "zh-CN": "回显了 {read}"},
        "provenance.where.response_tools": {
            "en": "{where} response tools[name={tool}].strict",
            "zh-CN": "{where} 响应中的 tools[name={tool}].strict",
        },
        "provenance.answer.interpreted_unknown": {
            "en": "unknown: no response echoed the tools",
            "zh-CN": "未知：没有响应回显 tools",
        },
        "provenance.answer.interpreted_unknown_filled": {
            "en": "unknown: no response echoed the tools; "
            "{n} calls filled every optional field, which a strict reading would force",
            "zh-CN": "未知：没有响应回显 tools；有 {n} 次调用填写了全部可选字段，而这正是 strict 解读会强制的",
        },
        "provenance.hint.capture_response_object": {
            "en": "a capture of the backend's response object (Responses echoes `tools`) would settle it",
            "zh-CN": "抓取后端的响应对象（Responses 会回显 `tools`）即可定论",
        },
        # who defined an escalation or filled optional field
        "provenance.required": {"en": "required", "zh-CN": "必填"},
        "provenance.optional": {"en": "optional", "zh-CN": "可选"},
        "provenance.answer.dsh_advertised": {
            "en": "DSH advertised it ({requirement})",
            "zh-CN": "DSH 在工具定义中声明了该字段（{requirement}）",
        },
        "provenance.answer.agent_schema": {
            "en": "the agent's tool schema ({requirement}), as the request carried it; "
            "no DSH session shows DSH's own definition",
            "zh-CN": "请求中携带的智能体工具 schema（{requirement}）；没有 DSH 会话可看到 DSH 自己的定义",
        },
        "provenance.hint.session_request_header": {
            "en": "a DSH session log (request/header) would settle it",
            "zh-CN": "有 DSH 会话日志（request/header）即可定论",
        },
        "provenance.answer.unknown": {"en": "unknown", "zh-CN": "未知"},
        "provenance.hint.no_schema": {
            "en": "no capture shows the tool's schema",
            "zh-CN": "没有抓包显示该工具的 schema",
        },
        # who filled the value
        "provenance.answer.model_sent": {"en": "the model sent {sent}", "zh-CN": "模型发送了 {sent}"},
        "provenance.sent.many_one": {"en": "{field}={value} ({n} call)", "zh-CN": "{field}={value}（{n} 次调用）"},
        "provenance.sent.many": {"en": "{field}={value} ({n} calls)", "zh-CN": "{field}={value}（{n} 次调用）"},
        "provenance.where.call_arguments": {
            "en": "{where} call {call_id} arguments.{field}",
            "zh-CN": "{where} 调用 {call_id} 的 arguments.{field}",
        },
        # who finally validated the parameters
        "provenance.answer.dsh_rejected": {
            "en": "DSH rejected the calls: {dsh_text}",
            "zh-CN": "DSH 拒绝了这些调用：{dsh_text}",
        },
        "provenance.answer.agent_rejected": {
            "en": "the agent rejected the calls: {dsh_text} (as sent back to the model; no DSH session)",
            "zh-CN": "智能体拒绝了这些调用：{dsh_text}（即回传给模型的内容；没有 DSH 会话）",
        },
        "provenance.hint.session_who_validated": {
            "en": "a DSH session log would settle who validated them",
            "zh-CN": "有 DSH 会话日志即可确定是谁校验了它们",
        },
        "provenance.answer.no_tool_result": {
            "en": "unknown: no tool result for these calls",
            "zh-CN": "未知：这些调用没有工具结果",
        },
        "provenance.hint.session": {"en": "a DSH session log would settle it", "zh-CN": "有 DSH 会话日志即可定论"},
        # a DSH session log was given and cannot settle the question: what it lacks
        "provenance.answer.dsh_ran": {
            "en": "DSH ran the calls: the session log records {n} tool results, none an error",
            "zh-CN": "DSH 执行了这些调用：会话日志记录了 {n} 个工具结果，均无错误",
        },
        "provenance.answer.dsh_ran_one": {
            "en": "DSH ran the call: the session log records its tool result, not an error",
            "zh-CN": "DSH 执行了该调用：会话日志记录了其工具结果，没有错误",
        },
        "provenance.hint.session_no_call": {
            "en": "the DSH session log given ({src}) holds no call of {tool}: nothing to validate",
            "zh-CN": "所给的 DSH 会话日志（{src}）中没有 {tool} 的调用：无从校验",
        },
        "provenance.hint.session_no_result": {
            "en": "the DSH session log given ({src}) records no tool result for the calls of {tool}",
            "zh-CN": "所给的 DSH 会话日志（{src}）没有记录 {tool} 调用的工具结果",
        },
        "provenance.hint.session_no_header": {
            "en": "the DSH session log given ({src}) has no request/header listing {tool}",
            "zh-CN": "所给的 DSH 会话日志（{src}）中没有列出 {tool} 的 request/header",
        },
        "provenance.hint.session_no_mode": {
            "en": "the DSH session log given ({src}) has no `permission/preset` or `sandbox/mode` event",
            "zh-CN": "所给的 DSH 会话日志（{src}）中没有 `permission/preset` 或 `sandbox/mode` 事件",
        },
        "provenance.answer.no_mode": {
            "en": "unknown: the DSH session log records no mode and no settings were given",
            "zh-CN": "未知：DSH 会话日志没有记录沙箱模式，也未提供配置",
        },
        # who owns the real permission state
        "provenance.answer.session_mode": {
            "en": "the DSH session: mode {mode}, set by its permission preset",
            "zh-CN": "DSH 会话：沙箱模式 {mode}，由其权限预设设定",
        },
        "provenance.answer.settings_mode": {
            "en": "unknown for these calls; the settings start sessions in {mode} ({source})",
            "zh-CN": "这些调用的情况未知；按配置，会话以 {mode} 启动（{source}）",
        },
        "provenance.where.file_line": {"en": "{file} line {line}", "zh-CN": "{file} 第 {line} 行"},
        "provenance.hint.session_sandbox_mode": {
            "en": "a DSH session log (sandbox/mode events) would settle it",
            "zh-CN": "有 DSH 会话日志（sandbox/mode 事件）即可定论",
        },
        "provenance.answer.no_session_no_settings": {
            "en": "unknown: no DSH session and no settings",
            "zh-CN": "未知：既没有 DSH 会话，也没有配置",
        },
        # who declared the model's capability, and who refused an image
        "provenance.answer.settings_input": {
            "en": "the settings: input {input} from {source}",
            "zh-CN": "配置：input 为 {input}，来自 {source}",
        },
        "provenance.where.path_line": {"en": "{file} {path} (line {line})", "zh-CN": "{file} {path}（第 {line} 行）"},
        "provenance.answer.no_settings_model": {
            "en": "unknown: no settings describe this model",
            "zh-CN": "未知：没有配置描述该模型",
        },
        "provenance.hint.settings_yaml": {
            "en": "the settings.yaml DSH ran with would settle it",
            "zh-CN": "有 DSH 运行时所用的 settings.yaml 即可定论",
        },
        "provenance.answer.dsh_refused_image": {
            "en": "DSH refused the image before sending: {dsh_text}",
            "zh-CN": "DSH 在发送前拒绝了该图片：{dsh_text}",
        },
        "provenance.where.tool_result": {
            "en": "{where} tool result of call {call_id}",
            "zh-CN": "{where} 调用 {call_id} 的工具结果",
        },
        "provenance.answer.pi_ai_placeholder": {
            "en": "pi-ai replaced the image with its placeholder before sending",
            "zh-CN": "pi-ai 在发送前把图片替换成了它的占位文本",
        },
        "provenance.where.input_part": {
            "en": "{where} input part {item}.{part}",
            "zh-CN": "{where} 输入部分 {item}.{part}",
        },
        "provenance.answer.images_sent": {
            "en": "images went on the wire ({n} parts)",
            "zh-CN": "图片已发到线上（{n} 个部分）",
        },
        "provenance.answer.images_sent_one": {
            "en": "images went on the wire ({n} part)",
            "zh-CN": "图片已发到线上（{n} 个部分）",
        },
        # toolkit.analysis.hops.pair's basis: why two requests at two hops are one, or why one has no partner
        "hops.basis.same_texts": {"en": "same conversation texts", "zh-CN": "对话文本相同"},
        "hops.basis.same_tools": {"en": "same tool names", "zh-CN": "工具名相同"},
        "hops.basis.other_tools": {"en": "other tool names", "zh-CN": "工具名不同"},
        "hops.basis.apart": {"en": "{ms} ms apart", "zh-CN": "相隔 {ms} ms"},
        "hops.basis.no_times": {"en": "no times", "zh-CN": "没有时间"},
        "hops.basis.next_candidate": {"en": "next candidate {ms} ms further", "zh-CN": "下一个候选再远 {ms} ms"},
        "hops.basis.upstream_attempt": {
            "en": "upstream attempt {attempt} (status {status})",
            "zh-CN": "上游第 {attempt} 次尝试（状态 {status}）",
        },
        "hops.basis.collapsed": {
            "en": "client request {attempt} served by one upstream request",
            "zh-CN": "客户端第 {attempt} 个请求由同一个上游请求响应",
        },
        "hops.basis.not_open": {
            "en": "but not sent while the request was open",
            "zh-CN": "但不是在该请求未结束时发出的",
        },
        "hops.basis.a_none": {
            "en": "no request at hop b carries the same conversation",
            "zh-CN": "b 跳没有请求带着相同的对话",
        },
        "hops.basis.a_taken": {
            "en": "the requests at hop b with the same conversation belong to other requests or were sent when it was not open",
            "zh-CN": "b 跳上对话相同的请求属于其他请求，或发出时该请求并未处于进行中",
        },
        "hops.basis.answered": {
            "en": "the hop answered it itself (status {status} at hop a) or sent it elsewhere",
            "zh-CN": "这一跳自己作答（a 跳状态 {status}）或把它发往别处",
        },
        "hops.basis.no_response": {
            "en": "it got no response at hop a and never went through",
            "zh-CN": "它在 a 跳没有收到响应，也从未被转发",
        },
        "hops.basis.b_none": {
            "en": "no request at hop a carries the same conversation",
            "zh-CN": "a 跳没有请求带着相同的对话",
        },
        "hops.basis.b_taken": {
            "en": "the requests at hop a with the same conversation belong to other requests or were not open when it was sent",
            "zh-CN": "a 跳上对话相同的请求属于其他请求，或在它发出时并未处于进行中",
        },
        "hops.basis.own": {"en": "the hop sent it on its own", "zh-CN": "这一跳自行发出了它"},
        # toolkit.analysis.hops.KINDS, what a hop changed in a request (the provenance table, the experiment);
        # the value itself stays English in the frames and changes.csv
        "hops.kind.protocol converted": {"en": "protocol converted", "zh-CN": "协议转换"},
        "hops.kind.model renamed": {"en": "model renamed", "zh-CN": "模型改名"},
        "hops.kind.key dropped": {"en": "key dropped", "zh-CN": "丢弃键"},
        "hops.kind.key added": {"en": "key added", "zh-CN": "新增键"},
        "hops.kind.value changed": {"en": "value changed", "zh-CN": "值变更"},
        "hops.kind.tool dropped": {"en": "tool dropped", "zh-CN": "丢弃工具"},
        "hops.kind.tool added": {"en": "tool added", "zh-CN": "新增工具"},
        "hops.kind.strict added": {"en": "strict added", "zh-CN": "新增 strict"},
        "hops.kind.strict removed": {"en": "strict removed", "zh-CN": "移除 strict"},
        "hops.kind.strict changed": {"en": "strict changed", "zh-CN": "strict 变更"},
        "hops.kind.required changed": {"en": "required changed", "zh-CN": "required 变更"},
        "hops.kind.additionalProperties injected": {
            "en": "additionalProperties injected",
            "zh-CN": "注入 additionalProperties",
        },
        "hops.kind.additionalProperties removed": {
            "en": "additionalProperties removed",
            "zh-CN": "移除 additionalProperties",
        },
        "hops.kind.additionalProperties changed": {
            "en": "additionalProperties changed",
            "zh-CN": "additionalProperties 变更",
        },
        "hops.kind.property dropped": {"en": "property dropped", "zh-CN": "丢弃属性"},
        "hops.kind.property added": {"en": "property added", "zh-CN": "新增属性"},
        "hops.kind.property rewritten": {"en": "property rewritten", "zh-CN": "改写属性"},
        "hops.kind.key removed": {"en": "key removed", "zh-CN": "移除键"},
        "hops.kind.header removed": {"en": "header removed", "zh-CN": "移除请求头"},
        "hops.kind.header added": {"en": "header added", "zh-CN": "新增请求头"},
        "hops.kind.header changed": {"en": "header changed", "zh-CN": "请求头变更"},
    }
)
