"""The lab's data: every file loads, and each scenario shows the facts it was built to show.

The data was made by ``make captures`` (real pi-ai, and the published DSH 0.1.0-rc.8 run headless, → mitmproxy →
stub gateway); these tests read what is committed, so they need neither node nor mitmproxy. Every session log
in data/ was written by DSH itself (the ``dsh-*`` folders).
"""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest
import yaml
import zstandard
from conftest import REPO

import toolkit
from toolkit.knowledge import dsh_images
from toolkit.layers import execution

DATA = REPO / "data"
sys.path.insert(0, str(REPO / "lab"))
import scenarios  # noqa: E402

VIEWS = ("capture.har", "capture.mitm", "gateway.jsonl")  # the same traffic, recorded three ways
FILLED = {
    "command": "ls -la",
    "description": "List files in the workspace",
    "timeoutMs": 120000,
    "workdir": ".",
    "run_in_background": False,
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}
ORDINARY = {"command": "ls -la", "description": "List files in the workspace"}
EMPTY_JUSTIFICATION = "Error: invalid justification: expected a non-empty sentence"
SAME_MODE = (
    'Error: sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current '
    '"danger-full-access" mode'
)
NO_IMAGE = (
    'Error: cannot read "screenshot.png" as an image: model "gw-coder" does not declare image input; '
    "switch to an image-capable model to read images"
)


def load(folder: str, name: str, **kw) -> toolkit.Capture:
    return toolkit.load_capture(DATA / folder / name, **kw)


def test_every_capture_loads_without_problems_except_the_cut_streams():
    files, skipped = toolkit.find_captures([DATA])
    # the rewriter's own log (lab/rewriter.py) is JSONL but not a capture (it is the reference for hop
    # diffs): detection says so, and it is listed as skipped, not read
    rewriter_logs = [x for x in skipped if "rewriter.jsonl" in x]
    assert len(rewriter_logs) == 2 and all("not an exchange log" in x for x in rewriter_logs)
    skipped = [x for x in skipped if x not in rewriter_logs]
    cap = toolkit.load_captures(files)
    s = cap.summary()
    assert s["reconciles"].all() and (s["lost"] == 0).all()
    probs = cap.problems
    # LiteLLM's own logs lose what data/README.md says they lose: base64 data, and on the Chat bridge the
    # backend's conversation (litellm.jsonl) or the client's response (litellm-spend.jsonl)
    litellm = probs["source"].astype(str).str.match(r"litellm-[^/]+/litellm(-spend)?\.jsonl$")
    assert set(probs.loc[litellm, "kind"]) == {"body-truncated", "body-missing"}
    assert probs.loc[litellm, "message"].str.startswith("LiteLLM ").all()
    probs = probs[~litellm]
    # data/README.md: only busy-day is bad on purpose, with its cut streams
    assert set(probs["source"]) == {"busy-day/gateway.jsonl"} and set(probs["kind"]) == {"stream-cut"}
    assert all(x.split(": ")[0].endswith((".json", ".yaml", ".md", ".csv")) for x in skipped)


@pytest.mark.parametrize("view", VIEWS)
def test_before_fix_strict_absent_image_dropped_and_filled_fields(view):
    cap = load("before-fix", view)
    assert len(cap.exchanges) == 4 and set(cap.exchanges["status"]) == {200}
    assert set(cap.tools["strict_state"]) == {"absent"} and set(cap.tools["name"]) == {"bash", "read_image"}
    inputs = cap.inputs_wide()
    user = inputs[(inputs["role"] == "user")]
    assert user["image_dropped"].any() and not (inputs["part_type"] == "input_image").any()
    assert set(user.loc[user["image_dropped"], "text"]) == {"(image omitted: model does not support images)"}
    calls = list(zip(cap.calls["name"], cap.calls["arguments"]))
    assert calls == [
        ("bash", FILLED),
        ("bash", {**FILLED, "justification": "Listing the workspace needs full access to every directory."}),
        ("read_image", {"file_path": "screenshot.png"}),
    ]
    outputs = inputs[inputs["item_type"] == "function_call_output"].drop_duplicates("call_id")
    assert list(outputs["text"]) == [EMPTY_JUSTIFICATION, SAME_MODE, NO_IMAGE]


