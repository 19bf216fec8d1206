# %% [markdown] tags=["en"]
# # Prove the fix: the same request, variants of the contract
#
# The postmortem says "adding `supportsStrictMode: true` fixed it": with it pi-ai sends `strict: false`
# on every tool, without it pi-ai leaves `strict` out and the gateway reads the tools as strict, so the
# model fills every optional field (`justification: ""` among them) and DSH refuses the call. The
# strongest evidence for such a claim is an experiment that changes only the contract and keeps
# everything else: the same captured request, sent again with `strict` absent and with `strict: false`
# (and with the schema pruned for the session's mode), several times each, every answer judged by DSH's
# own rules, and a number for how sure the difference is.
#
# Here the endpoint is the incident lab's stub gateway, started below in this kernel on 127.0.0.1: its
# scripted personas stand in for the model, so the notebook runs the same way every time and sends
# nothing beyond this machine. The last section says how to point the same experiment at a real endpoint.

# %% [markdown] tags=["zh-CN"]
# # 证明修复：同一个请求，契约的不同变体
#
# 事后复盘说“加上 `supportsStrictMode: true` 就修好了”：有了它，pi-ai 在每个工具上发送 `strict: false`；
# 没有它，pi-ai 省略 `strict`，网关就把这些工具当作 strict，于是模型填写每一个可选字段（其中包括
# `justification: ""`），DSH 拒绝该调用。支撑这种说法最有力的证据，是一个只改变契约、其余一概不变的实验：
# 把同一个捕获到的请求重新发送，分别不带 `strict`、带 `strict: false`（以及按会话的模式裁剪 schema），
# 每种发送多次，每个回答都按 DSH 自己的规则判定，再用一个数字说明这一差异有多可靠。
#
# 这里的端点是事故实验室的桩网关，由下面的代码在本内核中于 127.0.0.1 上启动：由它预先编写好的角色（persona）
# 代替模型作答，所以本笔记本每次运行的结果都相同，也不会向本机以外发送任何内容。最后一节说明如何把同一个实验
# 指向真实的端点。

# %%
# %matplotlib inline
import importlib.util
import sys
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

import toolkit
from toolkit.experiment.run import run
from toolkit.experiment.send import Limits
from toolkit.knowledge.messages import render
from toolkit.present import i18n, plots, report

pd.set_option("display.max_colwidth", 250)
DATA = Path("..") / "data"
CAPTURE = DATA / "dsh-before-fix" / "capture.har"
VARIANTS = ["strict-absent", "strict-false", "prune-schema"]
MODE = "danger-full-access"  # the mode the session ran in (its settings' permission preset)
DSH = "0.1.0-rc.8"  # the DSH release that ran, whose rules judge the answers

# the lab gateway, loaded by path (lab/ is not a package) and served from a thread on a free port
spec = importlib.util.spec_from_file_location("lab_gateway", Path("..") / "lab" / "gateway.py")
gateway = importlib.util.module_from_spec(spec)
sys.modules["lab_gateway"] = gateway
spec.loader.exec_module(gateway)
server = gateway.make_server(0, clock="2026-12-01T09:00:00Z", seed=7)
threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
PORT = server.server_port
BASE = f"http://127.0.0.1:{PORT}"


def fixed_clock(start="2026-12-01T09:00:00Z"):
    """Wall time for the experiment's records: a fixed start, one second per reading, so the recorded
    exchanges (and this notebook's outputs) are the same on every run."""
    t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
    n = iter(range(10**6))
    return lambda: t + pd.Timedelta(seconds=next(n))


def experiment(endpoint, variants=VARIANTS, samples=5, notices=None):
    """One experiment against the lab gateway, written to a temporary folder and read back; what the run
    says on stderr (the host it sends to) goes to ``notices``."""
    notices = [] if notices is None else notices
    folder = tempfile.mkdtemp(prefix="experiment-")
    return run(
        CAPTURE,
        exchange="capture.har:1",
        endpoint=endpoint,
        variants=variants,
        samples=samples,
        mode=MODE,
        dsh=DSH,
        out=folder,
        limits=Limits(rate=50),  # the lab gateway is local; against a real endpoint keep the default 1/s
        progress=False,
        now=fixed_clock(),
        notice=notices.append,
    )


