# %% [markdown] tags=["en"]
# # Who changed what
#
# Every investigation of this kind ends with six questions: who defined the field, who changed the
# schema, who interpreted `strict`, who declared the model's capability, who finally validated the
# parameters, and who owns the real permission state. This notebook answers them from evidence, and says
# "unknown" where the evidence does not reach, naming the capture that would settle it.
#
# The lab recorded the same traffic twice around a rewriting proxy, modelled on OpenAI-compatible
# converters: once in front of it (`front`) and once behind it (`back`).

# %% [markdown] tags=["zh-CN"]
# # 谁改了什么
#
# 这类调查最后都归结为六个问题：谁定义了这个字段，谁改了 schema，谁解释了 `strict`，谁声明了模型的能力，
# 谁最终校验了参数，谁掌握真实的权限状态。本笔记本根据证据回答这些问题；证据够不到的地方就写明“未知”（unknown），
# 并指出哪份捕获记录能够定论。
#
# 实验室在一个仿照 OpenAI 兼容转换器写成的改写代理两侧，把同一批流量录了两次：一次在它前面（`front`），
# 一次在它后面（`back`）。

# %%
import json
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis import hops
from toolkit.analysis.provenance import table
from toolkit.present import i18n

pd.set_option("display.max_colwidth", 160)


def shown(rows):
    """Provenance rows in the notebook's language; the table itself keeps its English identifiers."""
    return i18n.localize(rows, words={"question": "provenance.question"})


DATA = Path("..") / "data"
front = toolkit.load_capture(DATA / "two-hop-strict" / "front.har", keep_bodies=True)
back = toolkit.load_capture(DATA / "two-hop-strict" / "back.har", keep_bodies=True)

# %% [markdown] tags=["en"]
# ## Pairing the requests across the hop
#
# The same request is found on both sides by its conversation (the user's and the tools' texts), its
# tools and its time; each pairing says how sure it is.

# %% [markdown] tags=["zh-CN"]
# ## 跨越一跳配对请求
#
# 根据对话内容（用户和工具的文本）、工具和时间，在两侧找出同一个请求；每个配对都注明它有多大把握。

# %%
pairs = hops.align(front, back)
i18n.localize(
    pairs, ["pair_id", "a_exchange", "b_exchange", "delta_ms", "relation", "confidence", "margin_ms", "basis"]
)

# %% [markdown] tags=["en"]
# ## What the proxy changed

# %% [markdown] tags=["zh-CN"]
# ## 代理改了什么

# %%
changes = hops.diff(front, back, pairs)
changes.groupby("kind", observed=True).size().rename("changes").to_frame()

# %%
changes[changes["a_exchange"] == pairs.iloc[0]["a_exchange"]][["tool", "path", "kind", "before", "after"]]

# %% [markdown] tags=["en"]
# The proxy keeps its own log of what it did; the diff above finds the same changes from the two captures
# alone:

# %% [markdown] tags=["zh-CN"]
# 代理自己也记录了它做过的事；上面的差异比对仅凭两份捕获记录就找到了相同的改动：

# %%
log = [json.loads(line) for line in (DATA / "two-hop-strict" / "rewriter.jsonl").read_text().splitlines()]
pd.Series([c["kind"] for entry in log for c in entry["changes"]]).value_counts().rename("in the proxy's log").to_frame()

# %% [markdown] tags=["en"]
# ## A protocol conversion
#
# The second proxy mode turns a Responses request into a Chat Completions request:

# %% [markdown] tags=["zh-CN"]
# ## 协议转换
#
# 代理的第二种模式把 Responses 请求转换为 Chat Completions 请求：

# %%
chat_front = toolkit.load_capture(DATA / "two-hop-chat" / "front.har", keep_bodies=True)
chat_back = toolkit.load_capture(DATA / "two-hop-chat" / "back.har", keep_bodies=True)
chat_changes = hops.diff(chat_front, chat_back)
chat_changes.groupby("kind", observed=True).size().rename("changes").to_frame()

# %% [markdown] tags=["en"]
# ## The six questions, before the fix
#
# One hop (the recorder in front of the gateway) and the session log DSH wrote, from one run of the
# published DSH 0.1.0-rc.8 with the settings file it was given:

# %% [markdown] tags=["zh-CN"]
# ## 修复前的六个问题
#
# 一跳（网关前面的录制器）加上 DSH 写出的会话日志，来自已发布的 DSH 0.1.0-rc.8 使用交给它的配置文件进行的
# 一次运行：

# %%
before = table(
    DATA / "dsh-before-fix" / "settings.yaml",
    captures=[DATA / "dsh-before-fix" / "capture.har"],
    sessions=[DATA / "dsh-before-fix" / "session.jsonl.zstd"],
)
shown(
    before[before["field"].isin(["bash.strict", "bash.justification", "gw-coder.input"])][
        ["field", "question", "answer", "actor", "settled"]
    ]
)

