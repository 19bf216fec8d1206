"""The lab's data: every file loads, and each scenario shows the facts it was built to show.

The data was made by ``make captures`` (real pi-ai → mitmproxy → stub gateway); these tests read what
is committed, so they need neither node nor mitmproxy.
"""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest
import yaml
from conftest import REPO

import toolkit

DATA = REPO / "data"
sys.path.insert(0, str(REPO / "lab"))
import dsh_session  # noqa: E402
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
    # data/README.md: only busy-day is bad on purpose, with its cut streams
    assert set(probs["source"]) == {"busy-day/gateway.jsonl"} and set(probs["kind"]) == {"stream-cut"}
    assert all(x.split(": ")[0].endswith((".json", ".yaml", ".md")) for x in skipped)


@pytest.mark.parametrize("view", VIEWS)
def test_before_fix_strict_absent_image_dropped_and_filled_fields(view):
    cap = load("before-fix", view)
    assert len(cap.exchanges) == 4 and set(cap.exchanges["status"]) == {200}
    assert set(cap.tools["strict_state"]) == {"absent"} and set(cap.tools["name"]) == {"bash", "read_image"}
    user = cap.inputs[(cap.inputs["role"] == "user")]
    assert user["image_dropped"].any() and not (cap.inputs["part_type"] == "input_image").any()
    assert set(user.loc[user["image_dropped"], "text"]) == {"(image omitted: model does not support images)"}
    calls = list(zip(cap.calls["name"], cap.calls["arguments"]))
    assert calls == [
        ("bash", FILLED),
        ("bash", {**FILLED, "justification": "Listing the workspace needs full access to every directory."}),
        ("read_image", {"file_path": "screenshot.png"}),
    ]
    outputs = cap.inputs[cap.inputs["item_type"] == "function_call_output"].drop_duplicates("call_id")
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


def test_before_fix_session_log():
    cap = load("before-fix", "session.jsonl.zstd")
    ev = cap.events
    first = ev[ev["type"].isin(["permission/preset", "sandbox/mode", "approval/policy"])]["payload"].tolist()
    assert first == [
        {"preset": "danger-full-access"},
        {"mode": "danger-full-access", "source": "preset"},
        {"policy": "never"},
    ]
    assert list(cap.tool_results["text"]) == [EMPTY_JUSTIFICATION, SAME_MODE, NO_IMAGE]
    assert cap.tool_results["is_error"].all()
    assert next(iter(cap.calls["arguments"])) == FILLED
    # the raw argument strings are the ones the model streamed, byte for byte
    har = load("before-fix", "capture.har")
    assert list(cap.calls["arguments_raw"]) == list(har.calls["arguments_raw"])
    header = ev.loc[ev["type"] == "request/header", "payload"].iloc[0]["header"]
    assert [t["name"] for t in header["tools"]] == ["bash", "read_image"] and "strict" not in header["tools"][0]


def test_session_logs_are_many_zstd_frames_and_reproducible(tmp_path):
    import zstandard

    for name in ("before-fix", "after-fix"):
        path = DATA / name / "session.jsonl.zstd"
        raw = path.read_bytes()
        first = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        assert first.count(b"\n") == 1 and b'"type":"session"' in first  # the header alone in frame one
        scen = scenarios.BY_NAME[name]
        transcript = json.loads((DATA / name / f"transcript-{name}.json").read_text(encoding="utf-8"))
        out = tmp_path / name / "session.jsonl.zstd"
        out.parent.mkdir()
        (out.parent / "gateway.jsonl").write_bytes((DATA / name / "gateway.jsonl").read_bytes())
        dsh_session.write(out, scen, scen.runs[0], transcript)
        assert out.read_bytes() == raw, f"{name}: the committed session log is not what the lab writes"


@pytest.mark.parametrize("view", VIEWS)
def test_after_fix_strict_false_image_sent_ordinary_call(view):
    cap = load("after-fix", view)
    assert set(cap.tools["strict_state"]) == {"false"}
    images = cap.inputs[cap.inputs["part_type"] == "input_image"]
    assert len(images) == 2 and set(images["media_type"]) == {"image/png"}
    assert set(images["byte_size"]) == {len(scenarios.SCREENSHOT)} and not cap.inputs["image_dropped"].any()
    assert cap.calls["arguments"].tolist() == [ORDINARY]
    assert list(cap.exchanges["terminal"]) == ["completed", "completed"]


def test_after_fix_session_runs_the_command():
    cap = load("after-fix", "session.jsonl.zstd")
    assert cap.tool_results["text"].tolist() == [scenarios.LS_OUTPUT] and not cap.tool_results["is_error"].any()


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
    assert (cap.inputs["part_type"] == "input_image").any()
    assert (cap.calls["arguments"].map(lambda a: a.get("justification") == "" if isinstance(a, dict) else False)).any()


def test_only_fake_keys_were_recorded_and_none_survive_redaction():
    for folder in ("before-fix", "other-apis", "busy-day"):
        for view in [v for v in VIEWS if (DATA / folder / v).exists()]:
            raw = load(folder, view, redact=False).headers
            auth = set(raw.loc[raw["name"] == "authorization", "value"])
            assert auth and all(a.startswith(("Bearer sk-lab-FAKE-", "Bearer eyJ")) for a in auth), (folder, view)
            red = load(folder, view)
            text = "\n".join(getattr(red, n).astype(str).to_csv() for n in ("exchanges", "headers", "calls", "inputs"))
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
