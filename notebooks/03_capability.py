# %% [markdown] tags=["en"]
# # Layer 3: capability
#
# **Question:** which requests carried, or tried to carry, an image, and did each reach a model that takes it?
#
# A model entry's `input` is a contract, not a feature flag. DSH refuses an image for a model that does
# not declare it before anything is sent (pi-ai, if it gets that far, replaces the image with the text
# `(image omitted: model does not support images)`); and a model that declares images its backend cannot
# take is refused downstream, mid-turn.

# %% [markdown] tags=["zh-CN"]
# # 第三层：能力
#
# **问题：** 哪些请求携带了（或试图携带）图像？每个请求是否到达了能接收图像的模型？
#
# 模型条目的 `input` 是一份契约，而不是功能开关。对于没有声明图像输入的模型，DSH 会在发送任何内容之前拒绝图像（如果走到了 pi-ai 那一步，pi-ai 会把图像替换为文本 `(image omitted: model does not support images)`）；而声明了图像、其后端却无法接收图像的模型，会在下游、在一轮对话的中途被拒绝。

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.layers.capability import check
from toolkit.present import i18n

pd.set_option("display.max_colwidth", 140)
DATA = Path("..") / "data"
before_settings = toolkit.load_settings(DATA / "configs" / "settings.before.yaml", env={})
after_settings = toolkit.load_settings(DATA / "configs" / "settings.after.yaml", env={})
COLUMNS = ["exchange_id", "route", "declared_input", "input_source", "images_sent", "placeholder", "status", "verdict"]

# %% [markdown] tags=["en"]
# ## Before the fix: undeclared, refused locally
#
# One run of the published DSH 0.1.0-rc.8 (run headless by the lab): the headless task names the screenshot
# but cannot attach it, so the model tried `read_image`, which DSH refused with its own text before sending
# anything. The settings are the file DSH was given, read with the pi-ai that release loads.

# %% [markdown] tags=["zh-CN"]
# ## 修复之前：未声明，在本地被拒绝
#
# 已发布的 DSH 0.1.0-rc.8 的一次运行（由实验环境以 headless 方式运行）：headless 任务提到了截图，却无法附上它，于是模型尝试调用 `read_image`，DSH 在发送任何内容之前就用它自己的文本拒绝了。设置是交给 DSH 的那个文件，用该版本加载的 pi-ai 读取。

