# %% tags=["parameters"]
# The evidence for this write-up: change these lines and run all cells.
SETTINGS = "../data/dsh-before-fix/settings.yaml"
CAPTURES = ["../data/dsh-before-fix/capture.har", "../data/dsh-before-fix/session.jsonl.zstd"]
DSH = "0.1.0-rc.8"  # the DSH release that ran
TITLE = None  # the heading of the write-up; None: the default title, in the notebook's language
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
from toolkit.present import i18n, plots, report

pd.set_option("display.max_colwidth", 160)


def shown(frame, columns, *, words=None):
    """The table as the reader sees it, in the notebook's language (labels and the toolkit's words)."""
    return i18n.localize(frame, columns, words=words, labels="postmortem.col")


settings = toolkit.load_settings(SETTINGS, env={}, dsh=DSH)
capture = toolkit.load_captures(CAPTURES)
result = verify(settings, capture, dsh=DSH)
display(Markdown(f"## {TITLE or i18n.t('postmortem.title')}"))

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
            "what": i18n.t("postmortem.timeline.request", api=e.api, model=e.model),
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
            "what": i18n.t("postmortem.timeline.tool_result", call_id=r.call_id),
            "outcome": r.text,
            "calls": "",
        }
    )
timeline = pd.DataFrame(events).sort_values("time", kind="stable", ignore_index=True)
shown(timeline, ["time", "source", "what", "outcome", "calls"])

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
shown(settings.findings, ["severity", "layer", "line", "message", "dsh_message"], words={"severity": "severity"})

# %% [markdown] tags=["en"]
# ### Serialization: what the tools looked like on the wire, and what the model then sent

# %% [markdown] tags=["zh-CN"]
# ### 序列化：工具在线路上是什么样子，以及模型随后发送了什么

# %%
shown(result.filled_calls, ["call_id", "tool", "strict_state", "arguments"])

# %% [markdown] tags=["en"]
# ### Capability

# %% [markdown] tags=["zh-CN"]
# ### 能力

# %%
shown(check(settings, capture), ["exchange_id", "declared_input", "images_sent", "placeholder", "verdict"])

# %% [markdown] tags=["en"]
# What DSH shows for this cause, at each entry point (search here for the message a user reported):

# %% [markdown] tags=["zh-CN"]
# DSH 在各个入口点针对这一原因显示的文本（用户报告的信息可以在这里查找）：

# %%
capability = next(r for r in result.results if r.layer == "capability")
shown(pd.DataFrame(capability.dsh_messages, columns=["entry_point", "dsh_text"]), ["entry_point", "dsh_text"])

# %% [markdown] tags=["en"]
# ### Execution

# %% [markdown] tags=["zh-CN"]
# ### 执行

# %%
shown(
    replay(capture, settings=settings, mode=settings.default_preset["sandbox_mode"], dsh=DSH),
    ["source", "call_id", "tool", "mode", "granted_mode", "message", "agrees"],
)

# %% [markdown] tags=["en"]
# ### Every error, placed in its layer

# %% [markdown] tags=["zh-CN"]
# ### 每个错误，归入它所在的层

# %%
shown(errors(capture), ["source", "kind", "message", "layer", "rule_id"])

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

shown(
    table(
        settings, captures=[c for c in CAPTURES if "session" not in c], sessions=[c for c in CAPTURES if "session" in c]
    ),
    ["field", "question", "answer", "actor", "settled"],
    words={"question": "provenance.question"},
)

# %% [markdown] tags=["en"]
# ## Root causes

# %% [markdown] tags=["zh-CN"]
# ## 根因

# %%
# the failing layers in the order a request meets them, each with the texts DSH showed for its cause, all from the
# evidence above (Verification.root_causes); when none failed, the run's verdict (it names what was not checked)
display(Markdown(report.root_causes_markdown(result)))

# %% [markdown] tags=["en"]
# ## Fixes

# %% [markdown] tags=["zh-CN"]
# ## 修复

# %%
print(suggest_fix(SETTINGS, env={}, dsh=DSH) or i18n.t("postmortem.no_fix"))

# %%
outcomes = whatif(capture, mode=settings.default_preset["sandbox_mode"], dsh=DSH).pivot_table(
    index="policy", columns="outcome", values="call_id", aggfunc="count", fill_value=0, observed=False
)
outcomes.rename(columns=lambda o: i18n.t(f"execution.outcome.{o}")).rename_axis(
    index=i18n.t("postmortem.col.policy"), columns=i18n.t("postmortem.col.outcome")
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
    print(i18n.t("postmortem.no_experiment"))
