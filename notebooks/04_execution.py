# %% [markdown] tags=["en"]
# # Layer 4: execution
#
# **Question:** what does DSH's runtime accept, call by call, and which policy change would have avoided
# each failure?
#
# DSH validates every tool call in a fixed order: the JSON schema it advertised, the tool's own checks,
# the pairing of `sandbox_permissions` and `justification`, a non-empty justification, strict widening
# against the mode the call runs under, then approval. The first check that fails decides the message.

# %% [markdown] tags=["zh-CN"]
# # 第四层：执行
#
# **问题：** DSH 的运行时逐个调用地接受什么？每一次失败，本可以由哪一项策略改动避免？
#
# DSH 按固定顺序校验每个工具调用：它所声明的 JSON schema、工具自身的检查、`sandbox_permissions` 与
# `justification` 是否成对出现、justification 是否非空、所请求的模式是否严格宽于调用所在的模式，最后是审批。
# 第一个未通过的检查决定报错信息。

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis.whatif import prune_schema, whatif
from toolkit.layers.execution import check_call, replay
from toolkit.present.widgets import WhatIfExplorer

pd.set_option("display.max_colwidth", 140)
DATA = Path("..") / "data"

# %% [markdown] tags=["en"]
# ## One call, checked
#
# The model filled every optional field, as a strict schema forces it to:

# %% [markdown] tags=["zh-CN"]
# ## 检查一个调用
#
# 模型填写了每一个可选字段，这正是 strict schema 强制它做的：

# %%
filled = {
    "command": "ls -la",
    "description": "List files in the workspace",
    "timeoutMs": 120000,
    "workdir": ".",
    "run_in_background": False,
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}
check_call("bash", filled, mode="danger-full-access")

# %% [markdown] tags=["en"]
# The empty justification fails at stage 3c, before any mode is compared. Filled in, the retry reaches
# the widening check, and fails there: a session in `danger-full-access` has no wider mode.

# %% [markdown] tags=["zh-CN"]
# 空的 justification 在 3c 阶段就失败了，此时还没有比较任何模式。填上之后，重试会走到提权检查并在那里失败：
# 处于 `danger-full-access` 的会话没有更宽的模式。

# %%
check_call("bash", {**filled, "justification": "Listing the workspace needs full access."}, mode="danger-full-access")

# %% [markdown] tags=["en"]
# DSH 0.1.6-alpha.2 accepts a request for the current mode as a no-op. It does not change stage 3c:

# %% [markdown] tags=["zh-CN"]
# DSH 0.1.6-alpha.2 把对当前模式的请求当作无操作接受，但这并不改变 3c 阶段：

# %%
[
    check_call("bash", args, mode="danger-full-access", dsh="0.1.6-alpha.2").message
    for args in (filled, {**filled, "justification": "Listing the workspace needs full access."})
]

# %% [markdown] tags=["en"]
# ## The session, replayed
#
# `mode`, the mode each call ran under, comes from the session's own `sandbox/mode` event; the approval
# outcome from its approval policy (`never` in `danger-full-access`). An escalation DSH approves keeps its
# `mode` and names the mode it was granted for that one call in `granted_mode` (empty here: nothing was
# approved). Each verdict stands beside the result DSH recorded. The session log is the one the published
# DSH 0.1.0-rc.8 wrote in the lab's before-fix run, and the settings are the file it was given.

# %% [markdown] tags=["zh-CN"]
# ## 重放会话
#
# `mode` 是每个调用运行时所在的模式，取自会话自己的 `sandbox/mode` 事件；审批结果取自会话的审批策略
# （在 `danger-full-access` 下为 `never`）。DSH 批准的提权保留原来的 `mode`，并在 `granted_mode` 中写明
# 仅为这一次调用授予的模式（此处为空：没有任何调用获批）。每条结论旁边都列出 DSH 记录的结果。会话日志来自
# 实验室修复前的那次运行，由已发布的 DSH 0.1.0-rc.8 写出；配置就是当时交给它的那个文件。

# %%
DSH = "0.1.0-rc.8"
session = toolkit.load_capture(DATA / "dsh-before-fix" / "session.jsonl.zstd")
settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml", env={}, dsh=DSH)
replay(session, settings=settings, dsh=DSH)[
    ["call_id", "tool", "mode", "granted_mode", "mode_source", "stage", "message", "agrees"]
]

# %% [markdown] tags=["en"]
# `agrees` is true on every row: the model of DSH reproduces what DSH did. A `False` there would mean
# the model or the version is wrong, and it would be shown, not hidden.
#
# ## What if
#
# Four policy changes, replayed call by call, each in the mode the call ran under (never in a granted one):

# %% [markdown] tags=["zh-CN"]
# 每一行的 `agrees` 都为真：DSH 的模型复现了 DSH 的实际行为。若出现 `False`，就说明模型或版本有误，
# 而且它会被显示出来，不会被隐藏。
#
# ## 假如（what if）
#
# 四项策略改动，逐个调用重放，每个调用都在它运行时所在的模式下重放（绝不在获授予的模式下）：

# %%
whatif(session, dsh=DSH).pivot(index="call_id", columns="policy", values="outcome")

# %% [markdown] tags=["en"]
# Same-mode acceptance alone does not save the first call: the empty justification fails first. Pruning
# the schema removes the escalation fields in `danger-full-access`, where no wider mode exists:

# %% [markdown] tags=["zh-CN"]
# 仅接受同模式请求救不了第一个调用：空的 justification 会先失败。裁剪 schema 则会在 `danger-full-access`
# 下去掉提权字段，因为那里不存在更宽的模式：

# %%
from toolkit.knowledge.dsh_tools import schema_for

sorted(prune_schema(schema_for("bash"), "danger-full-access")["properties"])

# %% [markdown] tags=["en"]
# Try other modes, DSH versions and policies:

# %% [markdown] tags=["zh-CN"]
# 试试其他模式、DSH 版本和策略：

# %%
WhatIfExplorer(session)

# %% [markdown] tags=["en"]
# ## On your own setup
#
# * `replay(load_capture("session.jsonl.zstd"))` for a DSH session; for an HTTP capture pass the mode:
#   `replay(capture, mode="workspace-write")`.
# * Rows with `agrees == False` deserve a look before anything else.

# %% [markdown] tags=["zh-CN"]
# ## 在你自己的环境中
#
# * DSH 会话用 `replay(load_capture("session.jsonl.zstd"))`；HTTP 抓包则需传入模式：
#   `replay(capture, mode="workspace-write")`。
# * `agrees == False` 的行最值得优先查看。