# %%
DSH = "0.1.0-rc.8"
dsh_before_settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml", env={}, dsh=DSH)
before = check(
    dsh_before_settings,
    toolkit.load_captures([DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"]),
)
i18n.localize(before, COLUMNS)  # the toolkit's words (input_source) in the notebook's language

# %%
print(before.iloc[-1]["dsh_message"])

# %% [markdown] tags=["en"]
# Each refused row also lists every text DSH shows for the same cause, by entry point (`dsh_messages`);
# the first is the one this session recorded:

# %% [markdown] tags=["zh-CN"]
# 每个被拒绝的行还按入口列出了 DSH 针对同一原因显示的每一条文本（`dsh_messages`）；第一条就是本次会话记录下的那条：

# %%
pd.DataFrame(before.iloc[-1]["dsh_messages"], columns=["entry point", "DSH's text"])

# %% [markdown] tags=["en"]
# ## After the fix: declared and accepted
#
# The pi-ai client's recording, which attaches the screenshot to the user message:

# %% [markdown] tags=["zh-CN"]
# ## 修复之后：已声明，被接受
#
# pi-ai 客户端的录制，它把截图附在用户消息上：

# %%
i18n.localize(
    check(after_settings, toolkit.load_capture(DATA / "after-fix" / "capture.har")),
    COLUMNS + ["media_types", "image_bytes"],
)

# %% [markdown] tags=["en"]
# ## Declared, but refused downstream
#
# Declaring `input: [text, image]` is a promise about the endpoint. Here the gateway does not keep it:

# %% [markdown] tags=["zh-CN"]
# ## 已声明，但在下游被拒绝
#
# 声明 `input: [text, image]` 是对端点的承诺。这里网关没有兑现它：

# %%
refused = check(after_settings, toolkit.load_capture(DATA / "image-refused" / "capture.har"))
refused[["exchange_id", "declared_input", "images_sent", "status", "error_code", "error_message", "verdict"]]

# %% [markdown] tags=["en"]
# The same from DSH's own session log: with the image declared, DSH's `read_image` reads the screenshot and
# sends it, and the gateway refuses the request.

# %% [markdown] tags=["zh-CN"]
# DSH 自己的会话日志也显示了同样的情况：声明了图像之后，DSH 的 `read_image` 读取截图并发送出去，网关拒绝了该请求。

# %%
dsh_image = check(
    toolkit.load_settings(DATA / "dsh-image" / "settings.yaml", env={}, dsh=DSH),
    toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd"),
)
dsh_image[["exchange_id", "declared_input", "images_sent", "status", "error_message", "verdict"]]

# %% [markdown] tags=["en"]
# ### The gateway's own declaration
#
# DSH's route is one declaration; a LiteLLM proxy in front of the backend has its own (`config.yaml`:
# `model_info.supports_vision`, or LiteLLM's cost map for the underlying model). Given the gateway's
# config, the verdict names both sides. Here the gateway declares `gw-coder` text-only, and LiteLLM still
# forwards the image (its router only prefers deployments that do not declare `supports_vision: false`):

# %% [markdown] tags=["zh-CN"]
# ### 网关自己的声明
#
# DSH 的路由是一方的声明；后端前面的 LiteLLM 代理有它自己的声明（`config.yaml`：`model_info.supports_vision`，或 LiteLLM 针对底层模型的成本表）。给出网关的配置后，结论会同时指明双方。这里网关把 `gw-coder` 声明为只接受文本，而 LiteLLM 仍然转发了图像（它的路由器只是优先选择没有声明 `supports_vision: false` 的部署）：

# %%
gateway = toolkit.load_gateway_config(DATA / "configs" / "litellm-config.yaml")
with_gateway = check(
    toolkit.load_settings(DATA / "dsh-image" / "settings.yaml", env={}, dsh=DSH),
    toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd"),
    gateway=gateway,
)
i18n.localize(with_gateway, ["exchange_id", "declared_input", "gateway_vision", "gateway_evidence", "verdict"])

# %% [markdown] tags=["en"]
# ## When the evidence does not fit the settings
#
# The after-fix capture judged against the before-fix settings: images went out although the settings
# say they could not have. The toolkit says so instead of picking a side.

# %% [markdown] tags=["zh-CN"]
# ## 当证据与设置不符时
#
# 用修复前的设置来评判修复后的抓包：设置表明图像不可能发出，图像却发出了。工具包会如实指出这一点，而不是偏袒任何一方。

# %%
i18n.localize(
    check(before_settings, toolkit.load_capture(DATA / "after-fix" / "capture.har")),
    ["exchange_id", "verdict", "evidence"],
)

# %% [markdown] tags=["en"]
# ## On your own setup
#
# * `check(load_settings(path), load_captures(files))` for your settings and captures; add
#   `gateway=load_gateway_config(path)` when a LiteLLM proxy sits in front of the backend.
# * `undeclared-but-capable` rows show a model that takes images on another route: declare it there too.
# * `declared-but-refused-downstream` rows show a declaration the backend does not honour: remove `image`
#   from that route's `input`, so DSH refuses before anything is persisted.

# %% [markdown] tags=["zh-CN"]
# ## 用于你自己的环境
#
# * 用 `check(load_settings(path), load_captures(files))` 检查你的设置和抓包；后端前面有 LiteLLM 代理时，加上 `gateway=load_gateway_config(path)`。
# * `undeclared-but-capable` 行表示某个模型在另一条路由上能接收图像：在这里也声明它。
# * `declared-but-refused-downstream` 行表示后端不兑现的声明：从该路由的 `input` 中删除 `image`，这样 DSH 会在任何内容被持久化之前就拒绝。
