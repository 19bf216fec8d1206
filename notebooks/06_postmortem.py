# %% tags=["parameters"]
# The evidence for this write-up: change these lines and run all cells.
SETTINGS = "../data/dsh-before-fix/settings.yaml"
CAPTURES = ["../data/dsh-before-fix/capture.har", "../data/dsh-before-fix/session.jsonl.zstd"]
DSH = "0.1.0-rc.8"  # the DSH release that ran
TITLE = "Tool calls refused after the gateway migration"
# a folder written by `agent-contract experiment` (the captured request replayed as variants); None: no such section
EXPERIMENT = "../data/experiment-before-fix"

# %% [markdown] tags=["en"]
# # Postmortem
#
# This notebook is a template. The first cell names a settings file, the captures and the DSH release
# that ran; running it writes the incident up from them: the timeline, the evidence of each layer, the
# root causes and the fixes, and, when it names an experiment folder, the experiment that proves the fix.
# `make postmortem` renders it to a single HTML file under `reports/`.

# %% [markdown] tags=["zh-CN"]
# # 事后复盘
#
# 本笔记本是一个模板。开头的参数单元格指定配置文件、捕获记录和所运行的 DSH 版本；运行它便会据此把事故写成
# 复盘：时间线、各层的证据、根因和修复；如果还指定了实验文件夹，则附上证明修复有效的实验。
# `make postmortem` 会把它渲染成 `reports/` 下的单个 HTML 文件。

# %%
import pandas as pd
from IPython.display import Markdown, display

import toolkit
from toolkit.analysis.triage import errors
from toolkit.analysis.verify import verify
from toolkit.analysis.whatif import whatif
from toolkit.layers.capability import check
from toolkit.layers.config import suggest_fix
from toolkit.layers.execution import replay
from toolkit.present import plots, report

pd.set_option("display.max_colwidth", 160)
settings = toolkit.load_settings(SETTINGS, env={}, dsh=DSH)
capture = toolkit.load_captures(CAPTURES)
result = verify(settings, capture, dsh=DSH)
display(Markdown(f"## {TITLE}"))

# %% [markdown] tags=["en"]
# ## Summary

# %% [markdown] tags=["zh-CN"]
# ## 摘要

# %%
report.view(result)

# %% [markdown] tags=["en"]
# ## Timeline

# %% [markdown] tags=["zh-CN"]
# ## 时间线

# %%
events = []
for e in capture.exchanges.itertuples():
    calls = capture.calls[capture.calls["exchange_id"] == e.exchange_id]
    events.append(
        {
            "time": e.started_at,
            "source": e.source,
            "what": f"{e.api} request to {e.model}",
            "outcome": f"{e.status if pd.notna(e.status) else ''} {e.terminal}".strip(),
            "calls": ", ".join(calls["name"].astype(str)),
        }
    )
# each tool result at the time of its `tool/result` event: the n-th result of a step is its n-th event
results = capture.events.loc[capture.events["type"] == "tool/result", ["exchange_id", "time"]]
results = results.assign(n=results.groupby("exchange_id").cumcount())
tool_results = capture.tool_results.assign(n=capture.tool_results.groupby("exchange_id").cumcount())
tool_results = tool_results.merge(results, on=["exchange_id", "n"], how="left")
for r in tool_results[tool_results["is_error"].fillna(False)].itertuples():
    events.append(
        {
            "time": r.time,
            "source": "DSH",
            "what": f"tool result for {r.call_id}",
            "outcome": r.text,
            "calls": "",
        }
    )
pd.DataFrame(events).sort_values("time", kind="stable", ignore_index=True)

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(10, 3))
plots.timeline(capture, ax=ax)
plt.show()

# %% [markdown] tags=["en"]
# ## Evidence by layer
#
# ### Configuration

# %% [markdown] tags=["zh-CN"]
# ## 各层的证据
#
# ### 配置

# %%
settings.findings[["severity", "layer", "line", "message", "dsh_message"]]

# %% [markdown] tags=["en"]
# ### Serialization: what the tools looked like on the wire, and what the model then sent

