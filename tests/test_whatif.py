"""What-if policies for layer 4: each call is judged again in the mode it ran under, never in the mode
an approved escalation granted it."""

from __future__ import annotations

import json

from conftest import REPO

import toolkit
from toolkit.analysis.whatif import POLICIES, WHATIF, prune_schema, whatif
from toolkit.capture import load_captures
from toolkit.knowledge.dsh_tools import schema_for
from toolkit.layers.execution import REPLAY, replay

DATA = REPO / "data"
NOTHING_TO_STRIP = "nothing to strip: the escalation widens the mode"


def test_prune_schema():
    bash = schema_for("bash")
    assert prune_schema(bash, "read-only")["properties"]["sandbox_permissions"]["enum"] == [
        "workspace-write",
        "danger-full-access",
    ]
    assert prune_schema(bash, "workspace-write")["properties"]["sandbox_permissions"]["enum"] == ["danger-full-access"]
    full = prune_schema(bash, "danger-full-access")
    assert "sandbox_permissions" not in full["properties"] and "justification" not in full["properties"]
    assert bash["properties"]["sandbox_permissions"]["enum"] == ["workspace-write", "danger-full-access"]  # untouched


def test_whatif_on_the_lab_captures():
    out = whatif(toolkit.load_capture(DATA / "dsh-before-fix" / "session.jsonl.zstd"), dsh="0.1.0-rc.8")
    table = {(r.call_id, r.policy): r.outcome for r in out.itertuples()}
    assert table[("call_0001", "same-mode-noop")] == "still fails"  # the empty justification fails at 3c first
    assert table[("call_0002", "same-mode-noop")] == "avoided"
    for policy in ("prune-schema", "strip-non-widening", "explicit-strict-false"):
        assert table[("call_0001", policy)] == table[("call_0002", policy)] == "avoided"
    assert set(out["policy"]) == set(POLICIES)
    assert WHATIF.mismatches(out) == []
    after = whatif(toolkit.load_capture(DATA / "after-fix" / "capture.har"), mode="danger-full-access")
    assert set(after["outcome"]) == {"no failure"}


def test_strip_finds_nothing_to_strip_in_an_escalation_that_widens_the_mode():
    """Regression: the approved retry was re-judged in its granted danger-full-access and reported stripped."""
    cap = toolkit.load_capture(DATA / "before-fix" / "capture.har")
    wider = whatif(cap, mode="workspace-write", policies=["strip-non-widening"])
    # in workspace-write the escalation is a real one: the empty justification still fails, and the
    # justified retry runs once approved, with nothing stripped
    assert list(wider["outcome"]) == ["still fails", "no failure"]
    assert list(wider["how"]) == [NOTHING_TO_STRIP] * 2
    assert list(wider["mode"]) == ["workspace-write"] * 2
    assert list(wider["granted_mode"].fillna("none")) == ["none", "danger-full-access"]
    assert WHATIF.mismatches(wider) == []


def _read_only_session(tmp_path):
    """A DSH session in read-only whose justified escalation to workspace-write the user approves once."""
    call = "call_ws_1"
    args = json.dumps(
        {
            "command": "touch notes.txt",
            "description": "Create a notes file",
            "sandbox_permissions": "workspace-write",
            "justification": "Creating the notes file writes to the workspace.",
        }
    )
    result = {"type": "tool-result", "toolCallId": call, "content": [{"type": "text", "text": ""}], "isError": False}
    records = [
        {"type": "session", "version": 0, "id": "ro", "createdAt": 1796029200000, "cwd": "/w", "delegationDepth": 0},
        {"type": "sandbox/mode", "data": {"mode": "read-only", "source": "preset"}},
        {"type": "approval/policy", "data": {"policy": "ask"}},
        {"type": "turn/start", "data": {"turn": 1}},
        {"type": "step/start", "data": {"turn": 1, "step": 1}},
        {
            "type": "assistant/message",
            "data": {
                "turn": 1,
                "step": 1,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool-call", "id": call, "name": "bash", "arguments": args}],
                },
            },
        },
        {"type": "tool/call", "data": {"turn": 1, "step": 1, "callId": call, "name": "bash", "arguments": args}},
        {"type": "approval/asked", "data": {"id": "a1", "toolName": "bash", "callId": call}},
        {"type": "approval/decided", "data": {"id": "a1", "outcome": "allowed-once"}},
        {
            "type": "tool/result",
            "data": {
                "turn": 1,
                "step": 1,
                "message": {"role": "user", "source": {"kind": "tool", "callId": call}, "content": [result]},
            },
        },
        {"type": "step/end", "data": {"turn": 1, "step": 1}},
        {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "completed"}}},
    ]
    path = tmp_path / "read-only-escalation.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return toolkit.load_capture(path)


def test_prune_schema_judges_an_approved_escalation_in_the_mode_it_ran_under(tmp_path):
    """Regression: read-only → workspace-write was re-judged in workspace-write, where the pruned enum
    lacks workspace-write, and reported ``newly fails``."""
    cap = _read_only_session(tmp_path)
    base = replay(cap)
    assert (base["mode"].iloc[0], base["granted_mode"].iloc[0], bool(base["ok"].iloc[0])) == (
        "read-only",
        "workspace-write",
        True,
    )
    assert bool(base["agrees"].iloc[0]) and REPLAY.mismatches(base) == []
    out = whatif(cap)
    assert dict(zip(out["policy"], out["outcome"])) == {p: "no failure" for p in POLICIES}
    assert (out["mode"] == "read-only").all() and (out["granted_mode"] == "workspace-write").all()


def test_whatif_of_a_capture_without_calls_keeps_the_declared_dtypes():
    out = whatif(load_captures([]))
    assert out.empty and WHATIF.mismatches(out) == []
    unjudged = whatif(toolkit.load_capture(DATA / "before-fix" / "capture.har"))  # no mode: nothing judged
    assert unjudged.empty and WHATIF.mismatches(unjudged) == []


def test_calls_that_could_not_be_judged_are_counted_not_dropped():
    """Without a mode the HAR's bash calls cannot be judged: the what-if table has no row for them, and
    says how many calls it left out and why, instead of looking like a run with nothing to fix."""
    cap = load_captures([REPO / "data/dsh-before-fix/capture.har"])
    unknown = whatif(cap)
    assert unknown.empty and unknown.attrs["not_judged"] == {"mode-unknown": 2, "settings-missing": 1}
    known = whatif(cap, mode="danger-full-access")
    assert len(known) and known.attrs["not_judged"] == {"settings-missing": 1}
