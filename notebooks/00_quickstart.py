# %% [markdown] tags=["en"]
# # Quick start: four layers, one verdict each
#
# An agent's tool call can fail in four places: the **configuration** (what the settings resolve to),
# the **serialization** (what pi-ai really put on the wire), the **capability** (which inputs the model
# entry declares) and the **execution** (what DSH's runtime accepts). This notebook loads one run of the
# published DSH CLI (0.1.0-rc.8, run headless by the lab) before the fix: the HAR of its traffic, the session
# log DSH wrote and the settings file DSH was given, and asks each layer for its verdict.

# %% [markdown] tags=["zh-CN"]
# # 快速上手：四层，每层一个结论
#
# 智能体（agent）的一次工具调用可能在四个地方出错：**配置**（设置最终解析成什么）、**序列化**（pi-ai 实际发到线上的内容）、**能力**（模型条目声明了哪些输入）和**执行**（DSH 的运行时接受什么）。本 notebook 载入已发布的 DSH CLI（0.1.0-rc.8，由实验环境以 headless 方式运行）在修复之前的一次运行：它的流量的 HAR、DSH 写下的会话日志和交给 DSH 的设置文件，然后请每一层给出结论。

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis.verify import verify
from toolkit.present import i18n, report

pd.set_option("display.max_colwidth", 200)
DATA = Path("..") / "data"
DSH = "0.1.0-rc.8"  # the DSH release that ran

# %% [markdown] tags=["en"]
# A capture is any file the toolkit can read: a HAR from mitmproxy, a gateway's JSONL log, a DSH
# session log. The format is detected from the content. Every entry becomes a row or a problem, and
# the summary shows that the counts reconcile.

# %% [markdown] tags=["zh-CN"]
# 抓包（capture）可以是工具包能读取的任何文件：mitmproxy 的 HAR、网关的 JSONL 日志、DSH 的会话日志。格式根据内容自动识别。每个条目要么成为一行，要么成为一个问题（problem），摘要会显示各项计数能够对上。

# %%
capture = toolkit.load_captures(
    [DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"]
)
capture.summary()

# %% [markdown] tags=["en"]
# The settings are DSH's `settings.yaml`, read with the pi-ai that DSH release loads. Only the name of the
# API key variable is read, never a key (here it is unset, hence a warning).

# %% [markdown] tags=["zh-CN"]
# 设置就是 DSH 的 `settings.yaml`，用该 DSH 版本所加载的 pi-ai 来读取。只读取 API 密钥变量的名称，从不读取密钥本身（这里该变量未设置，所以有一条警告）。

# %%
settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml", env={}, dsh=DSH)
settings

# %% [markdown] tags=["en"]
# The four verdicts, each with the evidence it rests on and the fix:

# %% [markdown] tags=["zh-CN"]
# 四个结论，各附有所依据的证据和修复方法：

# %%
result = verify(settings, capture, dsh=DSH)
report.view(result)

# %% [markdown] tags=["en"]
# Three layers fail, and they fail together: the route does not declare strict support, so pi-ai
# leaves `strict` out; the gateway reads that as strict; the model fills every optional field,
# `"justification": ""` among them; and DSH refuses the call:
# `invalid justification: expected a non-empty sentence`. Its retry asks for the mode the session
# already has, and DSH refuses again:
# `sandbox escalation to "danger-full-access" is not strictly wider than this call's current "danger-full-access" mode`.
# Then the model asks for the screenshot, and DSH refuses `read_image` before sending anything, because
# the model entry declares no image input: `model "gw-coder" does not declare image input`.
#
# After the fix, the same task passes: no layer fails. The ordinary `bash` call runs, and the screenshot
# the model then reads goes out to the gateway, which takes it.

# %% [markdown] tags=["zh-CN"]
# 有三层失败，而且是连锁失败：路由没有声明支持 strict，于是 pi-ai 省略了 `strict`；网关把省略读作 strict；模型于是填写了每一个可选字段，其中包括 `"justification": ""`；DSH 拒绝了这次调用：`invalid justification: expected a non-empty sentence`。模型重试时请求的是会话已经处于的模式，DSH 再次拒绝：`sandbox escalation to "danger-full-access" is not strictly wider than this call's current "danger-full-access" mode`。随后模型请求读取截图，DSH 在发送任何内容之前就拒绝了 `read_image`，因为模型条目没有声明图像输入：`model "gw-coder" does not declare image input`。
#
# 修复之后，同一任务顺利通过：没有任何一层失败。普通的 `bash` 调用得以运行，模型随后读取的截图也发到了网关，网关接受了它。

# %%
after = verify(
    toolkit.load_settings(DATA / "dsh-after-fix" / "settings.yaml", env={"GATEWAY_API_KEY": "set"}, dsh=DSH),
    toolkit.load_captures([DATA / "dsh-after-fix" / "capture.har", DATA / "dsh-after-fix" / "session.jsonl.zstd"]),
    dsh=DSH,
)
# the verdicts as a table, in the notebook's language (the frame keeps English identifiers)
i18n.localize(after.table, ["layer", "verdict", "summary"], words={"layer": "layer", "verdict": "verdict"})

# %% [markdown] tags=["en"]
# ## Where to go next
#
# | question | notebook |
# | --- | --- |
# | What do my settings resolve to, and where did each value come from? | `01_config` |
# | What did pi-ai send, and what does each `strict` variant force the model to do? | `02_serialization` |
# | Which images reached a model that takes them? | `03_capability` |
# | What does DSH accept, and which policy change avoids which failure? | `04_execution` |
# | What happened on a busy day at the gateway? | `05_proxy_logs` |
# | Write it up | `06_postmortem` |
# | Which hop (a proxy, a gateway) changed the request? | `07_who_changed_what` |
# | Does the fix really change what the model does? Replay the request as variants | `08_prove_the_fix` |
#
# To check your own setup, point `load_settings` at your `settings.yaml` and `load_captures` at your
# captures; from a shell, `agent-contract summary <files>` and `agent-contract config <settings.yaml>`.

# %% [markdown] tags=["zh-CN"]
# ## 下一步
#
# | 问题 | notebook |
# | --- | --- |
# | 我的设置解析成了什么？每个值从何而来？ | `01_config` |
# | pi-ai 发送了什么？每种 `strict` 变体迫使模型做什么？ | `02_serialization` |
# | 哪些图像到达了能接收图像的模型？ | `03_capability` |
# | DSH 接受什么？哪项策略变更能避免哪种失败？ | `04_execution` |
# | 网关繁忙的一天里发生了什么？ | `05_proxy_logs` |
# | 写成报告 | `06_postmortem` |
# | 是哪一跳（代理、网关）改动了请求？ | `07_who_changed_what` |
# | 修复真的改变了模型的行为吗？把请求作为变体重放 | `08_prove_the_fix` |
#
# 要检查你自己的环境，把 `load_settings` 指向你的 `settings.yaml`，把 `load_captures` 指向你的抓包文件；在 shell 中可以用 `agent-contract summary <files>` 和 `agent-contract config <settings.yaml>`。
