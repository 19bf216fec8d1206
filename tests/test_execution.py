"""Layer 4: DSH's validator, stage by stage and version by version; replay; what-if policies."""

from __future__ import annotations

import pytest
from conftest import REPO

import toolkit
from toolkit.analysis.whatif import POLICIES, prune_schema, whatif
from toolkit.knowledge.dsh_tools import schema_for
from toolkit.layers.config import load_settings
from toolkit.layers.execution import STAGES, check_call, replay

DATA = REPO / "data"
OK = {"command": "ls -la", "description": "List files in the workspace"}
ESC = {**OK, "sandbox_permissions": "danger-full-access", "justification": "The build writes outside the workspace."}
RC, ALPHA2 = "0.1.1-rc.2", "0.1.6-alpha.2"
NOT_WIDER = 'sandbox escalation to "{t}" is not strictly wider than this call\'s current "{m}" mode'

# (name, tool, arguments, mode, version, approval, expected stage, expected message or None, effective mode)
CASES = [
    ("plain call runs", "bash", OK, "workspace-write", RC, "allowed-once", None, None, "workspace-write"),
    (
        "extra keys are ignored",
        "bash",
        {**OK, "model_note": 1},
        "read-only",
        RC,
        "allowed-once",
        None,
        None,
        "read-only",
    ),
    (
        "missing required",
        "bash",
        {"command": "ls"},
        "workspace-write",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: missing required property "description"',
        "workspace-write",
    ),
    (
        "null escalation fields",
        "bash",
        {**OK, "sandbox_permissions": None, "justification": None},
        "workspace-write",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: "sandbox_permissions" must be a string; "justification" must be a string',
        "workspace-write",
    ),
    (
        "empty enum value",
        "bash",
        {**OK, "sandbox_permissions": "", "justification": "x"},
        "workspace-write",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: "sandbox_permissions" must be one of ["workspace-write","danger-full-access"]',
        "workspace-write",
    ),
    (
        "unknown mode value",
        "bash",
        {**OK, "sandbox_permissions": "full-access", "justification": "x"},
        "read-only",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: "sandbox_permissions" must be one of ["workspace-write","danger-full-access"]',
        "read-only",
    ),
    (
        "non-string command",
        "bash",
        {"command": 5, "description": "x"},
        "read-only",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: "command" must be a string',
        "read-only",
    ),
    (
        "whitespace command",
        "bash",
        {"command": "  ", "description": "x"},
        "read-only",
        RC,
        "allowed-once",
        "2",
        "invalid command: expected a non-empty string",
        "read-only",
    ),
    (
        "empty description",
        "pwsh",
        {"command": "dir", "description": "\t"},
        "read-only",
        RC,
        "allowed-once",
        "2",
        "invalid description: expected a non-empty string",
        "read-only",
    ),
    (
        "zero timeout",
        "bash",
        {**OK, "timeoutMs": 0},
        "read-only",
        RC,
        "allowed-once",
        "2",
        "invalid timeoutMs: expected a positive number, got 0",
        "read-only",
    ),
    (
        "escalation without justification",
        "bash",
        {**OK, "sandbox_permissions": "danger-full-access"},
        "read-only",
        RC,
        "allowed-once",
        "3a",
        "invalid escalation: sandbox_permissions requires a justification",
        "read-only",
    ),
    (
        "lone empty justification",
        "bash",
        {**OK, "justification": ""},
        "read-only",
        RC,
        "allowed-once",
        "3b",
        "invalid escalation: justification is only valid together with sandbox_permissions",
        "read-only",
    ),
    (
        "empty justification, same mode",
        "bash",
        {**ESC, "justification": ""},
        "danger-full-access",
        RC,
        "allowed-once",
        "3c",
        "invalid justification: expected a non-empty sentence",
        "danger-full-access",
    ),
    (
        "whitespace justification, 0.1.6",
        "bash",
        {**ESC, "justification": "  "},
        "danger-full-access",
        ALPHA2,
        "allowed-once",
        "3c",
        "invalid justification: expected a non-empty sentence",
        "danger-full-access",
    ),
    (
        "one-letter justification passes 3c",
        "bash",
        {**ESC, "justification": "x"},
        "read-only",
        RC,
        "allowed-once",
        None,
        None,
        "danger-full-access",
    ),
    (
        "same mode, rc.2",
        "bash",
        ESC,
        "danger-full-access",
        RC,
        "allowed-once",
        "5",
        NOT_WIDER.format(t="danger-full-access", m="danger-full-access"),
        "danger-full-access",
    ),
    (
        "same mode, 0.1.6-alpha.2 accepts",
        "bash",
        ESC,
        "danger-full-access",
        ALPHA2,
        "allowed-once",
        None,
        None,
        "danger-full-access",
    ),
    (
        "same mode, 0.1.6-alpha.1 still refuses",
        "bash",
        ESC,
        "danger-full-access",
        "0.1.6-alpha.1",
        "allowed-once",
        "5",
        NOT_WIDER.format(t="danger-full-access", m="danger-full-access"),
        "danger-full-access",
    ),
    (
        "narrower mode, even 0.1.6",
        "bash",
        {**ESC, "sandbox_permissions": "workspace-write"},
        "danger-full-access",
        ALPHA2,
        "allowed-once",
        "5",
        NOT_WIDER.format(t="workspace-write", m="danger-full-access"),
        "danger-full-access",
    ),
    (
        "malformed current mode",
        "bash",
        ESC,
        "full-access",
        ALPHA2,
        "allowed-once",
        "5",
        NOT_WIDER.format(t="danger-full-access", m="full-access"),
        "full-access",
    ),
    ("wider, approved once", "bash", ESC, "workspace-write", RC, "allowed-once", None, None, "danger-full-access"),
    (
        "wider, rejected (policy never)",
        "bash",
        ESC,
        "workspace-write",
        RC,
        "rejected",
        "8",
        'the user rejected escalating this command to "danger-full-access"',
        "workspace-write",
    ),
    (
        "write rejected is an operation",
        "write",
        {"file_path": "a", "content": "b", "sandbox_permissions": "danger-full-access", "justification": "x"},
        "read-only",
        RC,
        "rejected",
        "8",
        'the user rejected escalating this operation to "danger-full-access"',
        "read-only",
    ),
    (
        "cancelled",
        "edit",
        {
            "file_path": "a",
            "old_string": "b",
            "new_string": "c",
            "sandbox_permissions": "workspace-write",
            "justification": "x",
        },
        "read-only",
        RC,
        "cancelled",
        "8",
        'approval for escalating to "workspace-write" was cancelled',
        "read-only",
    ),
    (
        "no approval channel",
        "bash",
        ESC,
        "read-only",
        RC,
        "unavailable",
        "8",
        'sandbox escalation to "danger-full-access" requires approval, but no approval channel is available',
        "read-only",
    ),
    (
        "edit needs its strings",
        "edit",
        {"file_path": "a"},
        "read-only",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: missing required property "old_string"; missing required property "new_string"',
        "read-only",
    ),
    (
        "write needs a file path",
        "write",
        {"file_path": " ", "content": "x"},
        "read-only",
        RC,
        "allowed-once",
        "2",
        "file_path must be a non-empty string",
        "read-only",
    ),
    (
        "edit old_string is not trimmed",
        "edit",
        {"file_path": "a", "old_string": " ", "new_string": " "},
        "read-only",
        RC,
        "allowed-once",
        "2",
        "old_string and new_string must differ",
        "read-only",
    ),
    (
        "edit empty old_string",
        "edit",
        {"file_path": "a", "old_string": "", "new_string": "x"},
        "read-only",
        RC,
        "allowed-once",
        "2",
        "old_string must be a non-empty string",
        "read-only",
    ),
    (
        "missing first, then types in declaration order",
        "bash",
        {"timeoutMs": "5", "sandbox_permissions": 1},
        "read-only",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: missing required property "command"; missing required property '
        '"description"; "timeoutMs" must be a number; "sandbox_permissions" must be a string',
        "read-only",
    ),
    (
        "negative zero timeout",
        "bash",
        {**OK, "timeoutMs": -0.0},
        "read-only",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: "timeoutMs" must be a finite JSON number',
        "read-only",
    ),
    (
        "rejected, 0.1.7 wording",
        "bash",
        ESC,
        "workspace-write",
        "0.1.7-rc.2",
        "rejected",
        "8",
        'the user rejected escalating this command to "danger-full-access"; it stays denied, so stop and explain instead '
        "of working around it",
        "workspace-write",
    ),
    (
        "replace_all must be boolean",
        "edit",
        {"file_path": "a", "old_string": "b", "new_string": "c", "replace_all": "yes"},
        "read-only",
        RC,
        "allowed-once",
        "1",
        'invalid arguments: "replace_all" must be a boolean',
        "read-only",
    ),
]


