# %% [markdown]
# # Who changed what
#
# Every investigation of this kind ends with six questions: who defined the field, who changed the
# schema, who interpreted `strict`, who declared the model's capability, who finally validated the
# parameters, and who owns the real permission state. This notebook answers them from evidence, and says
# "unknown" where the evidence does not reach, naming the capture that would settle it.
#
# The lab recorded the same traffic twice around a rewriting proxy, modelled on OpenAI-compatible
# converters: once in front of it (`front`) and once behind it (`back`).

# %%
import json
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.analysis import hops
from toolkit.analysis.provenance import table

pd.set_option("display.max_colwidth", 160)
DATA = Path("..") / "data"
front = toolkit.load_capture(DATA / "two-hop-strict" / "front.har", keep_bodies=True)
back = toolkit.load_capture(DATA / "two-hop-strict" / "back.har", keep_bodies=True)

# %% [markdown]
# ## Pairing the requests across the hop
#
# The same request is found on both sides by its conversation (the user's and the tools' texts), its
# tools and its time; each pairing says how sure it is.

# %%
pairs = hops.align(front, back)
pairs[["pair_id", "a_exchange", "b_exchange", "delta_ms", "relation", "confidence", "margin_ms", "basis"]]

# %% [markdown]
# ## What the proxy changed

# %%
changes = hops.diff(front, back, pairs)
changes.groupby("kind", observed=True).size().rename("changes").to_frame()

# %%
changes[changes["a_exchange"] == pairs.iloc[0]["a_exchange"]][["tool", "path", "kind", "before", "after"]]

# %% [markdown]
# The proxy keeps its own log of what it did; the diff above finds the same changes from the two captures
# alone:

# %%
log = [json.loads(line) for line in (DATA / "two-hop-strict" / "rewriter.jsonl").read_text().splitlines()]
pd.Series([c["kind"] for entry in log for c in entry["changes"]]).value_counts().rename("in the proxy's log").to_frame()

# %% [markdown]
# ## A protocol conversion
#
# The second proxy mode turns a Responses request into a Chat Completions request:

# %%
chat_front = toolkit.load_capture(DATA / "two-hop-chat" / "front.har", keep_bodies=True)
chat_back = toolkit.load_capture(DATA / "two-hop-chat" / "back.har", keep_bodies=True)
chat_changes = hops.diff(chat_front, chat_back)
chat_changes.groupby("kind", observed=True).size().rename("changes").to_frame()

# %% [markdown]
# ## The six questions, before the fix
#
# One hop (the recorder in front of the gateway) and the session log DSH wrote, from one run of the
# published DSH 0.1.0-rc.8 with the settings file it was given:

# %%
before = table(
    DATA / "dsh-before-fix" / "settings.yaml",
    captures=[DATA / "dsh-before-fix" / "capture.har"],
    sessions=[DATA / "dsh-before-fix" / "session.jsonl.zstd"],
)
before[before["field"].isin(["bash.strict", "bash.justification", "gw-coder.input"])][
    ["field", "question", "answer", "actor", "settled"]
]

# %% [markdown]
# `settled` is false where the evidence stops. With only the gateway's HTTP traffic and no session log,
# the permission state and who validated the calls are unknown, and the table says what would settle them:

# %%
http_only = table(DATA / "dsh-before-fix" / "settings.yaml", captures=[DATA / "dsh-before-fix" / "capture.har"])
http_only[~http_only["settled"].astype(bool)][["field", "question", "answer", "evidence"]].drop_duplicates("question")

# %% [markdown]
# ## The six questions across the rewriting proxy
#
# With both hops, "who changed the schema" has an answer:

# %%
two_hop = table(
    DATA / "configs" / "settings.before.yaml",
    captures=[DATA / "two-hop-strict" / "front.har", DATA / "two-hop-strict" / "back.har"],
)
two_hop[two_hop["field"] == "bash.strict"][["question", "answer", "actor", "evidence"]]

# %% [markdown]
# ## A real gateway: LiteLLM 1.110.2
#
# The rewriting proxy above is the lab's stand-in. `data/litellm-*` put the real LiteLLM proxy between the
# two recorders: pi-ai → recorder → LiteLLM → recorder → stub backend. On its Responses route the body
# goes through unchanged; when it serves a Responses client from a Chat Completions backend
# (`use_chat_completions_api`), it rewrites the request. Every change `hops.diff` finds on that route:

# %%
bridge_front = toolkit.load_capture(DATA / "litellm-responses-to-chat" / "front.har", keep_bodies=True)
bridge_back = toolkit.load_capture(DATA / "litellm-responses-to-chat" / "back.har", keep_bodies=True)
bridge = hops.diff(bridge_front, bridge_back)
bridge[~bridge["kind"].str.startswith("header")][["pair_id", "tool", "path", "kind", "before", "after"]]

# %% [markdown]
# `strict: false` is written where pi-ai sent no `strict` at all, so the Chat backend reads the tools as
# non-strict, while the same tools on LiteLLM's Responses route would have reached a backend that reads
# an absent `strict` as strict. The provenance table names LiteLLM from the `x-litellm-version` header it
# returns, not "the gateway":

# %%
litellm = table(
    captures=[DATA / "litellm-responses-to-chat" / "front.har", DATA / "litellm-responses-to-chat" / "back.har"]
)
litellm[litellm["field"] == "bash.strict"][["question", "answer", "actor", "evidence"]]

# %% [markdown]
# ## On your own setup
#
# Record the same traffic on both sides of a proxy (two recorders), load both with `keep_bodies=True`, and
# pass them to `table(settings, captures=[client_side, model_side], sessions=[...])`, client side first.
# `agent-contract verify` prints the same table.
