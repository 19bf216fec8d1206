# %% [markdown]
# # Quick start: four layers, one verdict each
#
# An agent's tool call can fail in four places: the **configuration** (what the settings resolve to),
# the **serialization** (what pi-ai really put on the wire), the **capability** (which inputs the model
# entry declares) and the **execution** (what DSH's runtime accepts). This notebook loads one run of the
# published DSH CLI (0.1.0-rc.8, run headless by the lab) before the fix: the HAR of its traffic, the session
# log DSH wrote and the settings file DSH was given, and asks each layer for its verdict.

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis.verify import verify
from toolkit.present import report

pd.set_option("display.max_colwidth", 200)
DATA = Path("..") / "data"
DSH = "0.1.0-rc.8"  # the DSH release that ran

# %% [markdown]
# A capture is any file the toolkit can read: a HAR from mitmproxy, a gateway's JSONL log, a DSH
# session log. The format is detected from the content. Every entry becomes a row or a problem, and
# the summary shows that the counts reconcile.

# %%
capture = toolkit.load_captures(
    [DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"]
)
capture.summary()

# %% [markdown]
# The settings are DSH's `settings.yaml`, read with the pi-ai that DSH release loads. Only the name of the
# API key variable is read, never a key (here it is unset, hence a warning).

# %%
settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml", env={}, dsh=DSH)
settings

# %% [markdown]
# The four verdicts, each with the evidence it rests on and the fix:

# %%
result = verify(settings, capture, dsh=DSH)
report.view(result)

# %% [markdown]
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

# %%
after = verify(
    toolkit.load_settings(DATA / "dsh-after-fix" / "settings.yaml", env={"GATEWAY_API_KEY": "set"}, dsh=DSH),
    toolkit.load_captures([DATA / "dsh-after-fix" / "capture.har", DATA / "dsh-after-fix" / "session.jsonl.zstd"]),
    dsh=DSH,
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
