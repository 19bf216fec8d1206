"""Layer 4 against the real DSH: every record the published 0.1.0-rc.8 produced, replayed through ``check_call``.

``tests/fixtures/dsh/execution.json`` and ``schemas.json`` are written by ``lab/dsh-fixtures/generate.mjs``, which
registers ``bash``, ``pwsh``, ``write`` and ``edit`` with their packages' own ``apply`` (dsh-tool-bash, dsh-tool-pwsh,
dsh-tool-fs 0.1.0-rc.8) in several compositions and calls each tool's ``execute`` for each arguments × mode ×
approval channel case; the approval channel is a stub answering an outcome, none, or the real dsh-user-approval
``ApprovalService``. ``thrown_at`` (the stack frame DSH's error was built in) checks the model's stage too.
"""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.analysis.whatif import prune_schema
from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge.dsh_tools import description_for, schema_for
from toolkit.layers.execution import STAGES, check_call

FIXTURE = json.loads((FIXTURES / "dsh" / "execution.json").read_text(encoding="utf-8"))
SCHEMAS = json.loads((FIXTURES / "dsh" / "schemas.json").read_text(encoding="utf-8"))
RECORDS = FIXTURE["records"]
VERSION = FIXTURE["dsh_version"]
BASE_GRID = 204  # the first records: the bash grid of the first generator, kept byte for byte

#: record id -> why the model of DSH differs from the real 0.1.0-rc.8 there (asserted to still differ below).
KNOWN_DIFFERENCES: dict[str, str] = {}

#: composition -> check_call's composition arguments (as the fixture's ``compositions`` describe them)
COMPOSITIONS = {
    "confined": {"confined": True, "jobs": False},
    "confined-jobs": {"confined": True, "jobs": True},
    "background-disabled": {"confined": True, "jobs": True, "background": False},
    "unconfined": {"confined": False, "jobs": True},
}
PACKAGE = {
    "bash": "@deepseek-ai/dsh-tool-bash",
    "pwsh": "@deepseek-ai/dsh-tool-pwsh",
    "write": "@deepseek-ai/dsh-tool-fs",
    "edit": "@deepseek-ai/dsh-tool-fs",
}
_SANDBOX = "@deepseek-ai/dsh-sandbox/lib/index.js"


def tool_of(record: dict) -> str:
    return record.get("tool", FIXTURE["record_defaults"]["tool"])


def channel_of(record: dict) -> str:
    return record.get("channel", record.get("approval"))


def channel_arguments(channel: str) -> dict:
    """The fixture's approval channel as check_call's arguments; the real service's answer via ``approval_outcome``."""
    if channel in rt.APPROVAL_OUTCOMES:
        return {"approval": channel}
    if not channel.startswith("service:"):
        return {
            "approval_service": channel not in ("no-approval-service", "no-approval-service-no-agent"),
            "agent": channel not in ("no-agent", "no-approval-service-no-agent"),
        }
    answer = channel.partition("answer:")[2] or None
    if channel in ("service:no-open-turn", "service:aborted-signal"):
        answer = "allowed-once"  # the generator's answerer for these two
    policy = "never" if channel.startswith("service:policy-never") else "ask"
    outcome = rt.approval_outcome(policy=policy, answer=answer, aborted=channel == "service:aborted-signal")
    return {"approval": outcome, "open_turn": channel != "service:no-open-turn"}


def thrower(stage: str, tool: str, message: str) -> tuple[str, str]:
    """(file, function) of the DSH check that throws at the model's ``stage``."""
    if stage == "1":
        return "@deepseek-ai/dsh-tools/lib/index.js", "Object.execute"
    if stage == "2":
        fn = {
            "bash": "validateBashArgs",
            "pwsh": "validatePwshArgs",
            "write": "parseWriteArgs",
            "edit": "parseEditArgs",
        }
        return f"{PACKAGE[tool]}/lib/index.js", fn[tool]
    if stage in ("3a", "3b", "3c"):
        return _SANDBOX, "validateEscalationArgs"
    if stage == "4":
        fn = {"bash": "approveBashEscalation", "pwsh": "approvePwshEscalation"}
        return f"{PACKAGE[tool]}/lib/index.js", fn.get(tool, "FsSandboxController.resolvePolicy")
    if stage == "8" and message == rt.APPROVAL_OUTSIDE_TURN:
        return "@deepseek-ai/dsh-user-approval/lib/index.js", "Proxy.request"
    if stage == "9":
        return f"{PACKAGE[tool]}/lib/index.js", "execute"
    return _SANDBOX, "approveEscalation"


def outcome_of_dsh(record: dict) -> dict:
    """What DSH did: the error it threw (text, class, where), or the mode it ran in; and the prompts it raised."""
    got = record["dsh"]
    where = got.get("thrown_at") or FIXTURE["base_thrown_at"].get(record["id"])
    return {
        "ok": got["ok"],
        "message": got.get("error"),
        "error_name": got.get("errorName"),
        "thrown_by": (where.split(":")[0], where.split(" ", 1)[1]) if where else None,
        "ran_in": got.get("ran_in"),
        "background": "background" in got,
        "asked": [(a["toolName"], a["reason"]) for a in got["approval_asked"]],
    }