# %% [markdown] tags=["en"]
# ## The captured request
#
# The HAR the lab recorded in front of the gateway while the published DSH 0.1.0-rc.8 ran, before the
# fix. Its first exchange, `capture.har:0`, is DSH's session-title request, which carries no tools;
# the first model step, `capture.har:1`, is the request to replay: 25 tools, `strict` absent on each.

# %% [markdown] tags=["zh-CN"]
# ## 捕获到的请求
#
# 这是修复前、已发布的 DSH 0.1.0-rc.8 运行时，实验室在网关前录下的 HAR。它的第一次交换 `capture.har:0`
# 是 DSH 生成会话标题的请求，不带任何工具；第一个模型步骤 `capture.har:1` 才是要重放的请求：25 个工具，
# 每个都没有 `strict`。

# %%
captured = toolkit.load_capture(CAPTURE, keep_bodies=True)
tools = captured.tools.groupby("exchange_id")["strict_state"].agg(lambda s: ", ".join(sorted(set(s.astype(str)))))
captured.exchanges[["exchange_id", "path", "model", "api", "status"]].assign(
    tools=captured.exchanges["exchange_id"].map(captured.tools.groupby("exchange_id").size()).fillna(0).astype(int),
    strict=captured.exchanges["exchange_id"].map(tools).astype(object).fillna("—"),
)

# %% [markdown] tags=["en"]
# What the model sent back to that request, as the capture recorded it: every optional field filled,
# `justification` empty.

# %% [markdown] tags=["zh-CN"]
# 模型对这个请求的回复，即捕获记录中记下的内容：每个可选字段都填了，`justification` 为空。

# %%
captured.calls[captured.calls["exchange_id"] == "capture.har:1"][["call_id", "name", "arguments"]]

# %% [markdown] tags=["en"]
# ## The dry run: the variants and what each changes
#
# Without an endpoint nothing is sent: `run` (and `agent-contract experiment` without `--endpoint`)
# only builds the variants and lists what each changes against the captured body, in `hops.diff`'s
# vocabulary. `strict-absent` has nothing to change (the capture already has no `strict`), so it is the
# captured request as it was; `strict-false` adds `strict: false` to all 25 tools; `prune-schema` drops
# the escalation fields DSH advertises even in `danger-full-access`.

# %% [markdown] tags=["zh-CN"]
# ## 试运行（dry run）：各个变体及其改动
#
# 不给端点就什么也不发送：`run`（以及不带 `--endpoint` 的 `agent-contract experiment`）只构建各个变体，
# 并用 `hops.diff` 的术语列出每个变体相对于捕获请求体的改动。`strict-absent` 没有什么可改（捕获记录本来就没有
# `strict`），所以它就是原样的捕获请求；`strict-false` 给全部 25 个工具加上 `strict: false`；`prune-schema`
# 去掉 DSH 即使在 `danger-full-access` 下也会声明的提权字段。

# %%
dry = run(CAPTURE, exchange="capture.har:1", variants=VARIANTS, samples=5, mode=MODE, dsh=DSH)
dry.changes.groupby(["variant", "kind"], observed=True).size().rename("changes").to_frame()

# %%
display(Markdown(report.experiment_markdown(dry)))

# %% [markdown] tags=["en"]
# ## Sent to the before-fix route
#
# The lab's `absent-is-strict` route reads an absent `strict` as strict, as the gateway in the incident
# did. Each variant goes out five times, interleaved (sample 1 of every variant, then sample 2, …) so that
# any drift in time hits all variants alike. The gateway listens on another port than the one in the
# capture, and the run says so before it sends anything:

# %% [markdown] tags=["zh-CN"]
# ## 发送到修复前的路由
#
# 实验室的 `absent-is-strict` 路由把缺失的 `strict` 当作 strict，与事故中的网关一样。每个变体发送五次，
# 交错进行（先发每个变体的第 1 个样本，再发第 2 个，……），这样随时间出现的任何漂移都会同等地影响所有变体。
# 网关监听的端口与捕获记录中的不同，运行在发送任何内容之前会先指出这一点：

