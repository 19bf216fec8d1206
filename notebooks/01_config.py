# %% [markdown]
# # Layer 1: configuration
#
# **Question:** what does DSH's `settings.yaml` resolve to, and where did each effective value come from?
#
# DSH resolves each llm-pi-ai model field through a chain (the entry, then pi-ai's installed catalog, then
# the route's defaults), and pi-ai then applies its own defaults. A value nobody wrote still decides what
# happens; this layer shows each value beside its source.

# %%
from pathlib import Path

import pandas as pd

from toolkit import load_settings
from toolkit.layers.config import search, suggest_fix

pd.set_option("display.max_colwidth", 160)
CONFIGS = Path("..") / "data" / "configs"

# %%
print((CONFIGS / "settings.before.yaml").read_text())

# %% [markdown]
# ## The effective values, with their sources

# %%
before = load_settings(CONFIGS / "settings.before.yaml", env={})
before.models.T

# %% [markdown]
# Two rows deserve a second look.
#
# * `input` is `('text',)` from the route's default, although the file says `inputModalities: [text, image]`:
#   llm-pi-ai's key is `input`, and unknown keys are passed through silently.
# * `supports_strict_mode` is `False`, while `strict_mode_local_default` is `True`. pi-ai's
#   `convertResponsesTools` does default to `supportsStrictMode ?? true`, but only for a direct call;
#   the openai-responses provider always passes its own resolved value, which is `false` unless compat
#   declares otherwise. The provider's value wins, so `strict` is left out of every tool (`tool_strict`).

# %%
before.default_model, before.default_preset

# %% [markdown]
# ## Findings
#
# Each finding names the YAML path and line, quotes DSH's own text where DSH has one, and says what to change.

# %%
before.findings[["severity", "layer", "line", "message", "dsh_message", "fix"]]

# %% [markdown]
# DSH words an undeclared image differently at each entry point (the `read_image` tool, MCP, the web UI's
# toast, the adapters, headless stderr). `dsh_message` is the one a user most likely sees (the web UI's
# toast: headless takes text only); `dsh_messages` holds all of them, so the message you saw finds its finding:

# %%
image = before.findings[before.findings["code"] == "image-undeclared"].iloc[0]
pd.DataFrame(image["dsh_messages"], columns=["entry point", "DSH's text"])

# %%
search(before.findings, "The current model does not support images")[["code", "line", "fix"]]

# %% [markdown]
# ## The minimal fix
#
# `suggest_fix` edits the text line by line, so comments and key order stay exactly as they were:

# %%
print(suggest_fix(CONFIGS / "settings.before.yaml", env={}))

# %% [markdown]
# With the fix applied, and the key exported where DSH starts, nothing is left:

# %%
after = load_settings(CONFIGS / "settings.after.yaml", env={"GATEWAY_API_KEY": "set"})
after.models[["route", "id", "input", "input_source", "supports_strict_mode", "strict_mode_source", "tool_strict"]]

# %%
len(after.findings)

# %% [markdown]
# ## On your own setup
#
# * `load_settings("~/.dsh/settings.yaml")` reads the file (a path, always); `load_settings(text=...)` takes
#   YAML text. Only whether each `apiKeyEnv` variable is set is checked.
# * Look for `tool_strict == "absent"` on `openai-responses` routes, and `input_source` not `entry` where images matter.
# * `agent-contract config <file> --diff` prints the fix from a shell.
