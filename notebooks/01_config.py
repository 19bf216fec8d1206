# %% [markdown] tags=["en"]
# # Layer 1: configuration
#
# **Question:** what does DSH's `settings.yaml` resolve to, and where did each effective value come from?
#
# DSH resolves each llm-pi-ai model field through a chain (the entry, then pi-ai's installed catalog, then
# the route's defaults), and pi-ai then applies its own defaults. A value nobody wrote still decides what
# happens; this layer shows each value beside its source.

# %% [markdown] tags=["zh-CN"]
# # 第一层：配置
#
# **问题：** DSH 的 `settings.yaml` 解析成了什么？每个生效值从何而来？
#
# DSH 通过一条链来解析 llm-pi-ai 的每个模型字段（先是条目本身，然后是 pi-ai 已安装的模型目录，再是路由的默认值），之后 pi-ai 还会套用它自己的默认值。一个没人写过的值照样决定着实际行为；这一层把每个值和它的来源并排列出。

# %%
from pathlib import Path

import pandas as pd

from toolkit import load_settings
from toolkit.layers.config import search, suggest_fix
from toolkit.present import i18n

pd.set_option("display.max_colwidth", 160)
CONFIGS = Path("..") / "data" / "configs"

# %%
print((CONFIGS / "settings.before.yaml").read_text())

# %% [markdown] tags=["en"]
# ## The effective values, with their sources

# %% [markdown] tags=["zh-CN"]
# ## 生效值及其来源

# %%
before = load_settings(CONFIGS / "settings.before.yaml", env={})
i18n.localize(before.models).T  # where each value came from, in the notebook's language

# %% [markdown] tags=["en"]
# Two rows deserve a second look.
#
# * `input` is `('text',)` from the route's default, although the file says `inputModalities: [text, image]`:
#   llm-pi-ai's key is `input`, and unknown keys are passed through silently.
# * `supports_strict_mode` is `False`, while `strict_mode_local_default` is `True`. pi-ai's
#   `convertResponsesTools` does default to `supportsStrictMode ?? true`, but only for a direct call;
#   the openai-responses provider always passes its own resolved value, which is `false` unless compat
#   declares otherwise. The provider's value wins, so `strict` is left out of every tool (`tool_strict`).

# %% [markdown] tags=["zh-CN"]
# 有两行值得再看一眼。
#
# * `input` 是来自路由默认值的 `('text',)`，尽管文件里写的是 `inputModalities: [text, image]`：llm-pi-ai 的键名是 `input`，未知的键会被悄无声息地透传。
# * `supports_strict_mode` 为 `False`，而 `strict_mode_local_default` 为 `True`。pi-ai 的 `convertResponsesTools` 确实默认 `supportsStrictMode ?? true`，但这只适用于直接调用；openai-responses provider 总是传入它自己解析出的值，除非 compat 另有声明，该值都是 `false`。provider 的值优先，所以每个工具都省略了 `strict`（`tool_strict`）。

# %%
before.default_model, before.default_preset

# %% [markdown] tags=["en"]
# ## Findings
#
# Each finding names the YAML path and line, quotes DSH's own text where DSH has one, and says what to change.

# %% [markdown] tags=["zh-CN"]
# ## 发现
#
# 每条发现都指明 YAML 路径和行号，DSH 有原文时引用 DSH 的原文，并说明要改什么。

# %%
i18n.localize(
    before.findings,
    ["severity", "layer", "line", "message", "dsh_message", "fix"],
    words={"severity": "severity", "layer": "layer"},
)

# %% [markdown] tags=["en"]
# DSH words an undeclared image differently at each entry point (the `read_image` tool, MCP, the web UI's
# toast, the adapters, headless stderr). `dsh_message` is the one a user most likely sees (the web UI's
# toast: headless takes text only); `dsh_messages` holds all of them, so the message you saw finds its finding:

# %% [markdown] tags=["zh-CN"]
# 对于未声明的图像，DSH 在每个入口的措辞都不同（`read_image` 工具、MCP、Web UI 的 toast 提示、各适配器、headless 模式的 stderr）。`dsh_message` 是用户最可能看到的那条（Web UI 的 toast：headless 只接受文本）；`dsh_messages` 收录了全部文本，因此无论你看到的是哪条消息，都能找到对应的发现：

# %%
image = before.findings[before.findings["code"] == "image-undeclared"].iloc[0]
pd.DataFrame(image["dsh_messages"], columns=["entry point", "DSH's text"])

# %%
i18n.localize(search(before.findings, "The current model does not support images"), ["code", "line", "fix"])

# %% [markdown] tags=["en"]
# ## The minimal fix
#
# `suggest_fix` edits the text line by line, so comments and key order stay exactly as they were:

# %% [markdown] tags=["zh-CN"]
# ## 最小修复
#
# `suggest_fix` 逐行编辑文本，因此注释和键的顺序完全保持原样：

# %%
print(suggest_fix(CONFIGS / "settings.before.yaml", env={}))

# %% [markdown] tags=["en"]
# With the fix applied, and the key exported where DSH starts, nothing is left:

# %% [markdown] tags=["zh-CN"]
# 应用修复、并在启动 DSH 的环境中导出密钥之后，就没有任何发现了：

# %%
after = load_settings(CONFIGS / "settings.after.yaml", env={"GATEWAY_API_KEY": "set"})
i18n.localize(
    after.models, ["route", "id", "input", "input_source", "supports_strict_mode", "strict_mode_source", "tool_strict"]
)

# %%
len(after.findings)

# %% [markdown] tags=["en"]
# ## On your own setup
#
# * `load_settings("~/.dsh/settings.yaml")` reads the file (a path, always); `load_settings(text=...)` takes
#   YAML text. Only whether each `apiKeyEnv` variable is set is checked.
# * Look for `tool_strict == "absent"` on `openai-responses` routes, and `input_source` not `entry` where images matter.
# * `agent-contract config <file> --diff` prints the fix from a shell.

# %% [markdown] tags=["zh-CN"]
# ## 用于你自己的环境
#
# * `load_settings("~/.dsh/settings.yaml")` 读取文件（参数始终是路径）；`load_settings(text=...)` 接受 YAML 文本。对每个 `apiKeyEnv` 变量只检查它是否已设置。
# * 在 `openai-responses` 路由上留意 `tool_strict == "absent"`；在需要图像的地方，留意 `input_source` 不是 `entry` 的行。
# * 在 shell 中，`agent-contract config <file> --diff` 会打印修复。
