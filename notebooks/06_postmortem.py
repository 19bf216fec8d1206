# %% tags=["parameters"]
# The evidence for this write-up: change these lines and run all cells.
SETTINGS = "../data/dsh-before-fix/settings.yaml"
CAPTURES = ["../data/dsh-before-fix/capture.har", "../data/dsh-before-fix/session.jsonl.zstd"]
DSH = "0.1.0-rc.8"  # the DSH release that ran
TITLE = "Tool calls refused after the gateway migration"
# a folder written by `agent-contract experiment` (the captured request replayed as variants); None: no such section
EXPERIMENT = "../data/experiment-before-fix"

# %% [markdown]
# # Postmortem
#
# This notebook is a template. The first cell names a settings file, the captures and the DSH release
# that ran; running it writes the incident up from them: the timeline, the evidence of each layer, the
# root causes and the fixes, and, when it names an experiment folder, the experiment that proves the fix.
# `make postmortem` renders it to a single HTML file under `reports/`.

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

# %% [markdown]
# ## Summary

# %%
report.view(result)

# %% [markdown]
# ## Timeline

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

# %% [markdown]
# ## Evidence by layer
#
# ### Configuration

# %%
settings.findings[["severity", "layer", "line", "message", "dsh_message"]]

# %% [markdown]
# ### Serialization: what the tools looked like on the wire, and what the model then sent

# %%
result.filled_calls[["call_id", "tool", "strict_state", "arguments"]]

# %% [markdown]
# ### Capability

# %%
check(settings, capture)[["exchange_id", "declared_input", "images_sent", "placeholder", "verdict"]]

# %% [markdown]
# What DSH shows for this cause, at each entry point (search here for the message a user reported):

# %%
capability = next(r for r in result.results if r.layer == "capability")
pd.DataFrame(capability.dsh_messages, columns=["entry point", "DSH's text"])

# %% [markdown]
# ### Execution

# %%
replay(capture, settings=settings, mode=settings.default_preset["sandbox_mode"], dsh=DSH)[
    ["source", "call_id", "tool", "mode", "granted_mode", "message", "agrees"]
]

# %% [markdown]
# ### Every error, placed in its layer

# %%
errors(capture)[["source", "kind", "message", "layer", "rule_id"]]

# %% [markdown]
# ## Who changed what
#
# The six questions, answered from the evidence above; `settled` is false where it stops.

# %%
from toolkit.analysis.provenance import table

table(settings, captures=[c for c in CAPTURES if "session" not in c], sessions=[c for c in CAPTURES if "session" in c])[
    ["field", "question", "answer", "actor", "settled"]
]

# %% [markdown]
# ## Root causes

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

# %% [markdown]
# ## Fixes

# %%
print(suggest_fix(SETTINGS, env={}, dsh=DSH) or "The settings need no change.")

# %%
whatif(capture, mode=settings.default_preset["sandbox_mode"], dsh=DSH).pivot_table(
    index="policy", columns="outcome", values="call_id", aggfunc="count", fill_value=0, observed=False
)

# %% [markdown]
# The proof on the wire, when the first cell names an experiment: the captured request sent again with
# only the contract changed, several times per variant, each answer judged by DSH's own rules.

# %%
if EXPERIMENT:
    from toolkit.experiment.run import load

    experiment = load(EXPERIMENT)
    display(Markdown(report.experiment_markdown(experiment)))
    display(plots.experiment_rates(experiment.summary))
else:
    print("No experiment was named (EXPERIMENT = None).")
