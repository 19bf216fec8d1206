# %% [markdown] tags=["en"]
# # A busy day at the gateway
#
# **Question:** what happened across a day of gateway traffic: which errors, in which layer, on which
# route, and which routes sent which `strict`?
#
# The gateway's own JSONL log: 300 exchanges from four routes (each under its own path) and three
# models, with rate limits, server errors, cut streams and failed responses mixed in with the incident.

# %% [markdown] tags=["zh-CN"]
# # 网关忙碌的一天
#
# **问题：** 网关一整天的流量里发生了什么：有哪些错误、属于哪一层、出在哪条路由上，哪些路由发送了哪种
# `strict`？
#
# 数据是网关自己的 JSONL 日志：来自四条路由（各有自己的路径）和三个模型的 300 次交换，其中除了这次事故，
# 还混有限流、服务器错误、被截断的流和失败的响应。

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import toolkit
from toolkit.analysis import questions
from toolkit.present import plots
from toolkit.present.widgets import CaptureExplorer

pd.set_option("display.max_colwidth", 160)
day = toolkit.load_capture(Path("..") / "data" / "busy-day" / "gateway.jsonl")
day.summary()

# %% [markdown] tags=["en"]
# The ten problems are streams the gateway cut before their terminal event: they are exchanges, read and
# counted, not lost lines.
#
# ## Errors, placed in their layer

# %% [markdown] tags=["zh-CN"]
# 这十个问题是网关在终止事件之前截断的流：它们是被读取并计数的交换，而不是丢失的行。
#
# ## 错误，归入各自的层

# %%
by_route = questions.errors_by_layer_route(day)  # triage.errors, counted per endpoint, layer and rule
by_route.pivot_table(
    index=["layer", "rule_id"], columns="endpoint", values="errors", aggfunc="sum", fill_value=0, observed=True
)

# %%
fig, ax = plt.subplots(figsize=(10, 4))
plots.errors_by_layer(day, ax=ax)
plt.show()

# %% [markdown] tags=["en"]
# ## Over time

# %% [markdown] tags=["zh-CN"]
# ## 随时间变化

# %%
fig, ax = plt.subplots(figsize=(12, 4.5))
plots.timeline(day, ax=ax)
plt.show()

# %%
hourly = day.exchanges.set_index("started_at").resample("1h")["terminal"].value_counts().unstack(fill_value=0)
hourly.index = hourly.index.strftime("%H:00")
hourly

# %% [markdown] tags=["en"]
# ## Latency

# %% [markdown] tags=["zh-CN"]
# ## 延迟

# %%
questions.latency_by_terminal(day)

# %% [markdown] tags=["en"]
# ## Which routes sent which `strict`

# %% [markdown] tags=["zh-CN"]
# ## 哪些路由发送了哪种 `strict`

# %%
fig, ax = plt.subplots(figsize=(8, 3.5))
plots.strict_matrix(day, ax=ax)
plt.show()

# %%
questions.strict_by_endpoint(day)

# %% [markdown] tags=["en"]
# The `gateway` route sends no `strict` at all and `codex-proxy` sends `strict: null`: theirs are the
# calls that fill every optional field of `bash`, many of them with an empty `justification`. Per
# endpoint, tool and optional field of the tool's schema: how many calls could fill it, how many did,
# and how many with an empty value (`""`, `null` or `"null"`).

# %% [markdown] tags=["zh-CN"]
# `gateway` 路由完全不发送 `strict`，`codex-proxy` 发送 `strict: null`：正是它们的调用填写了 `bash`
# 的每一个可选字段，其中许多带着空的 `justification`。下表按端点、工具和该工具 schema 中的每个可选字段统计：
# 有多少调用可以填写它、多少实际填写了、其中多少填的是空值（`""`、`null` 或 `"null"`）。

# %%
questions.filled_optional(day)

# %% [markdown] tags=["en"]
# ## Which requests carried images

# %% [markdown] tags=["zh-CN"]
# ## 哪些请求带了图片

# %%
parts = day.input_parts  # each part once; inputs_wide puts them back in every request that sent them
images = day.inputs_wide(parts=parts[parts["part_type"] == "input_image"]).merge(
    day.exchanges[["exchange_id", "endpoint", "model", "status"]]
)
images.groupby(["endpoint", "model", "status"], observed=True).size().rename("image parts").to_frame()