def outcome_of_model(record: dict, dsh: str = VERSION) -> dict:
    tool, args, mode = tool_of(record), record["arguments"], record["mode"]
    composition = record.get("composition", "confined")
    v = check_call(tool, args, mode=mode, dsh=dsh, **COMPOSITIONS[composition], **channel_arguments(channel_of(record)))
    assert v.stage is None or v.stage in STAGES
    # the approval service is asked exactly when the model reaches stage 8 through a service that answers
    asks = v.granted_mode is not None or (v.stage == "8" and v.message != rt.APPROVAL_OUTSIDE_TURN)
    name = None
    if not v.ok:
        name = "ToolArgsError" if v.stage == "1" else "TypeError" if "trim" in (v.message or "") else "Error"
    return {
        "ok": v.ok,
        "message": v.message,
        "error_name": name,
        "thrown_by": thrower(v.stage, tool, v.message or "") if v.stage else None,
        "ran_in": (v.granted_mode or v.mode) if v.ok else None,
        "background": v.ok and tool in rt.SHELL_TOOLS and args.get("run_in_background") is True,
        "asked": [(tool, rt.approval_reason(args["sandbox_permissions"], args["justification"]))] if asks else [],
    }


def test_fixture_is_the_published_release_and_covers_the_corpus() -> None:
    assert VERSION == "0.1.0-rc.8" == SCHEMAS["dsh_version"]
    assert all(v == "0.1.0-rc.8" for k, v in FIXTURE["packages"].items() if k.startswith("@deepseek-ai/dsh-"))
    base, rest = RECORDS[:BASE_GRID], RECORDS[BASE_GRID:]
    assert all("tool" not in r and "channel" not in r for r in base)
    assert all("tool" in r and "composition" in r and "channel" in r for r in rest)
    cases = {r["case"] for r in base}
    assert {"no-escalation", "permissions-without-justification", "justification-without-permissions"} <= cases
    assert {"empty-justification", "whitespace-justification", "invalid-enum", "to-danger-full-access"} <= cases
    assert {(r["mode"], r["approval"]) for r in base} == {(m, a) for m in rt.MODES for a in rt.APPROVAL_OUTCOMES}
    assert {tool_of(r) for r in RECORDS} == set(rt.SHELL_TOOLS + rt.FS_TOOLS)
    assert {(r["tool"], r["composition"]) for r in rest} >= {(t, c) for t in ("bash", "pwsh") for c in COMPOSITIONS}
    assert {(r["tool"], r["composition"]) for r in rest} >= {
        (t, c) for t in rt.FS_TOOLS for c in ("confined", "unconfined")
    }
    channels = {channel_of(r) for r in rest}
    assert {"no-approval-service", "no-agent", "service:no-answerer", "service:policy-never"} <= channels
    assert {f"service:answer:{o}" for o in rt.APPROVAL_OUTCOMES} <= channels
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids))


def test_every_stage_is_reached_by_some_record() -> None:
    stages = {check_call_stage(r) for r in RECORDS}
    assert set(STAGES) <= stages


def check_call_stage(record: dict) -> str | None:
    comp = COMPOSITIONS[record.get("composition", "confined")]
    v = check_call(
        tool_of(record),
        record["arguments"],
        mode=record["mode"],
        dsh=VERSION,
        **comp,
        **channel_arguments(channel_of(record)),
    )
    return v.stage


@pytest.mark.parametrize("record", [r for r in RECORDS if r["id"] not in KNOWN_DIFFERENCES], ids=lambda r: r["id"])
def test_model_matches_dsh(record: dict) -> None:
    assert outcome_of_model(record) == outcome_of_dsh(record)


def test_known_differences_still_differ() -> None:
    ids = {r["id"] for r in RECORDS}
    assert set(KNOWN_DIFFERENCES) <= ids
    for record in RECORDS:
        if record["id"] in KNOWN_DIFFERENCES:
            assert outcome_of_model(record) != outcome_of_dsh(record), f"{record['id']} now agrees: drop it"


def test_real_approval_service_outcomes() -> None:
    """The real ApprovalService's decisions are what ``approval_outcome`` says, and every one is audited."""
    service = [r for r in RECORDS if channel_of(r).startswith("service:") and r["dsh"]["approval_asked"]]
    assert {tuple(r["dsh"]["approval_decided"]) for r in service} == {(o,) for o in rt.APPROVAL_OUTCOMES}
    for r in service:
        assert r["dsh"]["approval_decided"] == [channel_arguments(channel_of(r))["approval"]], r["id"]
    no_turn = [
        r
        for r in RECORDS
        if channel_of(r) == "service:no-open-turn" and r["dsh"].get("error") == rt.APPROVAL_OUTSIDE_TURN
    ]
    assert no_turn and all(r["dsh"]["approval_decided"] == [] == r["dsh"]["approval_asked"] for r in no_turn)


