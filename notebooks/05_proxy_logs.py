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
from toolkit.analysis import questions
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
by_route = questions.errors_by_layer_route(day)  # triage.errors, counted per endpoint, layer and rule
by_route.pivot_table(
    index=["layer", "rule_id"], columns="endpoint", values="errors", aggfunc="sum", fill_value=0, observed=True
)

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
questions.latency_by_terminal(day)

# %% [markdown]
# ## Which routes sent which `strict`

# %%
fig, ax = plt.subplots(figsize=(8, 3.5))
plots.strict_matrix(day, ax=ax)
plt.show()

# %%
questions.strict_by_endpoint(day)

# %% [markdown]
# The `gateway` route sends no `strict` at all and `codex-proxy` sends `strict: null`: theirs are the
# calls that fill every optional field of `bash`, many of them with an empty `justification`. Per
# endpoint, tool and optional field of the tool's schema: how many calls could fill it, how many did,
# and how many with an empty value (`""`, `null` or `"null"`).

# %%
questions.filled_optional(day)

# %% [markdown]
# ## Which requests carried images

# %%
parts = day.input_parts  # each part once; inputs_wide puts them back in every request that sent them
images = day.inputs_wide(parts=parts[parts["part_type"] == "input_image"]).merge(
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
# ## The same questions in DuckDB
#
# For a log that does not fit in pandas: `agent-contract ingest` (or `toolkit.capture.dataset.ingest`)
# streams it into a Parquet dataset in bounded memory, partitioned by source and day, and
# `toolkit.analysis.sql` answers the same four questions in DuckDB over the files (the `scale` extra),
# returning the same frames. Only distinct errors come back to Python for triage.

# %%
import tempfile

from toolkit.analysis import sql
from toolkit.capture import dataset

out = Path(tempfile.mkdtemp()) / "busy-day"
entry = dataset.ingest(Path("..") / "data" / "busy-day" / "gateway.jsonl", out, progress=False)
print(entry["records"], "records;", {frame: n for frame, n in entry["rows"].items() if n})
in_duckdb = sql.errors_by_layer_route(out)
pd.testing.assert_frame_equal(in_duckdb, by_route)  # the same answer as pandas gave above
in_duckdb.groupby("layer", observed=True)["errors"].sum().to_frame()

# %% [markdown]
# Every request resends the conversation so far, so the dataset stores each request's input only past the
# longest earlier input it begins with (`input_prefixes`); `expand` puts every part sent back, as
# `Capture.inputs_sent()` does in memory.

# %%
from toolkit.capture.inputs import expand

sent = expand(
    dataset.read_frame(out, "inputs"),
    dataset.read_frame(out, "input_prefixes"),
    dataset.read_frame(out, "exchanges")["exchange_id"],
)
pd.testing.assert_frame_equal(sent, day.inputs_sent())
rows = entry["rows"]
print(f"{len(sent)} parts sent, stored as {rows['inputs']} rows and {rows['input_prefixes']} prefixes")

# %% [markdown]
# ## On your own logs
#
# `load_capture` reads the toolkit's JSONL shape, LiteLLM spend logs and Helicone JSONL exports
# (see the README); `triage.errors(capture)` places every error, `toolkit.analysis.questions` answers
# this notebook's questions for any capture (`toolkit.analysis.sql` for a Parquet dataset), and the three
# plots take any capture.
