"""Layer 4: DSH's validator, stage by stage and version by version; replay (what-if: test_whatif.py)."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import REPO

import toolkit
from toolkit.capture import load_captures
from toolkit.knowledge import dsh_runtime as rt
from toolkit.layers.config import load_settings
from toolkit.layers.execution import REPLAY, STAGES, check_call, replay, schema_violations

DATA = REPO / "data"
OK = {"command": "ls -la", "description": "List files in the workspace"}
ESC = {**OK, "sandbox_permissions": "danger-full-access", "justification": "The build writes outside the workspace."}
RC, ALPHA2 = "0.1.1-rc.2", "0.1.6-alpha.2"
NOT_WIDER = 'sandbox escalation to "{t}" is not strictly wider than this call\'s current "{m}" mode'

# (name, tool, arguments, mode, version, approval, expected stage, expected message or None, granted mode or None)
CASES = [
    ("plain call runs", "bash", OK, "workspace-write", RC, "allowed-once", None, None, None),
    (
        "extra keys are ignored",
        "bash",
        {**OK, "model_note": 1},
        "read-only",
        RC,
        "allowed-once",
        None,
        None,
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
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
        None,
    ),
]


@pytest.mark.parametrize(
    "name, tool, args, mode, dsh, approval, stage, message, granted", CASES, ids=[c[0] for c in CASES]
)
def test_validator_stage_by_stage(name, tool, args, mode, dsh, approval, stage, message, granted):
    v = check_call(tool, args, mode=mode, dsh=dsh, approval=approval)
    # the verdict keeps the mode the call was judged in; only an approved escalation names a granted mode
    assert (v.ok, v.stage, v.message, v.mode, v.granted_mode) == (stage is None, stage, message, mode, granted)
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


def test_background_runs_after_the_approval():
    """Stage 9: run_in_background is checked after the escalation was approved (the grant is kept)."""
    bg = {**ESC, "run_in_background": True}
    v = check_call("bash", bg, mode="read-only", jobs=False)
    assert (v.stage, v.message, v.granted_mode) == ("9", rt.NO_BACKGROUND_JOBS, "danger-full-access")
    v = check_call("pwsh", {**OK, "run_in_background": True}, mode="read-only", background=False)
    assert (v.stage, v.message, v.granted_mode) == ("9", rt.BACKGROUND_DISABLED, None)
    # with run_in_background not advertised, a non-boolean value is not checked and the call runs in the foreground
    assert check_call("bash", {**OK, "run_in_background": "yes"}, mode="read-only", background=False).ok
    assert check_call("bash", bg, mode="read-only", approval="rejected", jobs=False).stage == "8"


def test_unconfined_composition_and_closed_turn():
    v = check_call(
        "write",
        {"file_path": "a", "content": "", "sandbox_permissions": "x", "justification": "y"},
        mode=None,
        confined=False,
    )
    assert (v.stage, v.message) == ("4", rt.NO_FS_SANDBOX)
    v = check_call(
        "edit",
        {"file_path": "a", "old_string": "a", "new_string": "b", "sandbox_permissions": "x", "justification": None},
        mode=None,
        confined=False,
    )
    assert (v.stage, v.message) == ("3c", "Cannot read properties of null (reading 'trim')")
    v = check_call("bash", ESC, mode="read-only", open_turn=False)
    assert (v.stage, v.message) == ("8", rt.APPROVAL_OUTSIDE_TURN)


def test_approval_outcome_is_the_services():
    assert rt.approval_outcome(answer="allowed-once") == "allowed-once"
    assert rt.approval_outcome(policy="never", answer="allowed-once") == "rejected"
    assert rt.approval_outcome(answer="allowed-once", aborted=True) == "cancelled"
    assert rt.approval_outcome() == rt.approval_outcome(answer="allowed-always") == "unavailable"


def test_every_stage_is_exercised():
    seen = {c[6] for c in CASES if c[6]} | {"4", "6", "7", "9"}
    assert seen == set(STAGES)


def test_bad_calls_to_the_validator_are_errors_not_verdicts():
    with pytest.raises(ValueError, match="check_call models"):
        check_call("read", OK, mode="read-only")
    with pytest.raises(ValueError, match="approval must be one of"):
        check_call("bash", OK, mode="read-only", approval="maybe")


def test_replay_of_the_before_fix_session_reproduces_dsh_exactly():
    run = DATA / "dsh-before-fix"  # the log the published DSH 0.1.0-rc.8 wrote, and the settings it was given
    cap = toolkit.load_capture(run / "session.jsonl.zstd")
    out = replay(cap, settings=load_settings(run / "settings.yaml", env={}, dsh="0.1.0-rc.8"), dsh="0.1.0-rc.8")
    assert list(out["stage"]) == ["3c", "5", "image-gate"]
    assert out["agrees"].all() and (out["mode"] == "danger-full-access").all()
    assert out["granted_mode"].isna().all()  # nothing was approved: the policy is never
    assert list(out["approval"]) == ["rejected"] * 3  # approval/policy never
    # DSH 0.1.0-rc.8's sandbox/mode record carries the mode only (no `source`): an event, line 3 of its log
    assert out.iloc[0]["mode_source"] == "sandbox/mode (event, line 3)"
    assert ["Error: " + m for m in out["message"]] == list(cap.tool_results["text"])
    assert REPLAY.mismatches(out) == []


def test_replay_of_an_http_capture_needs_the_mode_and_reads_the_outputs_sent_back():
    cap = toolkit.load_capture(DATA / "before-fix" / "capture.har")
    unknown = replay(cap)
    assert unknown["ok"].isna().all() and unknown.iloc[0]["note"].startswith("the sandbox mode is unknown")
    out = replay(cap, mode="danger-full-access")
    assert list(out["stage"][:2]) == ["3c", "5"] and out["agrees"][:2].all()
    after = replay(toolkit.load_capture(DATA / "after-fix" / "capture.har"), mode="danger-full-access")
    assert after["ok"].all() and after["agrees"].all()


def test_replay_shows_a_disagreement():
    cap = toolkit.load_capture(DATA / "dsh-before-fix" / "session.jsonl.zstd")
    out = replay(cap, dsh=ALPHA2)  # 0.1.6 would have accepted call 2; the session recorded a refusal
    second = out.iloc[1]
    assert (bool(second["ok"]), bool(second["agrees"])) == (True, False)  # pd.NA would raise, not pass
    assert "differs" in second["note"]


def test_replay_keeps_the_mode_a_call_ran_under_apart_from_the_mode_it_was_granted():
    cap = toolkit.load_capture(DATA / "before-fix" / "capture.har")
    out = replay(cap, mode="workspace-write")
    assert list(out["mode"][:2]) == ["workspace-write"] * 2
    # the empty justification fails at 3c; the justified retry is approved (allowed-once) to full access
    assert list(out["stage"][:2].astype(object).fillna("runs")) == ["3c", "runs"]
    assert out["granted_mode"].iloc[0] is pd.NA and out["granted_mode"].iloc[1] == "danger-full-access"
    assert REPLAY.mismatches(out) == []


def test_verify_names_the_modes_calls_ran_under_and_the_modes_they_were_granted():
    from toolkit.analysis.verify import verify

    v = verify(None, toolkit.load_capture(DATA / "before-fix" / "capture.har"), mode="workspace-write")
    (execution,) = [r for r in v.results if r.layer == "execution"]
    assert execution.evidence[:2] == [
        "2 calls judged under DSH 0.1.1-rc.2 in workspace-write; 1 refused",
        "1 approved escalation granted danger-full-access",
    ]


def test_replay_of_a_capture_without_calls_keeps_the_declared_dtypes():
    out = replay(load_captures([]))
    assert out.empty and REPLAY.mismatches(out) == []
    cap = toolkit.load_capture(DATA / "before-fix" / "capture.har")
    assert REPLAY.mismatches(replay(cap)) == []  # every call unjudged: the verdict columns are all missing


# ---- stage 1: the JSON-schema check's type, enum and const texts (``checkValue``; the same texts in the
# published @deepseek-ai/dsh-tools 0.1.0-rc.8, lib/index.js)

TYPED = {
    "type": "object",
    "properties": {
        "s": {"type": "string"},
        "n": {"type": "number"},
        "i": {"type": "integer"},
        "b": {"type": "boolean"},
        "a": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
        "o": {"type": "object", "properties": {"k": {"type": "string", "const": "v"}}},
        "z": {"type": "null"},
        "e": {"type": "string", "enum": ["ä", "b"]},
        "c": {"type": "integer", "const": 3},
        "ce": {"type": "string", "enum": ["on", "off"], "const": "on"},
    },
}
STAGE_ONE = [
    ({"s": 1}, '"s" must be a string'),
    ({"n": "1"}, '"n" must be a number'),
    ({"n": True}, '"n" must be a number'),
    ({"n": float("inf")}, '"n" must be a finite JSON number'),
    ({"i": 1.5}, '"i" must be an integer'),
    ({"i": -0.0}, '"i" must be an integer'),
    ({"i": True}, '"i" must be an integer'),
    ({"b": "true"}, '"b" must be a boolean'),
    ({"a": "x"}, '"a" must be an array'),
    ({"a": ["x", "q"]}, '"a[1]" must be one of ["x","y"]'),
    ({"o": []}, '"o" must be an object'),
    ({"o": {"k": "w"}}, '"o.k" must be "v"'),
    ({"z": 0}, '"z" must be null'),
    ({"e": "c"}, '"e" must be one of ["ä","b"]'),  # JSON.stringify keeps non-ASCII characters
    ({"c": 4}, '"c" must be 3'),
    ({"ce": "off"}, '"ce" must be "on"'),  # enum passes, then const
    ({"ce": "dim"}, '"ce" must be one of ["on","off"]'),  # enum first: one violation per property
    ({"s": None, "e": 1}, '"s" must be a string; "e" must be a string'),  # type before enum
]


@pytest.mark.parametrize("args, text", STAGE_ONE, ids=[t for _, t in STAGE_ONE])
def test_stage_one_type_enum_and_const_texts(args, text):
    assert "; ".join(schema_violations(args, TYPED)) == text


def test_stage_one_passes_values_of_the_declared_type_enum_and_const():
    ok = {"s": "", "n": -1.5, "i": 2.0, "b": False, "a": ["y"], "o": {"k": "v"}, "z": None, "e": "ä", "c": 3}
    assert schema_violations({**ok, "ce": "on"}, TYPED) == []


def test_stage_one_texts_reach_the_verdict_and_the_tool_result():
    v = check_call("bash", {**OK, "sandbox_permissions": "read-only", "justification": "x"}, mode="read-only")
    text = 'invalid arguments: "sandbox_permissions" must be one of ["workspace-write","danger-full-access"]'
    assert (v.stage, v.message, v.result_text) == ("1", text, rt.ERROR_PREFIX + text)
    const = {"type": "object", "properties": {"mode": {"type": "string", "const": "read-only"}}}
    v = check_call("bash", {**OK, "mode": "x"}, mode="read-only", schema=const)
    assert (v.stage, v.message) == ("1", 'invalid arguments: "mode" must be "read-only"')


def test_the_dsh_versions_are_listed_once_oldest_first():
    assert tuple(rt.RELEASES) == rt.VERSIONS and rt.DEFAULT_VERSION in rt.VERSIONS
    assert rt.VERSIONS[0] == "0.1.0-rc.8" and rt.DEFAULT_VERSION == "0.1.1-rc.2"
    assert list(rt.VERSIONS) == sorted(rt.VERSIONS, key=rt.version_order)
    assert {rt.SAME_MODE_ACCEPTED_FROM, rt.LONG_REJECTION_FROM} <= set(rt.VERSIONS)


def test_the_error_prefix_is_dshs():
    assert rt.tool_result_text("boom") == "Error: boom" and rt.error_message("Error: boom") == "boom"
    assert rt.is_error_text("Error: x") and not rt.is_error_text("error: x") and not rt.is_error_text(None)
    assert rt.ERROR_PREFIX == "Error: "
