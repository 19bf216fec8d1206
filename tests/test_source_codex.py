"""Codex CLI rollout files: exchanges per model response, calls, tool results, the permission state, problems."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.capture import frames, load_capture
from toolkit.capture.load import FRAME_NAMES
from toolkit.errors import CaptureError
from toolkit.knowledge import codex
from toolkit.sources import codex_rollout, detect, dsh_session, registry, sniff

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "codex"
REAL = FIXTURES / "real-0.171.0-danger-full-access.jsonl"
REAL_ESCALATION = FIXTURES / "real-0.171.0-escalation-never.jsonl"
APPROVED = FIXTURES / "workspace-write-approved.jsonl"
LEGACY = FIXTURES / "danger-full-access-legacy.jsonl"
PARTLY_BAD = FIXTURES / "partly-bad.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _dtypes_ok(cap) -> None:
    assert [m for name in FRAME_NAMES for m in frames.CAPTURE[name].mismatches(getattr(cap, name))] == []


def _perm(cap, kind: str) -> list[tuple[str, object]]:
    ev = cap.events[cap.events["type"] == kind]
    key = "mode" if kind == "sandbox/mode" else "policy"
    return [(r.location, r.payload[key]) for r in ev.itertuples(index=False)]


def test_the_registry_places_it_right_after_dsh_session():
    names = list(registry.NAMES)
    assert names.index("codex-rollout") == names.index("dsh-session") + 1


@pytest.mark.parametrize("path", [REAL, REAL_ESCALATION, APPROVED, LEGACY, PARTLY_BAD], ids=lambda p: p.stem)
def test_each_fixture_is_detected_and_reconciles(path):
    assert detect.detect(path) == "codex-rollout"
    cap = load_capture(path)
    s = cap.summary().iloc[0]
    assert s["unit"] == "line" and s["entries"] == len([x for x in path.read_bytes().split(b"\n") if x.strip()])
    assert bool(s["reconciles"]) and s["entries"] == s["read"] + s["lost"]
    _dtypes_ok(cap)


def test_the_real_rollout_one_exchange_per_model_response():
    """codex-cli 0.171.0 against the lab gateway: a call, its output, a final message; two responses."""
    lines = _lines(REAL)
    records = [(n, x["payload"]) for n, x in enumerate(lines, 1) if x["type"] == "token_usage_record"]
    cap = load_capture(REAL)
    ex = cap.exchanges
    assert list(ex["location"]) == ["line 10", "line 16"]  # the function_call, the assistant message
    assert set(ex["api"]) == {"responses"} and set(ex["provider"]) == {"lab"} and set(ex["model"]) == {"gw-coder"}
    assert set(ex["body_fidelity"]) == {"normalised"}
    assert list(ex["log_id"]) == [p["response_id"] for _, p in records]
    assert list(ex["input_tokens"]) == [p["usage"]["input_tokens"] for _, p in records]
    assert list(ex["output_tokens"]) == [p["usage"]["output_tokens"] for _, p in records]
    call = cap.calls.iloc[0]
    assert (call["name"], call["call_id"], call["arguments"]) == ("exec_command", "call_0001", {"cmd": "example"})
    res = cap.tool_results.iloc[0]
    assert res["call_id"] == "call_0001" and res["exchange_id"] == ex["exchange_id"].iloc[0]
    assert "Process exited with code 127" in res["text"] and res["is_error"] == False  # noqa: E712  (it ran)
    assert _perm(cap, "sandbox/mode") == [("line 6", "danger-full-access")]
    assert _perm(cap, "approval/policy") == [("line 6", "never")]
    tool_call = cap.events[cap.events["type"] == "tool/call"].iloc[0]
    assert (
        tool_call["payload"] == {"callId": "call_0001", "name": "exec_command"} and tool_call["location"] == "line 10"
    )
    # every line is one codex/* event, seq = Codex's ordinal
    own = cap.events[cap.events["type"].str.startswith("codex/")]
    assert len(own) == len(lines) and list(own["seq"]) == [x["ordinal"] for x in lines]
    assert own.iloc[0]["type"] == "codex/session_meta" and "codex/event_msg/token_count" in set(own["type"])


def test_the_real_refusal_of_an_escalation_in_danger_full_access():
    """Codex 0.171.0 advertises require_escalated in danger-full-access and refuses it under approval never."""
    cap = load_capture(REAL_ESCALATION)
    call = cap.calls.iloc[0]
    assert codex.escalation_request(call["arguments"]) == "require_escalated"
    res = cap.tool_results.iloc[0]
    assert res["text"] == codex.never_escalate("never") and res["is_error"] == True  # noqa: E712


def test_an_approved_escalation_in_workspace_write():
    cap = load_capture(APPROVED)
    ex = cap.exchanges
    assert list(ex["location"]) == ["line 5", "line 13", "line 16"]
    assert list(ex["log_id"]) == ["resp_1", "resp_2", "resp_3"]
    first = ex.iloc[0]
    assert (first["input_tokens"], first["output_tokens"], first["reasoning_tokens"]) == (1200, 40, 12)
    assert set(ex["provider"]) == {"openai"} and set(ex["model"]) == {"gpt-5-codex"}
    calls = cap.calls.set_index("call_id")
    assert calls.loc["call_esc", "arguments"]["sandbox_permissions"] == "require_escalated"
    patch = calls.loc["call_patch"]
    assert patch["name"] == "apply_patch" and patch["arguments"] is None and pd_isna(patch["parse_error"])
    assert patch["arguments_raw"].startswith("*** Begin Patch")
    results = cap.tool_results.set_index("call_id")
    assert list(results["is_error"]) == [False, False]
    assert results.loc["call_patch", "exchange_id"] == ex["exchange_id"].iloc[1]
    assert _perm(cap, "sandbox/mode") == [("line 2", "workspace-write")]
    assert _perm(cap, "approval/policy") == [("line 2", "on-request")]


def pd_isna(value) -> bool:
    import pandas as pd

    return bool(pd.isna(value))


def test_the_older_shape_shell_tool_mode_tag_and_a_policy_change():
    cap = load_capture(LEGACY)
    assert _perm(cap, "sandbox/mode") == [("line 2", "danger-full-access"), ("line 12", "read-only")]
    assert _perm(cap, "approval/policy") == [("line 2", "on-request"), ("line 12", "never")]
    ex = cap.exchanges
    assert list(ex["location"]) == ["line 5", "line 8", "line 13", "line 15"]
    assert list(ex["model"]) == ["gpt-5-codex", "gpt-5-codex", "gpt-5-mini", "gpt-5-mini"]  # from each turn_context
    assert ex.iloc[0]["input_tokens"] == 900  # the token_count with info null (line 4) is no usage
    assert pd_isna(ex.iloc[0]["log_id"]) and set(ex["provider"]) == {"openai"}  # no model_provider: openai
    calls = cap.calls.set_index("call_id")
    assert codex.escalation_request(calls.loc["call_dfa", "arguments"]) == "with_escalated_permissions"
    local = calls.loc["call_local"]
    assert local["name"] == "local_shell" and local["arguments"]["command"] == ["ls"]
    bad = calls.loc["call_bad_args"]
    assert bad["arguments"] is None and bad["parse_error"].startswith("invalid JSON at char 17")
    results = cap.tool_results.set_index("call_id")
    assert results.loc["call_dfa", "is_error"] == False  # noqa: E712  (the older JSON output: it ran)
    assert results.loc["call_bad_args", "is_error"] == True  # noqa: E712  (Codex refused: nothing ran)
    assert "codex/compacted" in set(cap.events["type"])


def test_bad_lines_are_problems_with_line_and_byte_offset():
    data = PARTLY_BAD.read_bytes()
    starts = [0]
    for line in data.split(b"\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    cap = load_capture(PARTLY_BAD)
    probs = cap.problems.set_index("location")
    assert list(probs.index) == ["line 5", "line 6", "line 10", "line 11", "line 12"]
    assert list(probs["kind"]) == ["bad-entry", "bad-entry", "bad-entry", "unknown-shape", "bad-entry"]
    assert probs["exchange_id"].isna().all()
    assert f"byte {starts[4]}" in probs.loc["line 5", "message"]  # not JSON, at its first byte
    assert "NaN is not JSON" in probs.loc["line 6", "message"]
    assert f"a JSON array (byte {starts[9]})" in probs.loc["line 10", "message"]
    cut = probs.loc["line 12", "message"]
    last = data.split(b"\n")[-1]
    string_at = starts[11] + last.rindex(b'"')  # where the cut-off string starts
    assert "no newline" in cut and f"byte {string_at}" in cut
    s = cap.summary().iloc[0]
    assert (s["entries"], s["read"], s["lost"], s["exchanges"], s["calls"]) == (12, 7, 5, 1, 1)


def test_a_line_with_bad_utf8_is_read_and_reported(tmp_path):
    lines = REAL.read_bytes().split(b"\n")
    lines[7] = lines[7].replace(b"list the files here", b"list the \xff files")
    path = tmp_path / "rollout-bad-utf8.jsonl"
    path.write_bytes(b"\n".join(lines))
    cap = load_capture(path)
    prob = cap.problems.iloc[0]
    offset = sum(len(x) + 1 for x in lines[:7]) + lines[7].index(b"\xff")
    assert (prob["location"], prob["kind"]) == ("line 8", "bad-utf8") and f"byte {offset}" in prob["message"]
    assert bool(cap.summary().iloc[0]["reconciles"]) and cap.summary().iloc[0]["lost"] == 0


def test_recognise_by_the_first_line_even_when_the_head_stops_inside_it():
    head = REAL.read_bytes()
    assert len(head.split(b"\n")[0]) > 4096  # session_meta carries the base instructions
    assert codex_rollout.recognize(head[:300])
    assert codex_rollout.recognize(sniff.head(REAL))
    assert not codex_rollout.recognize(b'{"timestamp":"x","type":"event_msg","payload":{}}\n')
    assert not codex_rollout.recognize(b'{"type":"session","version":3}\n')
    assert not dsh_session.recognize(sniff.head(REAL))


def test_an_empty_file_is_a_capture_error(tmp_path):
    path = tmp_path / "rollout-empty.jsonl"
    path.write_bytes(b"\n\n")
    with pytest.raises(CaptureError, match="empty file"):
        list(codex_rollout.read(path, path.name))
