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
        "因此该模型解析为 {input}，来自{source}",
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

# ---- the other settings findings (toolkit.layers.config.resolve): explanation and fix ----------------
# The exact texts (PyYAML's problem, DSH's refusal) are parameters; the YAML keys stay in backticks.
MESSAGES.update(
    {
        "config.what.text": {"en": "the settings text (text=)", "zh-CN": "settings 文本（text=）"},
        "config.what.file": {"en": "settings file {source}", "zh-CN": "settings 文件 {source}"},
        "config.yaml_syntax": {
            "en": "YAML syntax error in {what}: {problem}",
            "zh-CN": "{what} 有 YAML 语法错误：{problem}",
        },
        "config.yaml_syntax.fix": {"en": "correct the YAML at that line", "zh-CN": "改正该行的 YAML"},
        "config.yaml_error": {"en": "YAML error in {what}: {problem}", "zh-CN": "{what} 有 YAML 错误：{problem}"},
        "config.not_a_mapping": {
            "en": "{what} is a YAML {kind}, not a mapping of namespaces",
            "zh-CN": "{what} 是 YAML {kind}，不是按命名空间组织的映射",
        },
        "config.not_a_mapping.fix": {
            "en": "write the settings as `namespace: {{...}}` mappings",
            "zh-CN": "把 settings 写成 `namespace: {{...}}` 形式的映射",
        },
        "config.not_a_mapping.fix_text": {
            "en": "write the settings as `namespace: {{...}}` mappings (to read a file, pass its path, not text=)",
            "zh-CN": "把 settings 写成 `namespace: {{...}}` 形式的映射（要读取文件，请传入路径，而不是 text=）",
        },
        "config.section_empty": {
            "en": "`{namespace}:` is empty: DSH refuses the namespace",
            "zh-CN": "`{namespace}:` 为空：DSH 拒绝该命名空间",
        },
        "config.section_not_a_mapping": {
            "en": "`{namespace}:` is not a mapping: DSH refuses the namespace",
            "zh-CN": "`{namespace}:` 不是映射：DSH 拒绝该命名空间",
        },
        "config.section.fix": {
            "en": "give `{namespace}:` its keys, or delete the line",
            "zh-CN": "为 `{namespace}:` 填上键，或删除这一行",
        },
        "config.invalid_size": {"en": "`{name}` must be a positive integer", "zh-CN": "`{name}` 必须是正整数"},
        "config.invalid_size.fix": {"en": "write a whole number", "zh-CN": "写成整数"},
        "config.unknown_modality": {
            "en": "`{modality}` is not an input modality",
            "zh-CN": "`{modality}` 不是输入模态",
        },
        "config.or": {"en": "{head} or {last}", "zh-CN": "{head} 或 {last}"},
        "config.use": {"en": "use {choices}", "zh-CN": "使用 {choices}"},
        "config.use_one_of": {"en": "use one of {choices}", "zh-CN": "使用以下之一：{choices}"},
        "config.no_routes": {
            "en": "no `{namespace}:` section: llm-pi-ai mounts with zero routes",
            "zh-CN": "没有 `{namespace}:` 部分：llm-pi-ai 挂载时没有任何路由",
        },
        "config.providers_array": {
            "en": "providers must be a dict keyed by route id",
            "zh-CN": "providers 必须是以路由 id 为键的字典",
        },
        "config.providers_array.fix": {
            "en": "write each profile under its route id",
            "zh-CN": "把每个 profile 写在它的路由 id 下",
        },
        "config.removed_key": {
            "en": "`{name}` was removed from llm-pi-ai profiles",
            "zh-CN": "llm-pi-ai 的 profile 已移除 `{name}`",
        },
        "config.removed_key.fix_provider": {
            "en": "delete `{name}` (the dict key names the route)",
            "zh-CN": "删除 `{name}`（字典的键就是路由名）",
        },
        "config.removed_key.fix_retry": {
            "en": "delete `{name}`; compose agent recovery with dsh-llm-retry",
            "zh-CN": "删除 `{name}`；用 dsh-llm-retry 组合 agent 的恢复机制",
        },
        "config.unsupported_api": {
            "en": "api `{api}` is not one a configured llm-pi-ai route may name",
            "zh-CN": "api `{api}` 不是配置的 llm-pi-ai 路由可以使用的协议",
        },
        "config.invalid_credential_ref": {
            "en": "`apiKeyEnv: {ref}` is not an environment variable name",
            "zh-CN": "`apiKeyEnv: {ref}` 不是合法的环境变量名",
        },
        "config.invalid_credential_ref.fix": {
            "en": "name the variable that holds the key (letters, digits, underscores)",
            "zh-CN": "写上保存密钥的变量名（字母、数字、下划线）",
        },
        "config.empty_field": {"en": "`{name}` is empty", "zh-CN": "`{name}` 为空"},
        "config.empty_field.fix": {
            "en": "give `{name}` a value or delete it",
            "zh-CN": "给 `{name}` 一个值，或删除它",
        },
        "config.empty_default_input.fix": {
            "en": "set `defaultInput: [text]` or delete it",
            "zh-CN": "设置 `defaultInput: [text]`，或删除它",
        },
        "config.no_models": {
            "en": "the route lists no models and is not in the installed catalog",
            "zh-CN": "该路由没有列出模型，也不在已安装的 catalog 中",
        },
        "config.no_models.fix": {
            "en": "list the route's models under `models:`",
            "zh-CN": "在 `models:` 下列出该路由的模型",
        },
        "config.compat_unreadable": {
            "en": "route compat `{field}` is taken by no model's api on this route",
            "zh-CN": "这条路由上没有哪个模型的 api 读取路由 compat `{field}`",
        },
        "config.delete": {"en": "delete `{name}`", "zh-CN": "删除 `{name}`"},
        "config.model_without_id": {"en": "a model entry has no id", "zh-CN": "有一个模型条目没有 id"},
        "config.model_without_id.fix": {"en": "give the entry an `id`", "zh-CN": "给该条目加上 `id`"},
        "config.duplicate_model": {
            "en": "model `{model}` is listed twice on route `{route}`",
            "zh-CN": "模型 `{model}` 在路由 `{route}` 上列出了两次",
        },
        "config.duplicate_model.fix": {
            "en": "delete or rename one of the entries",
            "zh-CN": "删除其中一个条目，或给它改名",
        },
        "config.needs_api": {"en": "model `{model}` has no api", "zh-CN": "模型 `{model}` 没有 api"},
        "config.needs_api.fix": {
            "en": "set the route's `api` (e.g. openai-responses)",
            "zh-CN": "设置路由的 `api`（例如 openai-responses）",
        },
        "config.needs_base_url": {"en": "model `{model}` has no baseURL", "zh-CN": "模型 `{model}` 没有 baseURL"},
        "config.needs_base_url.fix": {"en": "set the route's `baseURL`", "zh-CN": "设置路由的 `baseURL`"},
        "config.compat_withheld": {
            "en": "compat `{field}` cannot be configured on a route",
            "zh-CN": "compat `{field}` 不能在路由上配置",
        },
        "config.compat_withheld.fix": {
            "en": "name the catalog provider as the route instead",
            "zh-CN": "改为用 catalog 中的 provider 名作为路由名",
        },
        "config.compat_undeclared": {
            "en": "compat `{field}` is not a pi-ai switch",
            "zh-CN": "compat `{field}` 不是 pi-ai 的开关",
        },
        "config.compat_undeclared.fix": {
            "en": "delete `{field}` or correct its spelling",
            "zh-CN": "删除 `{field}`，或改正拼写",
        },
        "config.compat_valueless": {"en": "compat `{field}` has no value", "zh-CN": "compat `{field}` 没有值"},
        "config.compat_valueless.fix": {"en": "give `{field}` a value", "zh-CN": "给 `{field}` 一个值"},
        "config.compat_wrong_api": {
            "en": "model `{model}` sets compat `{field}`, which api `{api}` does not take",
            "zh-CN": "模型 `{model}` 设置了 compat `{field}`，但 api `{api}` 不读取它",
        },
        "config.empty_reasoning_efforts.fix": {
            "en": "declare levels, set false, or delete it",
            "zh-CN": "声明各档位、设为 false，或删除它",
        },
        "config.default_model_incomplete": {
            "en": "agent-default-model has no `{name}`",
            "zh-CN": "agent-default-model 缺少 `{name}`",
        },
        "config.default_model_incomplete.fix": {
            "en": "set `{name}` (agent-default-model takes both provider and model)",
            "zh-CN": "设置 `{name}`（agent-default-model 需要同时给出 provider 和 model）",
        },
        "config.default_route_missing": {
            "en": "agent-default-model names route `{route}`, which is not configured under llm-pi-ai providers",
            "zh-CN": "agent-default-model 指定的路由 `{route}` 没有在 llm-pi-ai providers 下配置",
        },
        "config.default_route_missing.fix": {"en": "name one of: {routes}", "zh-CN": "改为以下之一：{routes}"},
        "config.no_routes_listed": {"en": "(no routes)", "zh-CN": "（没有路由）"},
        "config.default_model_missing": {
            "en": "agent-default-model names model `{model}`, which route `{route}` does not list",
            "zh-CN": "agent-default-model 指定的模型 `{model}` 不在路由 `{route}` 的列表中",
        },
        "config.default_model_missing.fix": {
            "en": "list `{model}` under the route's models",
            "zh-CN": "在该路由的 models 下列出 `{model}`",
        },
        "config.unknown_preset": {
            "en": "unknown permission preset `{preset}`",
            "zh-CN": "未知的权限预设 `{preset}`",
        },
    }
)

