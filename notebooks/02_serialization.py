# %% [markdown] tags=["en"]
# # Layer 2: serialization
#
# **Question:** what did pi-ai really put on the wire for each tool, and what does each `strict` variant
# force the model to send?
#
# A tool's `strict` can be absent, `null`, `false` or `true`, and each means something different to the
# gateway in front of the model. Absent and `null` are not the same fact, and neither is `false`.

# %% [markdown] tags=["zh-CN"]
# # 第二层：序列化
#
# **问题：** pi-ai 实际为每个工具发到线上的是什么？每种 `strict` 变体迫使模型发送什么？
#
# 工具的 `strict` 可以缺省（absent），也可以是 `null`、`false` 或 `true`；对模型前面的网关而言，每种取值的含义都不同。缺省和 `null` 不是一回事，`false` 也不是。

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.knowledge.dsh_tools import BASH_DESCRIPTION, BASH_PARAMETERS
from toolkit.knowledge.messages import render
from toolkit.knowledge.pi_ai_tools import convert_responses_tools
from toolkit.layers.serialization import compare, convert_tools, validate_arguments, variants
from toolkit.present import i18n
from toolkit.present.widgets import StrictVariantComparer

pd.set_option("display.max_colwidth", 200)
DATA = Path("..") / "data"
bash = {"name": "bash", "description": BASH_DESCRIPTION, "parameters": BASH_PARAMETERS}

# %% [markdown] tags=["en"]
# ## What was sent, before and after the fix
#
# The captures are the proof. Before the fix the route declared no strict support, and `strict` is absent
# from every tool; after `compat.supportsStrictMode: true`, it is `false`.

# %% [markdown] tags=["zh-CN"]
# ## 修复前后发送了什么
#
# 抓包就是证据。修复之前，路由没有声明支持 strict，每个工具都没有 `strict`；设置 `compat.supportsStrictMode: true` 之后，它变成了 `false`。

# %%
before = toolkit.load_capture(DATA / "before-fix" / "capture.har")
after = toolkit.load_capture(DATA / "after-fix" / "capture.har")
pd.DataFrame(
    {
        "before the fix": before.tools.groupby("name")["strict_state"].agg(lambda s: sorted(set(s.astype(str)))),
        "after the fix": after.tools.groupby("name")["strict_state"].agg(lambda s: sorted(set(s.astype(str)))),
    }
)

# %% [markdown] tags=["en"]
# ## Why declaring strict support makes tools *less* strict
#
# pi-ai writes a `strict` key only when the route supports strict mode, and then writes `false` for an
# ordinary tool. Without support the key is simply left out, and OpenAI's Responses API reads a missing
# `strict` as strict: it "will normalize your schema into strict mode … To opt out … explicitly set
# `strict: false`". So `supportsStrictMode: true` is what makes the tools go out non-strict.

# %% [markdown] tags=["zh-CN"]
# ## 为什么声明支持 strict 反而让工具*不那么* strict
#
# 只有当路由支持 strict 模式时，pi-ai 才会写入 `strict` 键，而且对普通工具写的是 `false`。不支持时，这个键被直接省略，而 OpenAI 的 Responses API 把缺失的 `strict` 读作 strict：它 "will normalize your schema into strict mode … To opt out … explicitly set `strict: false`"（会把你的 schema 规范化为 strict 模式；要退出，须显式设置 `strict: false`）。所以，正是 `supportsStrictMode: true` 让工具以非 strict 的方式发出。

# %%
pd.DataFrame(
    [
        {
            "api": api,
            "compat.supportsStrictMode": str(c),
            "strict sent": toolkit.layers.serialization.strict_state(
                convert_tools([bash], api=api, compat=None if c is None else {"supportsStrictMode": c})[0]
            ),
        }
        for api in ("openai-responses", "openai-codex-responses", "openai-completions")
        for c in (None, True, False)
    ]
)

# %% [markdown] tags=["en"]
# ## Why local defaults mislead
#
# Reading pi-ai's source, `convertResponsesTools` defaults `supportsStrictMode` to `true` (`?? true`).
# Called directly, with no options, it does write `strict`:

# %% [markdown] tags=["zh-CN"]
# ## 为什么本地默认值会误导人
#
# 读 pi-ai 的源码会看到，`convertResponsesTools` 把 `supportsStrictMode` 默认为 `true`（`?? true`）。不带任何选项直接调用时，它确实会写入 `strict`：

# %%
toolkit.layers.serialization.strict_state(convert_responses_tools([bash])[0])

# %% [markdown] tags=["en"]
# But no provider calls it that way. The openai-responses provider passes its own resolved value, `false`
# unless compat says otherwise, so the local default never applies, and the captures above agree:

# %% [markdown] tags=["zh-CN"]
# 但没有哪个 provider 这样调用它。openai-responses provider 传入的是它自己解析出的值，除非 compat 另有说明，否则就是 `false`，所以本地默认值从不生效，上面的抓包也印证了这一点：

# %%
toolkit.layers.serialization.strict_state(convert_responses_tools([bash], {"supportsStrictMode": False})[0])