# %% [markdown] tags=["en"]
# ## Explore
#
# Filter by endpoint, model, status, error layer and time; select an exchange to see its tools, input
# parts, calls and errors.

# %% [markdown] tags=["zh-CN"]
# ## 探索
#
# 按端点、模型、状态、错误所在的层和时间筛选；选中一次交换即可查看它的工具、输入部分、调用和错误。

# %%
CaptureExplorer(day)

# %% [markdown] tags=["en"]
# ## The same questions in DuckDB
#
# For a log that does not fit in pandas: `agent-contract ingest` (or `toolkit.capture.dataset.ingest`)
# streams it into a Parquet dataset in bounded memory, partitioned by source and day, and
# `toolkit.analysis.sql` answers the same four questions in DuckDB over the files (the `scale` extra),
# returning the same frames. Only distinct errors come back to Python for triage.

# %% [markdown] tags=["zh-CN"]
# ## 在 DuckDB 中回答同样的问题
#
# 对于 pandas 装不下的日志：`agent-contract ingest`（或 `toolkit.capture.dataset.ingest`）以有限的内存把它
# 流式写入按来源和日期分区的 Parquet 数据集，`toolkit.analysis.sql` 则在 DuckDB 中直接基于这些文件回答同样的
# 四个问题（需要 `scale` 可选依赖），返回相同的 DataFrame。只有去重后的错误会回到 Python 中做归类（triage）。

# %%
import tempfile

from IPython.display import display

from toolkit.analysis import sql
from toolkit.capture import dataset

out = Path(tempfile.mkdtemp()) / "busy-day"
entry = dataset.ingest(Path("..") / "data" / "busy-day" / "gateway.jsonl", out, progress=False)
display({"records": entry["records"], **{frame: n for frame, n in entry["rows"].items() if n}})  # the manifest's counts
in_duckdb = sql.errors_by_layer_route(out)
pd.testing.assert_frame_equal(in_duckdb, by_route)  # the same answer as pandas gave above
in_duckdb.groupby("layer", observed=True)["errors"].sum().to_frame()

# %% [markdown] tags=["en"]
# Every request resends the conversation so far, so the dataset stores each request's input only past the
# longest earlier input it begins with (`input_prefixes`); `expand` puts every part sent back, as
# `Capture.inputs_sent()` does in memory.

# %% [markdown] tags=["zh-CN"]
# 每个请求都会重发此前的整段对话，因此对每个请求，数据集先找出它开头所包含的最长的先前输入，只存储其后的
# 部分（`input_prefixes`）；`expand` 会把发送过的每个部分还原回来，就像 `Capture.inputs_sent()` 在内存中所做的那样。

# %%
from toolkit.capture.inputs import expand

sent = expand(
    dataset.read_frame(out, "inputs"),
    dataset.read_frame(out, "input_prefixes"),
    dataset.read_frame(out, "exchanges")["exchange_id"],
)
pd.testing.assert_frame_equal(sent, day.inputs_sent())
rows = entry["rows"]
{"inputs_sent": len(sent), "inputs": rows["inputs"], "input_prefixes": rows["input_prefixes"]}  # rows per frame

# %% [markdown] tags=["en"]
# ## On your own logs
#
# `load_capture` reads the toolkit's JSONL shape, LiteLLM spend logs and Helicone JSONL exports
# (see the README); `triage.errors(capture)` places every error, `toolkit.analysis.questions` answers
# this notebook's questions for any capture (`toolkit.analysis.sql` for a Parquet dataset), and the three
# plots take any capture.

# %% [markdown] tags=["zh-CN"]
# ## 用在你自己的日志上
#
# `load_capture` 能读取本工具包的 JSONL 格式、LiteLLM 的 spend 日志和 Helicone 的 JSONL 导出（见 README）；
# `triage.errors(capture)` 把每个错误归入它所在的层，`toolkit.analysis.questions` 可对任何捕获记录回答本笔记本的
# 问题（Parquet 数据集用 `toolkit.analysis.sql`），三种图表也适用于任何捕获记录。