# ---- where a resolved value came from (the ``*_source`` columns of ``config.models``, the defaults) --------
# Keys, YAML paths and variable names inside stay verbatim.
MESSAGES.update(
    {
        "config.source.entry": {"en": "entry", "zh-CN": "模型条目"},
        "config.source.catalog": {"en": "catalog", "zh-CN": "catalog"},
        "config.source.catalog_models": {"en": "catalog ({route} models)", "zh-CN": "catalog（{route} 的模型）"},
        "config.source.route_key": {"en": "route {name}", "zh-CN": "路由 {name}"},
        "config.source.route_default_input": {
            "en": "route defaultInput (default [text])",
            "zh-CN": "路由 defaultInput（默认 [text]）",
        },
        "config.source.key_default": {"en": "{name} default", "zh-CN": "{name} 默认值"},
        "config.source.model_compat": {"en": "model compat", "zh-CN": "模型 compat"},
        "config.source.route_compat": {"en": "route compat", "zh-CN": "路由 compat"},
        "config.source.not_applicable": {"en": "not applicable to {api}", "zh-CN": "不适用于 {api}"},
        "config.source.winner": {
            "en": "provider's resolved value (it always passes one, so convertResponsesTools' `?? true` never applies)",
            "zh-CN": "provider 解析出的值（它总会传入一个值，所以 convertResponsesTools 的 `?? true` 从不生效）",
        },
        "config.source.base_default_model": {
            "en": "base default (agent-default-model row)",
            "zh-CN": "基础默认值（agent-default-model 行）",
        },
        "config.source.base_sandbox": {
            "en": "base bundle default (sandbox-policy)",
            "zh-CN": "基础 bundle 默认值（sandbox-policy）",
        },
    }
)