@pytest.mark.parametrize(
    "name, tool, args, mode, dsh, approval, stage, message, effective", CASES, ids=[c[0] for c in CASES]
)
def test_validator_stage_by_stage(name, tool, args, mode, dsh, approval, stage, message, effective):
    v = check_call(tool, args, mode=mode, dsh=dsh, approval=approval)
    assert (v.ok, v.stage, v.message, v.effective_mode) == (stage is None, stage, message, effective)
    if stage:
        assert v.result_text == "Error: " + message and v.stage_name == STAGES[stage]


def test_composition_guards():
    v = check_call("bash", ESC, mode="read-only", confined=False)
    assert (v.stage, v.message) == (
        "4",
        "sandbox_permissions is not available in this composition (no sandboxing executor to escalate)",
    )
    v = check_call("bash", ESC, mode="read-only", approval_service=False)
    assert (
        v.message == 'sandbox escalation to "danger-full-access" requires approval, but no approval service is composed'
    )
    v = check_call("bash", ESC, mode="read-only", agent=False)
    assert (
        v.message
        == 'sandbox escalation to "danger-full-access" requires approval, but the call has no agent to route it through'
    )


def test_every_stage_is_exercised():
    seen = {c[6] for c in CASES if c[6]} | {"4", "6", "7"}
    assert seen == set(STAGES)


