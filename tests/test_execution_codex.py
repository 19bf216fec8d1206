"""Layer 4 on Codex rollouts: Codex's escalation fields judged against the recorded sandbox and approval policy."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from toolkit.capture import load_capture
from toolkit.knowledge import codex
from toolkit.layers.codex_execution import NO_WIDER_MODE, check_codex_call
from toolkit.layers.execution import REPLAY, replay

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "codex"


def _replay(name: str) -> pd.DataFrame:
    out = replay(load_capture(FIXTURES / name))
    assert REPLAY.mismatches(out) == []
    return out.set_index("call_id")


def test_the_real_refusal_is_modelled_with_codex_text_and_agrees():
    """Real codex-cli 0.171.0: require_escalated in danger-full-access under approval never."""
    row = _replay("real-0.171.0-escalation-never.jsonl").loc["call_0001"]
    assert (row["mode"], row["ok"], row["stage"]) == ("danger-full-access", False, "8")
    assert row["message"] == codex.never_escalate("never") == row["recorded_result"]
    assert row["agrees"] == True  # noqa: E712
    assert NO_WIDER_MODE in row["note"]  # the trap is named too, as the toolkit's verdict


def test_an_escalation_in_danger_full_access_under_on_request_is_flagged_as_the_toolkit_verdict():
    row = _replay("danger-full-access-legacy.jsonl").loc["call_dfa"]
    assert row["stage"] == "5" and row["message"] == NO_WIDER_MODE
    assert row["message"].startswith("toolkit verdict, not a Codex text")
    assert pd.isna(row["ok"]) and pd.isna(row["agrees"])  # what Codex then does is not modelled


def test_an_approved_escalation_in_workspace_write_is_granted_full_access():
    row = _replay("workspace-write-approved.jsonl").loc["call_esc"]
    assert (row["mode"], row["ok"], row["granted_mode"], row["agrees"]) == (
        "workspace-write",
        True,
        "danger-full-access",
        True,
    )
    assert pd.isna(row["stage"]) and pd.isna(row["message"])


def test_a_call_without_escalation_runs_in_the_session_mode():
    row = _replay("real-0.171.0-danger-full-access.jsonl").loc["call_0001"]
    assert (row["ok"], row["agrees"], row["mode_source"]) == (True, True, "sandbox/mode (turn_context, line 6)")


@pytest.mark.parametrize(
    ("policy", "name"), [("never", "Never"), ("untrusted", "UnlessTrusted"), ("on-failure", "OnFailure")]
)
def test_every_policy_but_on_request_refuses_with_codex_text(policy, name):
    v = check_codex_call({"cmd": "ls", "sandbox_permissions": "require_escalated"}, mode="read-only", policy=policy)
    assert (v.ok, v.stage) == (False, "8")
    assert v.message == (
        f"approval policy is {name}; reject command — you cannot ask for escalated permissions "
        f"if the approval policy is {name}"
    )


def test_granular_and_unknown_policies():
    args = {"command": ["ls"], "with_escalated_permissions": True, "justification": "x"}
    granular = check_codex_call(args, mode="workspace-write", policy="granular")
    assert (granular.ok, granular.stage, granular.message) == (False, "8", None)  # refused; text not known
    unknown = check_codex_call(args, mode="workspace-write", policy=None)
    assert unknown.ok is None and unknown.stage is None
    extra = check_codex_call(
        {"cmd": "ls", "sandbox_permissions": "with_additional_permissions"}, mode="workspace-write", policy="on-request"
    )
    assert extra.ok is True and extra.granted_mode is None  # additional permissions stay sandboxed
    plain = check_codex_call({"cmd": "ls", "sandbox_permissions": "use_default"}, mode="read-only", policy="never")
    assert plain.ok is True and plain.stage is None