def test_before_fix_advertised_schema_is_dshs_with_the_escalation_fields():
    cap = load("before-fix", "capture.har")
    bash = cap.tool_schemas.loc[cap.tool_schemas["schema_hash"] == cap.tools.iloc[0]["schema_hash"], "schema"].iloc[0]
    assert bash == scenarios.BASH_PARAMETERS
    assert bash["properties"]["sandbox_permissions"]["enum"] == ["workspace-write", "danger-full-access"]
    assert cap.tools.iloc[0]["optional"] == (
        "timeoutMs",
        "workdir",
        "run_in_background",
        "sandbox_permissions",
        "justification",
    )


def test_before_fix_gateway_read_absent_as_strict():
    for line in (DATA / "before-fix" / "gateway.jsonl").read_text(encoding="utf-8").splitlines():
        gw = json.loads(line)["gateway"]
        assert gw["behaviour"] == "absent-is-strict" and gw["strict"] == {"bash": True, "read_image": True}


@pytest.mark.parametrize("view", VIEWS)
def test_after_fix_strict_false_image_sent_ordinary_call(view):
    cap = load("after-fix", view)
    assert set(cap.tools["strict_state"]) == {"false"}
    inputs = cap.inputs_wide()
    images = inputs[inputs["part_type"] == "input_image"]
    assert len(images) == 2 and set(images["media_type"]) == {"image/png"}
    assert set(images["byte_size"]) == {len(scenarios.SCREENSHOT)} and not inputs["image_dropped"].any()
    assert cap.calls["arguments"].tolist() == [ORDINARY]
    assert list(cap.exchanges["terminal"]) == ["completed", "completed"]


def test_other_apis_strict_states_paths_and_versions():
    cap = load("other-apis", "capture.har")
    ex = cap.exchanges.set_index("exchange_id")
    tools = cap.tools[cap.tools["name"] == "bash"].set_index("exchange_id")["strict_state"]
    ua = cap.headers[cap.headers["name"] == "user-agent"].set_index("exchange_id")["value"]
    rows = [(ex.loc[x, "path"], ex.loc[x, "api"], tools[x], ua[x]) for x in ex.index]
    assert (
        rows
        == [
            ("/passthrough/codex/responses", "responses", "null", "pi/1.6.0 (linux; node/v20.20.2; x64)"),
        ]
        * 2
        + [
            ("/passthrough/v1/chat/completions", "chat", "absent", "pi/1.6.0 (linux; node/v20.20.2; x64)"),
        ]
        * 2
        + [
            ("/passthrough/v1/chat/completions", "chat", "false", "pi/1.6.0 (linux; node/v20.20.2; x64)"),
        ]
        * 2
        + [
            ("/absent-is-strict/v1/responses", "responses", "false", "OpenAI/JS 6.26.0"),
        ]
        * 2
    )
    assert cap.calls["arguments"].tolist() == [ORDINARY] * 4
    # Codex carries its account id header and a JWT; both are redacted
    hdr = cap.headers[cap.headers["exchange_id"] == "capture.har:0"].set_index("name")["value"]
    assert hdr["chatgpt-account-id"] == "<redacted>" and hdr["authorization"] == "<redacted>"


def test_image_refused_by_the_gateway():
    for view in VIEWS:
        ex = load("image-refused", view).exchanges.iloc[0]
        assert (ex.status, ex.terminal, ex.error_type, ex.error_code, ex.error_message) == (
            400,
            "http-error",
            "invalid_request_error",
            "unsupported_image_input",
            "Image input is not supported by model gw-coder on this gateway.",
        )
    transcript = json.loads((DATA / "image-refused" / "transcript-image-refused.json").read_text(encoding="utf-8"))
    assert transcript["final"]["stopReason"] == "error"
    assert transcript["final"]["errorMessage"].startswith("gateway API error (400): ")