def _expected_in(version: str, record: dict) -> dict:
    """What a later release gives for ``record``, from DSH 0.1.0-rc.8's answer and ``RELEASES``' changes."""
    out = outcome_of_dsh(record)
    args, mode, message = record["arguments"], record["mode"], out["message"]
    target = args.get("sandbox_permissions")
    if rt.accepts_same_mode(version) and message == rt.not_strictly_wider(target, mode) and target == mode:
        comp = COMPOSITIONS[record.get("composition", "confined")]
        bg = tool_of(record) in rt.SHELL_TOOLS and args.get("run_in_background") is True
        late = rt.BACKGROUND_DISABLED if bg and comp.get("background") is False else None
        late = late or (rt.NO_BACKGROUND_JOBS if bg and not comp["jobs"] else None)
        return {
            **out,
            "ok": late is None,
            "message": late,
            "error_name": "Error" if late else None,
            "thrown_by": (f"{PACKAGE[tool_of(record)]}/lib/index.js", "execute") if late else None,
            "ran_in": mode if late is None else None,
            "background": bg and late is None,
        }
    if version != VERSION and message == rt.rejected(target, tool_of(record), VERSION):
        return {**out, "message": rt.rejected(target, tool_of(record), version)}
    return out


@pytest.mark.parametrize("version", rt.VERSIONS)
def test_every_modelled_version_against_the_run(version: str) -> None:
    """Each version in VERSIONS gives 0.1.0-rc.8's answers, changed only where ``RELEASES`` says."""
    changed = 0
    for record in RECORDS:
        expected = _expected_in(version, record)
        assert outcome_of_model(record, version) == expected, record["id"]
        changed += expected != outcome_of_dsh(record)
    if rt.version_order(version) < rt.version_order(rt.SAME_MODE_ACCEPTED_FROM):
        assert changed == 0
    else:
        assert changed > 0


def test_versions_are_in_release_order() -> None:
    assert list(rt.VERSIONS) == sorted(rt.VERSIONS, key=rt.version_order)
    assert rt.VERSIONS[0] == VERSION and rt.DEFAULT_VERSION == "0.1.1-rc.2"


def test_same_mode_escalation_is_refused_in_this_release() -> None:
    """The incident's call (danger-full-access asking for danger-full-access): 0.1.0-rc.8 throws, never prompts."""
    (record,) = [r for r in RECORDS if r["id"] == "to-danger-full-access/danger-full-access/allowed-once"]
    assert record["dsh"]["ok"] is False
    assert record["dsh"]["error"] == rt.not_strictly_wider("danger-full-access", "danger-full-access")
    assert record["dsh"]["approval_asked"] == []
    assert not rt.accepts_same_mode(VERSION)


@pytest.mark.parametrize("tool", rt.SHELL_TOOLS + rt.FS_TOOLS)
def test_same_mode_with_empty_justification_fails_on_the_justification(tool: str) -> None:
    """README §4: the blank justification is refused (validateEscalationArgs) before any mode comparison."""
    (record,) = [
        r
        for r in RECORDS
        if tool_of(r) == tool
        and r.get("composition", "confined") == "confined"
        and r["id"].endswith("empty-justification/danger-full-access/allowed-once")
        and "whitespace" not in r["id"]
    ]
    assert record["dsh"]["error"] == rt.EMPTY_JUSTIFICATION
    assert outcome_of_dsh(record)["thrown_by"] == (_SANDBOX, "validateEscalationArgs")
    for version in rt.VERSIONS:
        assert check_call(tool, record["arguments"], mode="danger-full-access", dsh=version).stage == "3c"


def test_advertised_schema_is_dshs() -> None:
    """The schema the model checks stage 1 against is the one 0.1.0-rc.8's bash tool registers."""
    assert FIXTURE["parameters"] == schema_for("bash")


@pytest.mark.parametrize(
    "entry", SCHEMAS["schemas"], ids=lambda s: f"{s['tool']}-{s['mode']}-{s.get('enableRunInBackground')}"
)
def test_schema_per_composition(entry: dict) -> None:
    kw = {"confined": entry["composition"] == "confined", "background": entry.get("enableRunInBackground", True)}
    assert schema_for(entry["tool"], **kw) == entry["parameters"]
    assert description_for(entry["tool"], **kw) == entry["description"]


def test_dsh_never_prunes_the_schema_by_mode() -> None:
    """DSH advertises the same schema in every mode; ``prune_schema`` (a what-if) does not, except in read-only."""
    for entry in SCHEMAS["schemas"]:
        if entry["composition"] != "confined":
            continue
        same = [
            s
            for s in SCHEMAS["schemas"]
            if s["tool"] == entry["tool"]
            and s["composition"] == "confined"
            and s.get("enableRunInBackground") == entry.get("enableRunInBackground")
        ]
        assert all(s["parameters"] == entry["parameters"] and s["description"] == entry["description"] for s in same)
        pruned = prune_schema(entry["parameters"], entry["mode"])
        assert (pruned == entry["parameters"]) == (entry["mode"] == "read-only")
