# %% [markdown]
# # Layer 3: capability
#
# **Question:** which requests carried, or tried to carry, an image, and did each reach a model that takes it?
#
# A model entry's `input` is a contract, not a feature flag. DSH refuses an image for a model that does
# not declare it before anything is sent (pi-ai, if it gets that far, replaces the image with the text
# `(image omitted: model does not support images)`); and a model that declares images its backend cannot
# take is refused downstream, mid-turn.

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.layers.capability import check

pd.set_option("display.max_colwidth", 140)
DATA = Path("..") / "data"
before_settings = toolkit.load_settings(DATA / "configs" / "settings.before.yaml", env={})
after_settings = toolkit.load_settings(DATA / "configs" / "settings.after.yaml", env={})
COLUMNS = ["exchange_id", "route", "declared_input", "input_source", "images_sent", "placeholder", "status", "verdict"]

# %% [markdown]
# ## Before the fix: undeclared, refused locally
#
# One run of the published DSH 0.1.0-rc.8 (run headless by the lab): the headless task names the screenshot
# but cannot attach it, so the model tried `read_image`, which DSH refused with its own text before sending
# anything. The settings are the file DSH was given, read with the pi-ai that release loads.

# %%
DSH = "0.1.0-rc.8"
dsh_before_settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml", env={}, dsh=DSH)
before = check(
    dsh_before_settings,
    toolkit.load_captures([DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"]),
)
before[COLUMNS]

# %%
print(before.iloc[-1]["dsh_message"])

# %% [markdown]
# Each refused row also lists every text DSH shows for the same cause, by entry point (`dsh_messages`);
# the first is the one this session recorded:

# %%
pd.DataFrame(before.iloc[-1]["dsh_messages"], columns=["entry point", "DSH's text"])

# %% [markdown]
# ## After the fix: declared and accepted
#
# The pi-ai client's recording, which attaches the screenshot to the user message:

# %%
check(after_settings, toolkit.load_capture(DATA / "after-fix" / "capture.har"))[
    COLUMNS + ["media_types", "image_bytes"]
]

# %% [markdown]
# ## Declared, but refused downstream
#
# Declaring `input: [text, image]` is a promise about the endpoint. Here the gateway does not keep it:

# %%
refused = check(after_settings, toolkit.load_capture(DATA / "image-refused" / "capture.har"))
refused[["exchange_id", "declared_input", "images_sent", "status", "error_code", "error_message", "verdict"]]

# %% [markdown]
# The same from DSH's own session log: with the image declared, DSH's `read_image` reads the screenshot and
# sends it, and the gateway refuses the request.

# %%
dsh_image = check(
    toolkit.load_settings(DATA / "dsh-image" / "settings.yaml", env={}, dsh=DSH),
    toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd"),
)
dsh_image[["exchange_id", "declared_input", "images_sent", "status", "error_message", "verdict"]]

# %% [markdown]
# ### The gateway's own declaration
#
# DSH's route is one declaration; a LiteLLM proxy in front of the backend has its own (`config.yaml`:
# `model_info.supports_vision`, or LiteLLM's cost map for the underlying model). Given the gateway's
# config, the verdict names both sides. Here the gateway declares `gw-coder` text-only, and LiteLLM still
# forwards the image (its router only prefers deployments that do not declare `supports_vision: false`):

# %%
gateway = toolkit.load_gateway_config(DATA / "configs" / "litellm-config.yaml")
with_gateway = check(
    toolkit.load_settings(DATA / "dsh-image" / "settings.yaml", env={}, dsh=DSH),
    toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd"),
    gateway=gateway,
)
with_gateway[["exchange_id", "declared_input", "gateway_vision", "gateway_evidence", "verdict"]]

# %% [markdown]
# ## When the evidence does not fit the settings
#
# The after-fix capture judged against the before-fix settings: images went out although the settings
# say they could not have. The toolkit says so instead of picking a side.

# %%
check(before_settings, toolkit.load_capture(DATA / "after-fix" / "capture.har"))[["exchange_id", "verdict", "evidence"]]

# %% [markdown]
# ## On your own setup
#
# * `check(load_settings(path), load_captures(files))` for your settings and captures; add
#   `gateway=load_gateway_config(path)` when a LiteLLM proxy sits in front of the backend.
# * `undeclared-but-capable` rows show a model that takes images on another route: declare it there too.
# * `declared-but-refused-downstream` rows show a declaration the backend does not honour: remove `image`
#   from that route's `input`, so DSH refuses before anything is persisted.