# %% [markdown] tags=["en"]
# ## What each variant forces the model to send

# %% [markdown] tags=["zh-CN"]
# ## 每种变体迫使模型发送什么

# %%
i18n.localize(variants(bash).drop(columns="schema"))  # must_send in the notebook's language

# %% [markdown] tags=["en"]
# Under a gateway's strict reading of an absent `strict`, every field is required and none may be `null`:
# the model must invent a value for `justification`, and `""` is the easiest. That value is valid for the
# schema, and DSH still refuses it:

# %% [markdown] tags=["zh-CN"]
# 当网关对缺省的 `strict` 作 strict 解读时，每个字段都是必填的，而且都不能为 `null`：模型必须为 `justification` 编造一个值，而 `""` 最省事。这个值对 schema 而言是合法的，DSH 却仍然拒绝它：

# %%
filled = before.calls.iloc[0]["arguments"]
filled, validate_arguments(filled, BASH_PARAMETERS)

# %% [markdown] tags=["en"]
# ## Did the gateway receive what pi-ai sent?
#
# `compare` names the variant a captured tool is, and lists every difference from what pi-ai would have
# produced. The lab's captures match exactly; a proxy that rewrote schemas would show up here.

# %% [markdown] tags=["zh-CN"]
# ## 网关收到的是 pi-ai 发出的内容吗？
#
# `compare` 指出抓到的工具属于哪种变体，并列出它与 pi-ai 本应生成的内容之间的每一处差异。实验环境的抓包完全一致；如果有代理改写了 schema，就会在这里显现出来。

# %%
sent = {
    "type": "function",
    "name": "bash",
    "description": BASH_DESCRIPTION,
    "parameters": before.tool_schemas.set_index("schema_hash").loc[before.tools.iloc[0]["schema_hash"], "schema"],
}
compare(sent, bash, api="openai-responses", compat=None)

# %% [markdown] tags=["en"]
# ## Compare two choices
#
# Pick a tool, an API, the compat setting and a gateway behaviour on each side. Changes in `required`,
# nullability and `additionalProperties` are highlighted, with what the model must send under each; above
# them, the tool's strict verdict (accepted, or the first 400 with its path; must-fill; risky fills).

# %% [markdown] tags=["zh-CN"]
# ## 比较两种选择
#
# 在两侧各选一个工具、一种 API、compat 设置和一种网关行为。`required`、可空性和 `additionalProperties` 的变化会被高亮，并附上每种情况下模型必须发送的内容；其上方是该工具的 strict 结论（被接受，或者第一个 400 错误及其路径；必须填写的字段；有风险的填法）。

# %%
StrictVariantComparer(tool="bash")

# %% [markdown] tags=["en"]
# ## Will this tool survive a strict reading?
#
# `strict_verdicts` runs OpenAI's strict rules on every tool a capture sent: whether a strict endpoint
# accepts it as sent (or the first 400, with its JSON path and OpenAI's text), the optional fields a strict
# reading makes the model fill, and what each strict transform makes of it. Here on the DSH run before the fix:

# %% [markdown] tags=["zh-CN"]
# ## 这个工具经得起 strict 解读吗？
#
# `strict_verdicts` 对抓包中发送的每个工具运行 OpenAI 的 strict 规则：strict 端点是否按原样接受它（否则给出第一个 400 错误，附带其 JSON 路径和 OpenAI 的原文）、strict 解读迫使模型填写哪些可选字段，以及每种 strict 转换会把它变成什么。这里用的是修复前的 DSH 运行：

# %%
from toolkit.layers.strict import strict_verdict, strict_verdicts

dsh_before = toolkit.load_capture(DATA / "dsh-before-fix" / "capture.har")
strict_verdicts(dsh_before)[
    ["tool", "uses", "strict_state_sent", "openai_accepts", "first_rule", "first_path", "must_fill"]
]

# %% [markdown] tags=["en"]
# For bash, the fills a forced model tends to send, and what DSH makes of each:

# %% [markdown] tags=["zh-CN"]
# 对于 bash：被迫填写的模型常会发送哪些值，DSH 又如何处理每一种：

# %%
verdict = strict_verdict(bash)
verdict.first, i18n.localize(pd.DataFrame(verdict.risky_fills, dtype=object))

# %% [markdown] tags=["en"]
# ## The same tool through five adapters
#
# pi-ai is one client library among several that turn a tool definition into a `tools` array. The toolkit
# models four more from their real output (`toolkit.knowledge.adapters`): the Vercel AI SDK, the OpenAI
# Agents SDK, LiteLLM used as a client library, and Codex CLI, which sends its own tools rather than ones it
# is given. `convert_tools(..., adapter="name@version", options=…)` asks any of them what it would send.
# Here DSH's bash tool and a tool with a nested schema, on Responses and Chat, through every option of each
# library that takes a definition: what `strict` goes out, whether the parameters are changed, and every
# difference from the definition.

