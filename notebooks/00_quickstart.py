# %% [markdown]
# # Quick start: four layers, one verdict each
#
# An agent's tool call can fail in four places: the **configuration** (what the settings resolve to),
# the **serialization** (what pi-ai really put on the wire), the **capability** (which inputs the model
# entry declares) and the **execution** (what DSH's runtime accepts). This notebook loads the lab's
# captures of the incident, before the fix, and asks each layer for its verdict.

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis.verify import verify
from toolkit.present import report

pd.set_option("display.max_colwidth", 200)
DATA = Path("..") / "data"

# %% [markdown]
# A capture is any file the toolkit can read: a HAR from mitmproxy, a gateway's JSONL log, a DSH
# session log. The format is detected from the content. Every entry becomes a row or a problem, and
# the summary shows that the counts reconcile.

# %%
capture = toolkit.load_captures([DATA / "before-fix" / "capture.har", DATA / "before-fix" / "session.jsonl.zstd"])
capture.summary()

# %% [markdown]
# The settings are DSH's `settings.yaml`. Only the name of the API key variable is read, never a key.

# %%
settings = toolkit.load_settings(DATA / "configs" / "settings.before.yaml", env={})
settings

# %% [markdown]
# The four verdicts, each with the evidence it rests on and the fix:

# %%
result = verify(settings, capture)
report.view(result)

# %% [markdown]
# Three layers fail, and they fail together: the route does not declare strict support, so pi-ai
# leaves `strict` out; the gateway reads that as strict; the model fills every optional field,
# `"justification": ""` among them; and DSH refuses the call:
# `invalid justification: expected a non-empty sentence`. Its retry asks for the mode the session
# already has, and DSH refuses again:
# `sandbox escalation to "danger-full-access" is not strictly wider than this call's current "danger-full-access" mode`.
# Meanwhile the screenshot never reached the model, because the model entry declares no image input.
#
# After the fix, the same run passes in every layer:

# %%
after = verify(
    toolkit.load_settings(DATA / "configs" / "settings.after.yaml", env={"GATEWAY_API_KEY": "set"}),
    toolkit.load_captures([DATA / "after-fix" / "capture.har", DATA / "after-fix" / "session.jsonl.zstd"]),
)
after.table[["layer", "verdict", "summary"]]

# %% [markdown]
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
#
# To check your own setup, point `load_settings` at your `settings.yaml` and `load_captures` at your
# captures; from a shell, `agent-contract summary <files>` and `agent-contract config <settings.yaml>`.
