# %% [markdown]
# # A busy day at the gateway
#
# **Question:** what happened across a day of gateway traffic: which errors, in which layer, on which
# route, and which routes sent which `strict`?
#
# The gateway's own JSONL log: 300 exchanges from four routes (each under its own path) and three
# models, with rate limits, server errors, cut streams and failed responses mixed in with the incident.

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import toolkit
from toolkit.analysis.triage import errors
from toolkit.present import plots
from toolkit.present.widgets import CaptureExplorer

pd.set_option("display.max_colwidth", 160)
day = toolkit.load_capture(Path("..") / "data" / "busy-day" / "gateway.jsonl")
day.summary()

# %% [markdown]
# The ten problems are streams the gateway cut before their terminal event: they are exchanges, read and
# counted, not lost lines.
#
# ## Errors, placed in their layer

# %%
errs = errors(day)
errs.groupby(["layer", "rule_id"], observed=True).size().rename("errors").to_frame()

# %%
fig, ax = plt.subplots(figsize=(10, 4))
plots.errors_by_layer(day, ax=ax)
plt.show()

# %% [markdown]
# ## Over time

# %%
fig, ax = plt.subplots(figsize=(12, 4.5))
plots.timeline(day, ax=ax)
plt.show()

# %%
hourly = day.exchanges.set_index("started_at").resample("1h")["terminal"].value_counts().unstack(fill_value=0)
hourly.index = hourly.index.strftime("%H:00")
hourly

# %% [markdown]
# ## Latency

# %%
day.exchanges.groupby(["endpoint", "terminal"], observed=True)["duration_ms"].describe()[["count", "50%", "max"]]

# %% [markdown]
# ## Which routes sent which `strict`

# %%
fig, ax = plt.subplots(figsize=(8, 3.5))
plots.strict_matrix(day, ax=ax)
plt.show()

# %% [markdown]
# The `gateway` route sends no `strict` at all, and it is the route whose calls fill every optional field.

# %%
calls = day.calls.merge(day.exchanges[["exchange_id", "endpoint"]], on="exchange_id")
calls["justification"] = calls["arguments"].map(lambda a: a.get("justification") if isinstance(a, dict) else None)
calls.groupby("endpoint", observed=True)["justification"].agg(
    calls="size", empty_justification=lambda s: int((s == "").sum())
)

# %% [markdown]
# ## Which requests carried images

# %%
images = day.inputs[day.inputs["part_type"] == "input_image"].merge(
    day.exchanges[["exchange_id", "endpoint", "model", "status"]]
)
images.groupby(["endpoint", "model", "status"], observed=True).size().rename("image parts").to_frame()

# %% [markdown]
# ## Explore
#
# Filter by endpoint, model, status, error layer and time; select an exchange to see its tools, input
# parts, calls and errors.

# %%
CaptureExplorer(day)

# %% [markdown]
# ## On your own logs
#
# `load_capture` reads the toolkit's JSONL shape, LiteLLM spend logs and Helicone JSONL exports
# (see the README); `errors(capture)` places every error, and the three plots take any capture.