def test_busy_day_mix():
    cap = load("busy-day", "gateway.jsonl")
    ex = cap.exchanges
    assert len(ex) == 300
    assert {429, 500} <= set(ex["status"].dropna()) and {"cut", "failed", "completed", "http-error"} <= set(
        ex["terminal"].dropna()
    )
    assert set(ex["api"]) == {"responses", "chat"} and set(ex["model"]) == {"gw-coder", "gw-vision", "gw-text-mini"}
    assert set(cap.tools["strict_state"]) == {"absent", "null", "false"}
    span = ex["started_at"].max() - ex["started_at"].min()
    assert span > pd.Timedelta(hours=10) and ex["started_at"].is_monotonic_increasing
    assert (cap.inputs_wide()["part_type"] == "input_image").any()
    assert (cap.calls["arguments"].map(lambda a: a.get("justification") == "" if isinstance(a, dict) else False)).any()


def test_only_fake_keys_were_recorded_and_none_survive_redaction():
    for folder in ("before-fix", "other-apis", "busy-day"):
        for view in [v for v in VIEWS if (DATA / folder / v).exists()]:
            raw = load(folder, view, redact=False).headers
            auth = set(raw.loc[raw["name"] == "authorization", "value"])
            assert auth and all(a.startswith(("Bearer sk-lab-FAKE-", "Bearer eyJ")) for a in auth), (folder, view)
            red = load(folder, view)
            text = "\n".join(
                getattr(red, n).astype(str).to_csv() for n in ("exchanges", "headers", "calls", "input_parts")
            )
            assert "sk-lab-FAKE" not in text and "acct-lab-fake" not in text, (folder, view)


def test_mitm_chunk_times_kept_and_views_agree():
    from toolkit.sources import mitm

    flows = [r for r in mitm.read(DATA / "before-fix" / "capture.mitm", "m") if hasattr(r, "chunk_times")]
    assert all(len(d.chunk_times) > 3 for d in flows)  # SSE chunks arrived separately and were timed
    views = [load("before-fix", v) for v in VIEWS]
    assert len({tuple(c.calls["arguments_raw"]) for c in views}) == 1


def test_settings_match_what_the_lab_ran():
    before = yaml.safe_load((DATA / "configs" / "settings.before.yaml").read_text(encoding="utf-8"))
    after = yaml.safe_load((DATA / "configs" / "settings.after.yaml").read_text(encoding="utf-8"))
    b_route, a_route = before["llm-pi-ai"]["providers"]["gateway"], after["llm-pi-ai"]["providers"]["gateway"]
    b_model, a_model = b_route["models"][0], a_route["models"][0]
    run_b, run_a = scenarios.BY_NAME["before-fix"].runs[0], scenarios.BY_NAME["after-fix"].runs[0]
    assert "compat" not in b_route and "input" not in b_model and run_b.compat is None and run_b.input is None
    assert a_route["compat"] == run_a.compat and a_model["input"] == run_a.input
    assert b_model["id"] == a_model["id"] == run_b.model == run_a.model
    for s in (before, after):
        assert s["permission"]["defaultPreset"] == "danger-full-access"
        assert s["llm-pi-ai"]["providers"]["gateway"]["baseURL"].endswith(
            f":{scenarios.PROXY_PORT}/absent-is-strict/v1"
        )


# --- Session logs written by the published DSH itself (lab/run.py --dsh: `dsh --profile headless`) ---------

DSH_FOLDERS = ("dsh-before-fix", "dsh-after-fix", "dsh-image")


def _dsh_lines(folder: str) -> list[dict]:
    raw = (DATA / folder / "session.jsonl.zstd").read_bytes()
    out = b""
    while raw:  # one zstd frame per append batch
        obj = zstandard.ZstdDecompressor().decompressobj()
        out += obj.decompress(raw)
        raw = obj.unused_data
    return [json.loads(line) for line in out.decode("utf-8").splitlines() if line.strip()]


