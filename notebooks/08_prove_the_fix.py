# %% [markdown]
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
from toolkit.present import plots, report

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


# %% [markdown]
# ## The captured request
#
# The HAR the lab recorded in front of the gateway while the published DSH 0.1.0-rc.8 ran, before the
# fix. Its first exchange, `capture.har:0`, is DSH's session-title request, which carries no tools;
# the first model step, `capture.har:1`, is the request to replay: 25 tools, `strict` absent on each.

# %%
captured = toolkit.load_capture(CAPTURE, keep_bodies=True)
tools = captured.tools.groupby("exchange_id")["strict_state"].agg(lambda s: ", ".join(sorted(set(s.astype(str)))))
captured.exchanges[["exchange_id", "path", "model", "api", "status"]].assign(
    tools=captured.exchanges["exchange_id"].map(captured.tools.groupby("exchange_id").size()).fillna(0).astype(int),
    strict=captured.exchanges["exchange_id"].map(tools).astype(object).fillna("—"),
)

# %% [markdown]
# What the model sent back to that request, as the capture recorded it: every optional field filled,
# `justification` empty.

# %%
captured.calls[captured.calls["exchange_id"] == "capture.har:1"][["call_id", "name", "arguments"]]

# %% [markdown]
# ## The dry run: the variants and what each changes
#
# Without an endpoint nothing is sent: `run` (and `agent-contract experiment` without `--endpoint`)
# only builds the variants and lists what each changes against the captured body, in `hops.diff`'s
# vocabulary. `strict-absent` has nothing to change (the capture already has no `strict`), so it is the
# captured request as it was; `strict-false` adds `strict: false` to all 25 tools; `prune-schema` drops
# the escalation fields DSH advertises even in `danger-full-access`.

# %%
dry = run(CAPTURE, exchange="capture.har:1", variants=VARIANTS, samples=5, mode=MODE, dsh=DSH)
dry.changes.groupby(["variant", "kind"], observed=True).size().rename("changes").to_frame()

# %%
display(Markdown(report.experiment_markdown(dry)))

# %% [markdown]
# ## Sent to the before-fix route
#
# The lab's `absent-is-strict` route reads an absent `strict` as strict, as the gateway in the incident
# did. Each variant goes out five times, interleaved (sample 1 of every variant, then sample 2, …) so that
# any drift in time hits all variants alike. The gateway listens on another port than the one in the
# capture, and the run says so before it sends anything:

# %%
notices = []
before = experiment(f"{BASE}/absent-is-strict/v1/responses", notices=notices)
print("\n".join(n.replace(f":{PORT}", ":<port>") for n in notices))

# %% [markdown]
# Every exchange the experiment made is recorded as a capture the toolkit reads (`exchanges.jsonl` in
# its folder); each call in each answer is judged by DSH's execution layer in the session's mode:

# %%
before.answers[["variant", "sample", "status", "tool", "empty_filled", "verdict", "rule"]]

# %%
before.summary[["variant", "samples", "calls", "accepted", "refused", "filled_empty", "top_rule"]]

# %%
plots.experiment_rates(before.summary)

# %%
print(before.comparison["sentence"])

# %% [markdown]
# ## The same experiment against a pass-through route
#
# The `passthrough` route reads `strict` as sent: absent is not strict. The model then sends only the
# required fields in every variant, DSH accepts every call, and the difference disappears: the refusals
# came from the gateway's reading of an absent `strict`, not from the model or the request.

# %%
after = experiment(f"{BASE}/passthrough/v1/responses")
after.summary[["variant", "samples", "calls", "accepted", "refused", "filled_empty", "top_rule"]]

# %%
plots.experiment_rates(after.summary)

# %%
print(after.comparison["sentence"])

# %% [markdown]
# ## A model that only sometimes gives in
#
# A scripted persona answers the same way every time, so every rate above is 0 or 100% and the
# intervals only show how few samples there were. The lab's `gw-sometimes` persona fills the optional
# fields under strict with probability 0.7 (one seeded draw per answer), like a real model that mostly,
# but not always, does what the strict schema asks. The persona is named by the request's model, so
# this run replays a copy of the captured request with `model: gw-sometimes` (written as a one-line
# capture in the toolkit's JSONL shape); the variants then change only the contract, as before.

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
display(Markdown(report.experiment_markdown(sometimes).split("### What came back\n", 1)[1]))

# %%
plots.experiment_rates(sometimes.summary)

# %% [markdown]
# ## The report section
#
# `agent-contract verify --experiment DIR`, the HTML report and the postmortem template include the
# experiment as one section (the HTML one with the figure embedded):

# %%
display(Markdown(report.experiment_markdown(before).replace(f":{PORT}", ":<port>")))

# %% [markdown]
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

# %%
server.shutdown()
server.server_close()