# %%
notices = []
before = experiment(f"{BASE}/absent-is-strict/v1/responses", notices=notices)
print("\n".join(render(n, i18n.language()).replace(f":{PORT}", ":<port>") for n in notices))

# %% [markdown] tags=["en"]
# Every exchange the experiment made is recorded as a capture the toolkit reads (`exchanges.jsonl` in
# its folder); each call in each answer is judged by DSH's execution layer in the session's mode:

# %% [markdown] tags=["zh-CN"]
# 实验进行的每次交换都被记录为本工具包能读取的捕获记录（在其文件夹中的 `exchanges.jsonl`）；每个回答中的
# 每个调用都由 DSH 的执行层在会话的模式下判定：

# %%
before.answers[["variant", "sample", "status", "tool", "empty_filled", "verdict", "rule"]]

# %%
before.summary[["variant", "samples", "calls", "accepted", "refused", "filled_empty", "top_rule"]]

# %%
plots.experiment_rates(before.summary)

# %%
print(report.experiment_sentence(before))

# %% [markdown] tags=["en"]
# ## The same experiment against a pass-through route
#
# The `passthrough` route reads `strict` as sent: absent is not strict. The model then sends only the
# required fields in every variant, DSH accepts every call, and the difference disappears: the refusals
# came from the gateway's reading of an absent `strict`, not from the model or the request.

# %% [markdown] tags=["zh-CN"]
# ## 同一个实验，发往透传路由
#
# `passthrough` 路由按发送的原样理解 `strict`：缺失就不是 strict。于是在每个变体中模型都只发送必填字段，
# DSH 接受每个调用，差异随之消失：拒绝来自网关对缺失 `strict` 的解读，而不是来自模型或请求本身。

# %%
after = experiment(f"{BASE}/passthrough/v1/responses")
after.summary[["variant", "samples", "calls", "accepted", "refused", "filled_empty", "top_rule"]]

# %%
plots.experiment_rates(after.summary)

# %%
print(report.experiment_sentence(after))

# %% [markdown] tags=["en"]
# ## A model that only sometimes gives in
#
# A scripted persona answers the same way every time, so every rate above is 0 or 100% and the
# intervals only show how few samples there were. The lab's `gw-sometimes` persona fills the optional
# fields under strict with probability 0.7 (one seeded draw per answer), like a real model that mostly,
# but not always, does what the strict schema asks. The persona is named by the request's model, so
# this run replays a copy of the captured request with `model: gw-sometimes` (written as a one-line
# capture in the toolkit's JSONL shape); the variants then change only the contract, as before.

# %% [markdown] tags=["zh-CN"]
# ## 只是有时让步的模型
#
# 预先编写好的角色每次都给出同样的回答，所以上面的每个比率都是 0 或 100%，区间只反映出样本有多少。实验室的
# `gw-sometimes` 角色在 strict 下以 0.7 的概率填写可选字段（每个回答一次带种子的抽样），就像一个大多数时候、
# 但并非每次都照 strict schema 的要求去做的真实模型。角色由请求中的模型名指定，所以这次运行重放的是捕获请求的
# 一个副本，其中 `model: gw-sometimes`（写成本工具包 JSONL 格式的一行捕获记录）；各变体仍然只改变契约。

# %%
import json

body = captured.bodies.set_index("exchange_id").loc["capture.har:1", "request"]
sometimes_capture = Path(tempfile.mkdtemp(prefix="capture-")) / "sometimes.jsonl"
record = {
    "id": "sometimes",
    "started_at": "2026-12-01T09:00:00Z",
    "request": {
        "method": "POST",
        "url": "http://127.0.0.1/absent-is-strict/v1/responses",
        "headers": [],
        "body": {**body, "model": "gw-sometimes"},
    },
    "response": None,
}
sometimes_capture.write_text(json.dumps(record) + "\n", encoding="utf-8")
sometimes = run(
    sometimes_capture,
    endpoint=f"{BASE}/absent-is-strict/v1/responses",
    variants=["strict-absent", "strict-false"],
    samples=12,
    mode=MODE,
    dsh=DSH,
    out=tempfile.mkdtemp(prefix="experiment-"),
    limits=Limits(rate=50),
    progress=False,
    now=fixed_clock(),
    notice=lambda text: None,
)
came_back = f"### {i18n.t('experiment.came_back')}\n"  # the section's second half, in the notebook's language
display(Markdown(report.experiment_markdown(sometimes).split(came_back, 1)[1]))

