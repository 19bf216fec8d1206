"""Layer 4 against the real DSH: every record the published 0.1.0-rc.8 produced, replayed through ``check_call``.

``tests/fixtures/dsh/execution.json`` is written by ``lab/dsh-fixtures/generate.mjs``, which registers the bash
tool with ``@deepseek-ai/dsh-tool-bash`` 0.1.0-rc.8's own ``apply`` and calls its ``execute`` (schema check,
``validateBashArgs``, ``validateEscalationArgs``, ``approveEscalation``) for each arguments × mode × approval case.
"""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge.dsh_tools import schema_for
from toolkit.layers.execution import check_call

FIXTURE = json.loads((FIXTURES / "dsh" / "execution.json").read_text(encoding="utf-8"))
RECORDS = FIXTURE["records"]
VERSION = FIXTURE["dsh_version"]

#: record id -> why the model of DSH differs from the real 0.1.0-rc.8 there (asserted to still differ below).
KNOWN_DIFFERENCES: dict[str, str] = {}


def outcome_of_dsh(record: dict) -> dict:
    """What DSH did: the error it threw, or the mode the command ran in; and the approval prompt it raised."""
    got = record["dsh"]
    outcome = {"ok": got["ok"], "message": got.get("error"), "ran_in": got.get("ran_in")}
    outcome["asked"] = [a["reason"] for a in got["approval_asked"]]
    return outcome


def outcome_of_model(record: dict) -> dict:
    args, mode = record["arguments"], record["mode"]
    v = check_call("bash", args, mode=mode, dsh=VERSION, approval=record["approval"])
    asks = v.granted_mode is not None or v.stage == "8"  # the approver is asked exactly for a strictly wider request
    return {
        "ok": v.ok,
        "message": v.message,
        "ran_in": (v.granted_mode or v.mode) if v.ok else None,
        "asked": [rt.approval_reason(args["sandbox_permissions"], args["justification"])] if asks else [],
    }


def test_fixture_is_the_published_release_and_covers_the_corpus() -> None:
    assert VERSION == "0.1.0-rc.8"
    assert all(v == "0.1.0-rc.8" for k, v in FIXTURE["packages"].items() if k.startswith("@deepseek-ai/dsh-"))
    cases = {r["case"] for r in RECORDS}
    assert {"no-escalation", "permissions-without-justification", "justification-without-permissions"} <= cases
    assert {"empty-justification", "whitespace-justification", "invalid-enum", "to-danger-full-access"} <= cases
    assert {(r["mode"], r["approval"]) for r in RECORDS} == {
        (m, a) for m in rt.MODES for a in ("allowed-once", "rejected", "cancelled", "unavailable")
    }
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids))


def test_advertised_schema_is_dshs() -> None:
    """The schema the model checks stage 1 against is the one 0.1.0-rc.8's bash tool registers."""
    assert FIXTURE["parameters"] == schema_for("bash")


@pytest.mark.parametrize("record", [r for r in RECORDS if r["id"] not in KNOWN_DIFFERENCES], ids=lambda r: r["id"])
def test_model_matches_dsh(record: dict) -> None:
    assert outcome_of_model(record) == outcome_of_dsh(record)


def test_known_differences_still_differ() -> None:
    ids = {r["id"] for r in RECORDS}
    assert set(KNOWN_DIFFERENCES) <= ids
    for record in RECORDS:
        if record["id"] in KNOWN_DIFFERENCES:
            assert outcome_of_model(record) != outcome_of_dsh(record), f"{record['id']} now agrees: drop it"


def test_same_mode_escalation_is_refused_in_this_release() -> None:
    """The incident's call (danger-full-access asking for danger-full-access): 0.1.0-rc.8 throws, never prompts."""
    (record,) = [r for r in RECORDS if r["id"] == "to-danger-full-access/danger-full-access/allowed-once"]
    assert record["dsh"]["ok"] is False
    assert record["dsh"]["error"] == rt.not_strictly_wider("danger-full-access", "danger-full-access")
    assert record["dsh"]["approval_asked"] == []
    assert not rt.accepts_same_mode(VERSION)