# %% [markdown] tags=["zh-CN"]
# ### 序列化：工具在线路上是什么样子，以及模型随后发送了什么

# %%
result.filled_calls[["call_id", "tool", "strict_state", "arguments"]]

# %% [markdown] tags=["en"]
# ### Capability

# %% [markdown] tags=["zh-CN"]
# ### 能力

# %%
check(settings, capture)[["exchange_id", "declared_input", "images_sent", "placeholder", "verdict"]]

# %% [markdown] tags=["en"]
# What DSH shows for this cause, at each entry point (search here for the message a user reported):

# %% [markdown] tags=["zh-CN"]
# DSH 在各个入口点针对这一原因显示的文本（用户报告的信息可以在这里查找）：

# %%
capability = next(r for r in result.results if r.layer == "capability")
pd.DataFrame(capability.dsh_messages, columns=["entry point", "DSH's text"])

# %% [markdown] tags=["en"]
# ### Execution

# %% [markdown] tags=["zh-CN"]
# ### 执行

# %%
replay(capture, settings=settings, mode=settings.default_preset["sandbox_mode"], dsh=DSH)[
    ["source", "call_id", "tool", "mode", "granted_mode", "message", "agrees"]
]

# %% [markdown] tags=["en"]
# ### Every error, placed in its layer

# %% [markdown] tags=["zh-CN"]
# ### 每个错误，归入它所在的层

# %%
errors(capture)[["source", "kind", "message", "layer", "rule_id"]]

# %% [markdown] tags=["en"]
# ## Who changed what
#
# The six questions, answered from the evidence above; `settled` is false where it stops.

# %% [markdown] tags=["zh-CN"]
# ## 谁改了什么
#
# 根据上面的证据回答六个问题；证据中断之处 `settled` 为 false。

# %%
from toolkit.analysis.provenance import table

table(settings, captures=[c for c in CAPTURES if "session" not in c], sessions=[c for c in CAPTURES if "session" in c])[
    ["field", "question", "answer", "actor", "settled"]
]

# %% [markdown] tags=["en"]
# ## Root causes

# %% [markdown] tags=["zh-CN"]
# ## 根因

# %%
causes = {
    "capability": "The model entry declares no image input, so images never reach the model (`input` is the key; "
    "`inputModalities` is ignored by llm-pi-ai).",
    "schema and protocol": "The route does not declare strict support, so pi-ai leaves `strict` out and the gateway reads the "
    'tools as strict: the model fills every optional field, `justification: ""` among them.',
    "runtime policy": "DSH advertises the escalation fields even in `danger-full-access`, refuses an empty justification, "
    "and refuses a request for the mode the session already has.",
}
failing = {r.layer for r in result.results if r.verdict == "fail"}
layer_of = {"capability": "capability", "schema and protocol": "serialization", "runtime policy": "execution"}
display(
    Markdown("\n".join(f"* **{k}**: {v}" for k, v in causes.items() if layer_of[k] in failing) or "No layer failed.")
)

# %% [markdown] tags=["en"]
# ## Fixes

# %% [markdown] tags=["zh-CN"]
# ## 修复

# %%
print(suggest_fix(SETTINGS, env={}, dsh=DSH) or "The settings need no change.")

# %%
whatif(capture, mode=settings.default_preset["sandbox_mode"], dsh=DSH).pivot_table(
    index="policy", columns="outcome", values="call_id", aggfunc="count", fill_value=0, observed=False
)

# %% [markdown] tags=["en"]
# The proof on the wire, when the first cell names an experiment: the captured request sent again with
# only the contract changed, several times per variant, each answer judged by DSH's own rules.

# %% [markdown] tags=["zh-CN"]
# 当参数单元格指定了实验时，这里给出线路上的证明：把捕获到的请求重新发送，只改变契约，每个变体发送多次，
# 每个回答都按 DSH 自己的规则判定。

# %%
if EXPERIMENT:
    from toolkit.experiment.run import load

    experiment = load(EXPERIMENT)
    display(Markdown(report.experiment_markdown(experiment)))
    display(plots.experiment_rates(experiment.summary))
else:
    print("No experiment was named (EXPERIMENT = None).")