# %% [markdown] tags=["zh-CN"]
# ## 同一个工具经过五个适配器
#
# pi-ai 只是把工具定义转换成 `tools` 数组的众多客户端库之一。工具包还依据真实输出为另外四个建模（`toolkit.knowledge.adapters`）：Vercel AI SDK、OpenAI Agents SDK、作为客户端库使用的 LiteLLM，以及 Codex CLI（它发送的是自己的工具，而不是别人交给它的工具）。`convert_tools(..., adapter="name@version", options=…)` 可以询问其中任何一个会发送什么。下面是 DSH 的 bash 工具和一个带嵌套 schema 的工具，分别在 Responses 和 Chat 上，经过每个接受定义的库的每一个选项：发出的 `strict` 是什么、参数是否被修改，以及与定义之间的每一处差异。

# %%
from toolkit.knowledge import adapters
from toolkit.layers.attribution import attribute_capture
from toolkit.layers.serialization import schema_changes, strict_state

issue = {
    "name": "create_issue",
    "description": "Open an issue with a title and labels.",
    "parameters": {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "labels": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "color": {"type": "string"}},
                    "required": ["name"],
                },
            },
        },
        "required": ["title"],
    },
}


def through_adapters(definition: dict) -> pd.DataFrame:
    rows = []
    for profile in adapters.available():
        if profile.own_tools:  # Codex: its own tools, not this definition
            continue
        for api in profile.apis:
            for settings in adapters.combinations(profile.id):
                sent = convert_tools([definition], adapter=profile.id, api=api, options=settings)[0]
                flat = sent.get("function", sent)
                changes = schema_changes(definition, {k: v for k, v in flat.items() if k != "type"})
                rows.append(
                    {
                        "adapter": profile.name,
                        "version": profile.default_version,
                        "api": f"{api} ({adapters.WIRE_API[(profile.id, api)]})",
                        "options": adapters.describe_options(profile.id, settings),
                        "strict sent": strict_state(sent),
                        "parameters changed?": flat.get("parameters") != definition["parameters"],
                        "differences from the definition": "; ".join(f"{p} {k}" for p, k, _, _ in changes) or "none",
                    }
                )
    return pd.DataFrame(rows)


through_adapters(bash)

# %% [markdown] tags=["en"]
# The nested tool: only the Agents SDK's strict transform (`strict_json_schema` true, its default) rewrites
# the parameters, down into the nested items; pi-ai's transform applies only to a tool that asks for
# constrained sampling, and the others send the schema as given.

# %% [markdown] tags=["zh-CN"]
# 嵌套的工具：只有 Agents SDK 的 strict 转换（`strict_json_schema` 为 true，即其默认值）会改写参数，一直深入到嵌套的 items；pi-ai 的转换只作用于要求受约束采样（constrained sampling）的工具，其他库都按原样发送 schema。

# %%
through_adapters(issue)

# %% [markdown] tags=["en"]
# ## Which client sent these tools?
#
# `attribute` turns the question around: given a captured `tools` array, which adapter, version and options
# reproduce it exactly? Without the client's definitions (an unknown client's are not in the capture) each
# tool's own schema stands in for its definition. Ties are ties: a pass-through library sends what it was
# given, so it matches whatever it was given. On the pi-ai capture before the fix:

# %% [markdown] tags=["zh-CN"]
# ## 这些工具是哪个客户端发送的？
#
# `attribute` 把问题反过来问：给定抓到的 `tools` 数组，哪个适配器、版本和选项能精确地复现它？没有客户端的定义时（未知客户端的定义不在抓包里），就用每个工具自己的 schema 代替它的定义。平局就是平局：透传型的库发送的就是它收到的东西，所以它与收到的任何东西都匹配。以下是修复前 pi-ai 的抓包：

# %%
attribution = attribute_capture(toolkit.load_capture(DATA / "before-fix" / "capture.har", keep_bodies=True))
print(render(attribution.attrs["verdict"], i18n.language()))
attribution[attribution["match"]][["adapter", "version", "api", "options", "exact", "tools"]]

# %% [markdown] tags=["en"]
# And the closest profile of each library that does not match, with what it would have sent differently:

# %% [markdown] tags=["zh-CN"]
# 以及每个不匹配的库中最接近的配置（profile），附上它本会发送的不同之处：

# %%
misses = attribution[~attribution["match"]].groupby("adapter", sort=False).head(1)
misses[["name", "version", "api", "options", "exact", "tools", "differences"]]

# %% [markdown] tags=["en"]
# ## On your own setup
#
# * Load a capture and look at `capture.tools["strict_state"]` per endpoint: absent on a Responses route
#   means the gateway decides.
# * `compare(sent_tool, definition, api=…, compat=…)` on a tool from a capture behind your gateway shows
#   whether anything in between rewrote it.

# %% [markdown] tags=["zh-CN"]
# ## 用于你自己的环境
#
# * 载入一份抓包，按端点查看 `capture.tools["strict_state"]`：在 Responses 路由上为 absent，意味着由网关来决定。
# * 对从你的网关后面抓到的工具运行 `compare(sent_tool, definition, api=…, compat=…)`，可以看出中间是否有东西改写了它。