# %%
plots.experiment_rates(sometimes.summary)

# %% [markdown] tags=["en"]
# ## The report section
#
# `agent-contract verify --experiment DIR`, the HTML report and the postmortem template include the
# experiment as one section (the HTML one with the figure embedded):

# %% [markdown] tags=["zh-CN"]
# ## 报告中的章节
#
# `agent-contract verify --experiment DIR`、HTML 报告和事后复盘模板都把实验作为其中一节（HTML 版内嵌图表）：

# %%
display(Markdown(report.experiment_markdown(before).replace(f":{PORT}", ":<port>")))

# %% [markdown] tags=["en"]
# ## Against a real endpoint
#
# The same experiment from a shell, against the endpoint the agent really used:
#
# ```sh
# export GATEWAY_API_KEY=...        # the key is read from this variable only, never from a file
# agent-contract experiment data/dsh-before-fix/capture.har --exchange capture.har:1 \
#     --endpoint https://gateway.example.com/v1/responses --api-key-env GATEWAY_API_KEY \
#     --variants strict-absent,strict-false,prune-schema --samples 5 --mode danger-full-access \
#     --out experiment/
# ```
#
# The safety rules: without `--endpoint` it is a dry run (the variants and their changes, nothing sent);
# the endpoint is never taken from the capture, and when its host is not the captured one the run says
# so before sending; redirects are never followed; a request carrying an image is sent only with
# `--allow-images`; the whole run (samples × variants, retries included) must fit `--max-requests`
# (default 50), checked before the first request; requests are spaced by `--rate` (default 1 per
# second), 429s are retried after the wait the server asks for, each request has a `--timeout`; the key
# goes into the `authorization` header and nowhere else (redacted in everything recorded). The folder
# holds `exchanges.jsonl` (the experiment as a capture), `plan.csv`, `changes.csv`, `answers.csv`,
# `summary.csv`, `experiment.json`, and `experiment.md`, `experiment.html` and `refusals.png`.
# `agent-contract verify ... --experiment experiment/` adds it to the verdict's report.

# %% [markdown] tags=["zh-CN"]
# ## 针对真实的端点
#
# 在 shell 中对智能体实际使用的端点运行同一个实验：
#
# ```sh
# export GATEWAY_API_KEY=...        # 密钥只从这个变量读取，绝不从文件读取
# agent-contract experiment data/dsh-before-fix/capture.har --exchange capture.har:1 \
#     --endpoint https://gateway.example.com/v1/responses --api-key-env GATEWAY_API_KEY \
#     --variants strict-absent,strict-false,prune-schema --samples 5 --mode danger-full-access \
#     --out experiment/
# ```
#
# 安全规则：不带 `--endpoint` 就是试运行（只列出各变体及其改动，不发送任何内容）；端点绝不从捕获记录中获取，
# 当它的主机与捕获记录中的不同时，运行会在发送前指出；从不跟随重定向；带图片的请求只有指定了 `--allow-images`
# 才会发送；整个运行（样本数 × 变体数，含重试）必须不超过 `--max-requests`（默认 50），在发出第一个请求之前就会
# 检查；请求之间按 `--rate` 间隔（默认每秒 1 个），遇到 429 会按服务器要求的时间等待后重试，每个请求都有
# `--timeout`；密钥只放进 `authorization` 请求头，别处一概不放（所有记录中都已脱敏）。文件夹中包含
# `exchanges.jsonl`（以捕获记录形式保存的实验）、`plan.csv`、`changes.csv`、`answers.csv`、`summary.csv`、
# `experiment.json`，以及 `experiment.md`、`experiment.html` 和 `refusals.png`。
# `agent-contract verify ... --experiment experiment/` 会把它加入结论的报告。

# %%
server.shutdown()
server.server_close()