def test_bad_calls_to_the_validator_are_errors_not_verdicts():
    with pytest.raises(ValueError, match="check_call models"):
        check_call("read", OK, mode="read-only")
    with pytest.raises(ValueError, match="approval must be one of"):
        check_call("bash", OK, mode="read-only", approval="maybe")


def test_replay_of_the_before_fix_session_reproduces_dsh_exactly():
    cap = toolkit.load_capture(DATA / "before-fix" / "session.jsonl.zstd")
    out = replay(cap, settings=load_settings(DATA / "configs" / "settings.before.yaml", env={}))
    assert list(out["stage"]) == ["3c", "5", "image-gate"]
    assert out["agrees"].all() and (out["effective_mode"] == "danger-full-access").all()
    assert list(out["approval"]) == ["rejected"] * 3  # approval/policy never
    assert out.iloc[0]["mode_source"] == "sandbox/mode (preset, line 3)"
    assert ["Error: " + m for m in out["message"]] == list(cap.tool_results["text"])


def test_replay_of_an_http_capture_needs_the_mode_and_reads_the_outputs_sent_back():
    cap = toolkit.load_capture(DATA / "before-fix" / "capture.har")
    unknown = replay(cap)
    assert unknown["ok"].isna().all() and unknown.iloc[0]["note"].startswith("the sandbox mode is unknown")
    out = replay(cap, mode="danger-full-access")
    assert list(out["stage"][:2]) == ["3c", "5"] and out["agrees"][:2].all()
    after = replay(toolkit.load_capture(DATA / "after-fix" / "capture.har"), mode="danger-full-access")
    assert after["ok"].all() and after["agrees"].all()


def test_replay_shows_a_disagreement():
    cap = toolkit.load_capture(DATA / "before-fix" / "session.jsonl.zstd")
    out = replay(cap, dsh=ALPHA2)  # 0.1.6 would have accepted call 2; the session recorded a refusal
    second = out.iloc[1]
    assert (second["ok"] and second["agrees"] is False) or second["agrees"] == False  # noqa: E712
    assert "differs" in second["note"]


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
    out = whatif(toolkit.load_capture(DATA / "before-fix" / "session.jsonl.zstd"))
    table = {(r.call_id, r.policy): r.outcome for r in out.itertuples()}
    assert table[("call_0001", "same-mode-noop")] == "still fails"  # the empty justification fails at 3c first
    assert table[("call_0002", "same-mode-noop")] == "avoided"
    for policy in ("prune-schema", "strip-non-widening", "explicit-strict-false"):
        assert table[("call_0001", policy)] == table[("call_0002", policy)] == "avoided"
    assert set(out["policy"]) == set(POLICIES)
    after = whatif(toolkit.load_capture(DATA / "after-fix" / "capture.har"), mode="danger-full-access")
    assert set(after["outcome"]) == {"no failure"}
    wider = whatif(
        toolkit.load_capture(DATA / "before-fix" / "capture.har"),
        mode="workspace-write",
        policies=["strip-non-widening"],
    )
    # in workspace-write the escalation is a real one: nothing to strip, the empty justification still fails,
    # and the justified retry runs once approved
    assert list(wider["outcome"]) == ["still fails", "no failure"]