# ---- a LiteLLM proxy config.yaml beside the settings (toolkit.layers.config.gateway) ------------------
# LiteLLM's own answers and the problem texts of toolkit.knowledge.litellm_config are parameters.
MESSAGES.update(
    {
        "config.gateway.where": {
            "en": "{file} line {line}: `model_info.{name}: {value}`",
            "zh-CN": "{file} 第 {line} 行：`model_info.{name}: {value}`",
        },
        "config.gateway.registered": {
            "en": "{where} of `{other}`, which LiteLLM writes into its cost map for `{underlying}`, so `{model}` "
            "inherits it",
            "zh-CN": "`{other}` 的 {where}，LiteLLM 会把它写入 `{underlying}` 的 cost map，因此 `{model}` 继承了该值",
        },
        "config.gateway.cost_map": {
            "en": "LiteLLM {version}'s cost map: `{underlying}` has `{name}` {value}",
            "zh-CN": "LiteLLM {version} 的 cost map 中 `{underlying}` 的 `{name}`：{value}",
        },
        "config.gateway.left_out": {"en": "left out", "zh-CN": "未列出"},
        "config.gateway.unknown_to_cost_map": {
            "en": "no `model_info.{name}`, and LiteLLM {version}'s cost map does not know `{underlying}`",
            "zh-CN": "没有 `model_info.{name}`，LiteLLM {version} 的 cost map 也不认识 `{underlying}`",
        },
        "config.gateway.not_listed": {
            "en": "the gateway ({file}) lists no model `{model}`: LiteLLM answers `{litellm_text}`",
            "zh-CN": "网关（{file}）没有列出模型 `{model}`：LiteLLM 会返回 `{litellm_text}`",
        },
        "config.gateway.text_only": {
            "en": "the gateway declares `{model}` text-only ({source}); LiteLLM still forwards an image to it "
            "(its router only prefers deployments that do not declare `supports_vision: false`)",
            "zh-CN": "网关声明 `{model}` 仅支持文本（{source}）；LiteLLM 仍会把图片转发给它"
            "（它的路由只是优先选择未声明 `supports_vision: false` 的部署）",
        },
        "config.gateway.image_capable": {
            "en": "the gateway declares `{model}` image-capable ({source})",
            "zh-CN": "网关声明 `{model}` 支持图片（{source}）",
        },
        "config.gateway.vision_undeclared": {
            "en": "the gateway declares nothing about images for `{model}` ({source}): LiteLLM forwards the image "
            "and its /model_group/info says `supports_vision: false`",
            "zh-CN": "网关没有声明 `{model}` 是否支持图片（{source}）：LiteLLM 会转发图片，"
            "而它的 /model_group/info 显示 `supports_vision: false`",
        },
        "config.gateway.problem": {"en": "{file}: {problem}", "zh-CN": "{file}：{problem}"},
        "config.gateway.flag_not_bool.fix": {"en": "write `true` or `false`", "zh-CN": "写成 `true` 或 `false`"},
        "config.gateway.route_model": {
            "en": "route `{route}` model `{model}`",
            "zh-CN": "路由 `{route}` 的模型 `{model}`",
        },
        "config.gateway.model_missing": {
            "en": "{route}: the gateway ({file}) lists no model `{model}`; if this route goes through it, LiteLLM "
            "answers `{litellm_text}`",
            "zh-CN": "{route}：网关（{file}）没有列出模型 `{model}`；如果这条路由经过该网关，LiteLLM 会返回 "
            "`{litellm_text}`",
        },
        "config.gateway.model_missing.fix": {
            "en": "add a `model_name: {model}` entry to {file}, or point the route elsewhere",
            "zh-CN": "在 {file} 中添加 `model_name: {model}` 条目，或让路由指向别处",
        },
        "config.gateway.text_only_finding": {
            "en": "{route} declares `input: {input}` ({source}), but {sentence}",
            "zh-CN": "{route} 声明了 `input: {input}`（{source}），但{sentence}",
        },
        "config.gateway.text_only_finding.fix": {
            "en": "declare `input: [text]` for `{model}` in DSH's route, or give the gateway a deployment with "
            "`model_info.supports_vision: true` whose backend takes images",
            "zh-CN": "在 DSH 的路由中为 `{model}` 声明 `input: [text]`，或者给网关加一个 "
            "`model_info.supports_vision: true` 且后端接受图片的部署",
        },
        "config.gateway.vision_undeclared_finding": {
            "en": "{route} declares `input: {input}` ({source}); {sentence}",
            "zh-CN": "{route} 声明了 `input: {input}`（{source}）；{sentence}",
        },
        "config.gateway.vision_undeclared_finding.fix": {
            "en": "declare `model_info.supports_vision` for `{model}` in {file}",
            "zh-CN": "在 {file} 中为 `{model}` 声明 `model_info.supports_vision`",
        },
        "config.gateway.no_tools": {
            "en": "{route}: DSH sends its tools on every request, but the gateway declares `{model}` without tool "
            "calls ({source}); LiteLLM forwards the tools anyway, so the backend decides",
            "zh-CN": "{route}：DSH 每个请求都会带上它的工具，但网关声明 `{model}` 不支持工具调用（{source}）；"
            "LiteLLM 仍会转发这些工具，所以由后端决定",
        },
        "config.gateway.no_tools.fix": {
            "en": "check that `{model}`'s backend takes tools, then declare "
            "`model_info.supports_function_calling: true`",
            "zh-CN": "先确认 `{model}` 的后端接受工具，再声明 `model_info.supports_function_calling: true`",
        },
    }
)
