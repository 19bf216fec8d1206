"""The settings findings of ``toolkit.layers.config``: explanations and fixes around the exact config texts."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
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
}
