# %% [markdown]
# # Layer 4: execution
#
# **Question:** what does DSH's runtime accept, call by call, and which policy change would have avoided
# each failure?
#
# DSH validates every tool call in a fixed order: the JSON schema it advertised, the tool's own checks,
# the pairing of `sandbox_permissions` and `justification`, a non-empty justification, strict widening
# against the mode the call runs under, then approval. The first check that fails decides the message.

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis.whatif import prune_schema, whatif
from toolkit.layers.execution import check_call, replay
from toolkit.present.widgets import WhatIfExplorer

pd.set_option("display.max_colwidth", 140)
DATA = Path("..") / "data"

# %% [markdown]
# ## One call, checked
#
# The model filled every optional field, as a strict schema forces it to:

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

# %% [markdown]
# The empty justification fails at stage 3c, before any mode is compared. Filled in, the retry reaches
# the widening check, and fails there: a session in `danger-full-access` has no wider mode.

# %%
check_call("bash", {**filled, "justification": "Listing the workspace needs full access."}, mode="danger-full-access")

# %% [markdown]
# DSH 0.1.6-alpha.2 accepts a request for the current mode as a no-op. It does not change stage 3c:

# %%
[
    check_call("bash", args, mode="danger-full-access", dsh="0.1.6-alpha.2").message
    for args in (filled, {**filled, "justification": "Listing the workspace needs full access."})
]

# %% [markdown]
# ## The session, replayed
#
# `mode`, the mode each call ran under, comes from the session's own `sandbox/mode` event; the approval
# outcome from its approval policy (`never` in `danger-full-access`). An escalation DSH approves keeps its
# `mode` and names the mode it was granted for that one call in `granted_mode` (empty here: nothing was
# approved). Each verdict stands beside the result DSH recorded. The session log is the one the published
# DSH 0.1.0-rc.8 wrote in the lab's before-fix run, and the settings are the file it was given.

# %%
DSH = "0.1.0-rc.8"
session = toolkit.load_capture(DATA / "dsh-before-fix" / "session.jsonl.zstd")
settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml", env={}, dsh=DSH)
replay(session, settings=settings, dsh=DSH)[
    ["call_id", "tool", "mode", "granted_mode", "mode_source", "stage", "message", "agrees"]
]

# %% [markdown]
# `agrees` is true on every row: the model of DSH reproduces what DSH did. A `False` there would mean
# the model or the version is wrong, and it would be shown, not hidden.
#
# ## What if
#
# Four policy changes, replayed call by call, each in the mode the call ran under (never in a granted one):

# %%
whatif(session, dsh=DSH).pivot(index="call_id", columns="policy", values="outcome")

# %% [markdown]
# Same-mode acceptance alone does not save the first call: the empty justification fails first. Pruning
# the schema removes the escalation fields in `danger-full-access`, where no wider mode exists:

# %%
from toolkit.knowledge.dsh_tools import schema_for

sorted(prune_schema(schema_for("bash"), "danger-full-access")["properties"])

# %% [markdown]
# Try other modes, DSH versions and policies:

# %%
WhatIfExplorer(session)

# %% [markdown]
# ## On your own setup
#
# * `replay(load_capture("session.jsonl.zstd"))` for a DSH session; for an HTTP capture pass the mode:
#   `replay(capture, mode="workspace-write")`.
# * Rows with `agrees == False` deserve a look before anything else.