def _har_outputs(folder: str) -> dict[str, str]:
    """call_id → the function_call_output text the last request of the HAR sent back to the model."""
    har = json.loads((DATA / folder / "capture.har").read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for entry in har["log"]["entries"]:
        body = json.loads(entry["request"]["postData"]["text"])
        for item in body.get("input") or ():
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                output = item["output"]  # a string, or content parts (text, then any image read_image added)
                if isinstance(output, list):
                    output = "".join(p["text"] for p in output if p.get("type") == "input_text")
                out[item["call_id"]] = output
    return out


@pytest.mark.parametrize("folder", DSH_FOLDERS)
def test_dsh_written_session_loads_without_problems(folder):
    cap = toolkit.load_capture(DATA / folder / "session.jsonl.zstd")
    assert cap.problems.empty
    assert set(cap.exchanges["model"]) == {"gw-coder"} and set(cap.exchanges["api"]) == {"responses"}
    header = _dsh_lines(folder)[0]
    assert header["type"] == "session" and header["version"] == 0


@pytest.mark.parametrize("folder", DSH_FOLDERS)
def test_dsh_session_logs_are_many_zstd_frames(folder):
    """DSH appends in batches, one zstd frame each; the header is the first batch alone."""
    raw = (DATA / folder / "session.jsonl.zstd").read_bytes()
    obj = zstandard.ZstdDecompressor().decompressobj()
    first = obj.decompress(raw)
    assert first.count(b"\n") == 1 and first.startswith(b'{"type":"session","version":0,')
    assert obj.unused_data  # more frames follow


@pytest.mark.parametrize("folder", DSH_FOLDERS)
def test_dsh_calls_and_advertised_tools_are_the_wire_s(folder):
    """The raw argument strings DSH logged are the ones the model streamed (HAR), byte for byte, and the tools
    its request header lists are the tools on the wire, without `strict` (pi-ai adds that when it serializes)."""
    cap = toolkit.load_capture(DATA / folder / "session.jsonl.zstd")
    har = toolkit.load_capture(DATA / folder / "capture.har")
    assert list(cap.calls["arguments_raw"]) == list(har.calls["arguments_raw"]) and len(cap.calls) > 0
    ev = cap.events
    header = ev.loc[ev["type"] == "request/header", "payload"].iloc[0]["header"]
    names = [t["name"] for t in header["tools"]]
    assert names == sorted(set(har.tools["name"])) and "bash" in names and "read_image" in names
    assert not any("strict" in t for t in header["tools"])


@pytest.mark.parametrize("folder", DSH_FOLDERS)
def test_dsh_tool_results_are_what_the_wire_carried(folder):
    """What DSH recorded as each tool result is what pi-ai sent to the gateway in the same run (HAR)."""
    cap = toolkit.load_capture(DATA / folder / "session.jsonl.zstd")
    sent = _har_outputs(folder)
    assert len(cap.tool_results) == len(sent) > 0
    for row in cap.tool_results.itertuples():
        # DSH keeps pi-ai's joined Responses id `call_…|fc_…`; the wire carries the call_id part
        assert sent[row.call_id.split("|", 1)[0]] == row.text


@pytest.mark.parametrize("folder", DSH_FOLDERS)
def test_dsh_modes_and_replay_agree(folder):
    lines = _dsh_lines(folder)
    events = {
        r["type"]: r["data"] for r in lines if r["type"] in ("permission/preset", "sandbox/mode", "approval/policy")
    }
    assert events == {
        "permission/preset": {"preset": "danger-full-access"},
        "sandbox/mode": {"mode": "danger-full-access"},
        "approval/policy": {"policy": "never"},
    }
    cap = toolkit.load_capture(DATA / folder / "session.jsonl.zstd")
    replay = execution.replay(cap, dsh="0.1.0-rc.8")
    judged = replay[replay["tool"] != "read_image"]  # read_image is judged only with settings (layer 3)
    assert len(replay) == len(cap.tool_results) and judged["agrees"].all() and len(judged) > 0
    settings = toolkit.load_settings(DATA / folder / "settings.yaml", dsh="0.1.0-rc.8")  # what DSH was given
    with_settings = execution.replay(cap, dsh="0.1.0-rc.8", settings=settings)
    assert with_settings["agrees"].notna().all() and with_settings["agrees"].all()


def test_dsh_before_fix_refusals():
    """The seed's three errors, each in DSH's own words, from one run of the published DSH."""
    cap = toolkit.load_capture(DATA / "dsh-before-fix" / "session.jsonl.zstd")
    no_image = dict(dsh_images.refusals("gw-coder", path="screenshot.png"))["read_image"]
    assert list(cap.tool_results["text"]) == [EMPTY_JUSTIFICATION, SAME_MODE, no_image]
    assert list(cap.calls["name"]) == ["bash", "bash", "read_image"]
    assert cap.tool_results["is_error"].all()
    first = json.loads(cap.calls["arguments_raw"].iloc[0])
    assert first == FILLED  # strict absent, the gateway read it as strict: every optional field filled
    run = json.loads((DATA / "dsh-before-fix" / "dsh-run.json").read_text(encoding="utf-8"))
    assert run["exitCode"] == 0 and run["stdout"].strip().endswith(no_image)


def test_dsh_after_fix_runs_the_command():
    cap = toolkit.load_capture(DATA / "dsh-after-fix" / "session.jsonl.zstd")
    assert json.loads(cap.calls["arguments_raw"].iloc[0]) == ORDINARY
    assert not cap.tool_results["is_error"].any()
    har = json.loads((DATA / "dsh-after-fix" / "capture.har").read_text(encoding="utf-8"))
    bodies = [json.loads(e["request"]["postData"]["text"]) for e in har["log"]["entries"]]
    bash = [t for b in bodies for t in b.get("tools") or () if t.get("name") == "bash"]
    assert bash and all(t["strict"] is False for t in bash)


@pytest.mark.parametrize("folder", DSH_FOLDERS)
def test_dsh_har_holds_the_steps_and_the_title_request(folder):
    """Each model step is one exchange; DSH's session-title call (logged as session/title-llm-request, not a step)
    is one more request on the wire, without tools."""
    cap = toolkit.load_capture(DATA / folder / "session.jsonl.zstd")
    har = json.loads((DATA / folder / "capture.har").read_text(encoding="utf-8"))
    bodies = [json.loads(e["request"]["postData"]["text"]) for e in har["log"]["entries"]]
    assert len(bodies) == len(cap.exchanges) + 1
    assert sum(1 for b in bodies if not b.get("tools")) == 1
    assert sum(1 for r in _dsh_lines(folder) if r["type"] == "session/title-llm-request") == 1


def test_dsh_image_reaches_a_gateway_that_refuses_it():
    """Image declared, so DSH's read_image reads the screenshot; the gateway answers 400 and DSH exits 1 with the
    provider's text on stderr, recorded the same in DSH's log, the HAR and the gateway's own log."""
    folder = DATA / "dsh-image"
    cap = toolkit.load_capture(folder / "session.jsonl.zstd")
    assert list(cap.calls["name"]) == ["bash", "bash", "read_image"]
    assert list(cap.tool_results["text"][:2]) == [EMPTY_JUSTIFICATION, SAME_MODE]
    last = cap.exchanges.iloc[-1]
    har = toolkit.load_capture(folder / "capture.har")
    gateway = toolkit.load_capture(folder / "gateway.jsonl")
    refused = har.exchanges[har.exchanges["status"] == 400]
    assert len(refused) == 1 and len(gateway.exchanges[gateway.exchanges["status"] == 400]) == 1
    message = refused["error_message"].iloc[0]
    assert message == "Image input is not supported by model gw-coder on this gateway."
    assert last["api"] == "responses" and message in last["error_message"]
    run = json.loads((folder / "dsh-run.json").read_text(encoding="utf-8"))
    assert run["exitCode"] == 1 and run["stderr"] == f"dsh: INVALID_REQUEST: {last['error_message']}\n"
    body = json.loads(
        json.loads(folder.joinpath("capture.har").read_text())["log"]["entries"][-1]["request"]["postData"]["text"]
    )
    parts = [
        p
        for item in body["input"]
        if item.get("type") == "function_call_output" and isinstance(item["output"], list)
        for p in item["output"]
    ]
    assert [p["type"] for p in parts] == ["input_text", "input_image"]
    assert parts[1]["image_url"].startswith("data:image/png;base64,")