# %% [markdown] tags=["en"]
# `settled` is false where the evidence stops. With only the gateway's HTTP traffic and no session log,
# the permission state and who validated the calls are unknown, and the table says what would settle them:

# %% [markdown] tags=["zh-CN"]
# 证据中断之处 `settled` 为 false。只有网关的 HTTP 流量而没有会话日志时，权限状态和谁校验了调用都是未知的，
# 表格会说明什么证据能够定论：

# %%
http_only = table(DATA / "dsh-before-fix" / "settings.yaml", captures=[DATA / "dsh-before-fix" / "capture.har"])
shown(
    http_only[~http_only["settled"].astype(bool)][["field", "question", "answer", "evidence"]].drop_duplicates(
        "question"
    )
)

# %% [markdown] tags=["en"]
# ## The six questions across the rewriting proxy
#
# With both hops, "who changed the schema" has an answer:

# %% [markdown] tags=["zh-CN"]
# ## 跨越改写代理的六个问题
#
# 有了两跳的记录，“谁改了 schema”就有了答案：

# %%
two_hop = table(
    DATA / "configs" / "settings.before.yaml",
    captures=[DATA / "two-hop-strict" / "front.har", DATA / "two-hop-strict" / "back.har"],
)
shown(two_hop[two_hop["field"] == "bash.strict"][["question", "answer", "actor", "evidence"]])

# %% [markdown] tags=["en"]
# ## A real gateway: LiteLLM 1.110.2
#
# The rewriting proxy above is the lab's stand-in. `data/litellm-*` put the real LiteLLM proxy between the
# two recorders: pi-ai → recorder → LiteLLM → recorder → stub backend. On its Responses route the body
# goes through unchanged; when it serves a Responses client from a Chat Completions backend
# (`use_chat_completions_api`), it rewrites the request. Every change `hops.diff` finds on that route:

# %% [markdown] tags=["zh-CN"]
# ## 真实的网关：LiteLLM 1.110.2
#
# 上面的改写代理是实验室的替身。`data/litellm-*` 把真实的 LiteLLM 代理放在两个录制器之间：
# pi-ai → 录制器 → LiteLLM → 录制器 → 桩后端。在它的 Responses 路由上，请求体原样通过；当它用 Chat Completions
# 后端为 Responses 客户端服务时（`use_chat_completions_api`），它会改写请求。`hops.diff` 在这条路由上发现的全部改动：

# %%
bridge_front = toolkit.load_capture(DATA / "litellm-responses-to-chat" / "front.har", keep_bodies=True)
bridge_back = toolkit.load_capture(DATA / "litellm-responses-to-chat" / "back.har", keep_bodies=True)
bridge = hops.diff(bridge_front, bridge_back)
bridge[~bridge["kind"].str.startswith("header")][["pair_id", "tool", "path", "kind", "before", "after"]]

# %% [markdown] tags=["en"]
# `strict: false` is written where pi-ai sent no `strict` at all, so the Chat backend reads the tools as
# non-strict, while the same tools on LiteLLM's Responses route would have reached a backend that reads
# an absent `strict` as strict. The provenance table names LiteLLM from the `x-litellm-version` header it
# returns, not "the gateway":

# %% [markdown] tags=["zh-CN"]
# 在 pi-ai 根本没有发送 `strict` 的地方被写入了 `strict: false`，于是 Chat 后端把这些工具视为非 strict；而同样的
# 工具若走 LiteLLM 的 Responses 路由，到达的后端会把缺失的 `strict` 视为 strict。溯源表根据 LiteLLM 返回的
# `x-litellm-version` 响应头点名 LiteLLM，而不是笼统地说“网关”：

# %%
litellm = table(
    captures=[DATA / "litellm-responses-to-chat" / "front.har", DATA / "litellm-responses-to-chat" / "back.har"]
)
shown(litellm[litellm["field"] == "bash.strict"][["question", "answer", "actor", "evidence"]])

# %% [markdown] tags=["en"]
# ## On your own setup
#
# Record the same traffic on both sides of a proxy (two recorders), load both with `keep_bodies=True`, and
# pass them to `table(settings, captures=[client_side, model_side], sessions=[...])`, client side first.
# `agent-contract verify` prints the same table.

# %% [markdown] tags=["zh-CN"]
# ## 在你自己的环境中
#
# 在代理两侧录制同一批流量（两个录制器），用 `keep_bodies=True` 加载两者，再按客户端一侧在前的顺序传给
# `table(settings, captures=[client_side, model_side], sessions=[...])`。`agent-contract verify` 会打印同样的表格。
