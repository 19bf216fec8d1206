"""toolkit.knowledge.codex_tools against what the published Codex CLI 0.171.0 sent (tests/fixtures/codex).

``tools-0.171.0.json`` is recorded by ``lab/record_codex_tools.py`` (``codex exec`` against a loopback
upstream); the ``real-0.171.0-*.jsonl`` rollouts (``lab/codex_rollouts.py``) do not store the tools
Codex sent, so they are checked for the calls the model made against the tools modelled.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolkit.knowledge import codex_tools

FIXTURES = Path(__file__).parent / "fixtures" / "codex"
RECORDING = json.loads((FIXTURES / "tools-0.171.0.json").read_text(encoding="utf-8"))
CELLS = RECORDING["cells"]
SENT = [c for c in CELLS if c["request"] is not None and c["request"]["tools"] is not None]
CATALOGUE = [c for c in CELLS if c["request"] is not None and c["request"]["tools"] is None]
REFUSED = [c for c in CELLS if c["request"] is None]
ROLLOUTS = sorted(FIXTURES.glob("real-0.171.0-*.jsonl"))


def _args(cell: dict) -> dict:
    """tools_for's arguments for a cell: the settings given, or what Codex ran under where a flag chose them."""
    s, eff = cell["settings"], cell["effective"]
    return {
        "sandbox": s["sandbox_mode"] or eff["sandbox_mode"],
        "approval": s["approval_policy"] or eff["approval_policy"],
        "features": s["features"],
        "web_search": s["web_search"],
    }


def _ordered(value):
    """A value with every dict as its list of items, so == compares key order too."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


def test_the_recording_covers_every_mode_policy_and_switch():
    assert RECORDING["codex"] == codex_tools.DEFAULT_VERSION
    assert {c["settings"]["sandbox_mode"] for c in SENT} >= set(codex_tools.SANDBOX_MODES)
    assert {c["settings"]["approval_policy"] for c in SENT} >= set(codex_tools.APPROVAL_POLICIES)
    assert {c["settings"]["approval_policy"] for c in REFUSED} == set(codex_tools.RETIRED_APPROVAL_POLICIES)
    switched = {name for c in SENT for name in c["settings"]["features"]}
    assert switched == set(codex_tools.FEATURES)
    assert {c["settings"]["web_search"] for c in SENT} - {None} == set(codex_tools.WEB_SEARCH_MODES)
    assert len(CELLS) == 41 and len(SENT) == 35 and len(CATALOGUE) == 3 and len(REFUSED) == 3


@pytest.mark.parametrize("cell", SENT, ids=[c["id"] for c in SENT])
def test_tools_for_is_what_codex_sent(cell):
    got = codex_tools.tools_for(**_args(cell))
    assert _ordered(got) == _ordered(cell["request"]["tools"])
    assert cell["request"]["tool_choice"] == codex_tools.TOOL_CHOICE
    assert cell["request"]["parallel_tool_calls"] is codex_tools.PARALLEL_TOOL_CALLS
    strict = {}
    for tool in got:
        name = tool.get("name", tool.get("type"))
        strict[name] = tool.get("strict")
        for inner in tool.get("tools") or ():
            strict[f"{name}.{inner['name']}"] = inner.get("strict")
    assert strict == cell["request"]["strict"]


@pytest.mark.parametrize("cell", SENT, ids=[c["id"] for c in SENT])
def test_tool_for_picks_one_tool_or_none(cell):
    sent = {t.get("name", t.get("type")): t for t in cell["request"]["tools"]}
    for name in ("exec_command", "write_stdin", "view_image", "request_permissions", "web_search", "apply_patch"):
        assert codex_tools.tool_for(name, **_args(cell)) == sent.get(name)


def _recorded_escalation(tools: list[dict]) -> dict[str, list[str]]:
    """From the recorded schema alone: a property is an escalation field when it is ``sandbox_permissions``
    or its own description ties it to ``sandbox_permissions`` / ``require_escalated``."""
    out = {}
    for tool in tools:
        props = (tool.get("parameters") or {}).get("properties") or {}
        fields = [
            name
            for name, schema in props.items()
            if name == "sandbox_permissions"
            or re.search(r"`(sandbox_permissions|require_escalated)", schema.get("description", ""))
        ]
        if fields:
            out[tool["name"]] = fields
    return out


@pytest.mark.parametrize("cell", SENT, ids=[c["id"] for c in SENT])
def test_escalation_fields_agree_with_the_recorded_schemas(cell):
    args = _args(cell)
    del args["web_search"]
    tools = cell["request"]["tools"]
    assert codex_tools.escalation_fields(**args) == _recorded_escalation(tools)
    enums = {
        t["name"]: t["parameters"]["properties"]["sandbox_permissions"]["enum"]
        for t in tools
        if "sandbox_permissions" in ((t.get("parameters") or {}).get("properties") or {})
    }
    assert codex_tools.sandbox_permission_values(**args) == enums


def test_danger_full_access_advertises_the_same_escalation_as_the_sandboxed_modes():
    """The drift: no wider sandbox exists in danger-full-access, yet exec_command offers require_escalated."""
    full = [c for c in SENT if c["effective"]["sandbox_mode"] == "danger-full-access" and not c["settings"]["features"]]
    assert full
    for cell in full:
        recorded = _recorded_escalation(cell["request"]["tools"])
        assert recorded and recorded == codex_tools.escalation_fields(sandbox="danger-full-access", approval="never")
        sandboxed = codex_tools.escalation_fields(sandbox="read-only", approval="never")
        assert recorded == sandboxed


@pytest.mark.parametrize("cell", REFUSED, ids=[c["id"] for c in REFUSED])
def test_a_retired_policy_raises_codexs_own_text(cell):
    assert cell["exit_code"] != 0
    with pytest.raises(codex_tools.CodexRefusal) as err:
        codex_tools.tools_for(sandbox=cell["settings"]["sandbox_mode"], approval=cell["settings"]["approval_policy"])
    assert str(err.value) == cell["error"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sandbox": "read-only", "approval": "never", "version": "0.170.0"},
        {"sandbox": "full-access", "approval": "never"},
        {"sandbox": "read-only", "approval": "granular"},
        {"sandbox": "read-only", "approval": "never", "features": {"apply_patch_freeform": True}},
        {"sandbox": "read-only", "approval": "never", "web_search": "on"},
    ],
)
def test_what_is_not_modelled_is_a_value_error(kwargs):
    with pytest.raises(ValueError):
        codex_tools.tools_for(**kwargs)
    with pytest.raises(ValueError):
        codex_tools.tool_for("exec_command", **kwargs)


def _declared(description: str, tool: str) -> str:
    """The TypeScript declaration of one nested tool in code mode's ``exec`` description."""
    match = re.search(rf"\b{tool}\(args: \{{(.*?)\n\}}\)", description, re.S)
    assert match, f"no declaration of {tool}"
    return match.group(1)


@pytest.mark.parametrize("cell", CATALOGUE, ids=[c["id"] for c in CATALOGUE])
def test_a_catalogued_model_gets_the_same_escalation_fields_inside_code_mode(cell):
    """No ``tools`` in the body: the tools ride in an ``additional_tools`` item, exec_command declared in
    code mode's ``exec`` description with the escalation fields the modelled exec_command has."""
    request = cell["request"]
    assert "tools" not in request["keys"] and request["additional_tools"]
    exec_tool = next(t for ns in request["additional_tools"] for t in ns.get("tools") or () if t.get("name") == "exec")
    assert exec_tool["type"] == "custom" and "strict" not in exec_tool
    declaration = _declared(exec_tool["description"], "exec_command")
    sandbox = cell["effective"]["sandbox_mode"]
    for field in codex_tools.escalation_fields(sandbox=sandbox, approval="never")["exec_command"]:
        assert re.search(rf"^\s*{field}\?:", declaration, re.M), field
    values = codex_tools.sandbox_permission_values(sandbox=sandbox, approval="never")["exec_command"]
    assert f"sandbox_permissions?: {' | '.join(json.dumps(v) for v in values)};" in declaration


def _rollout(path: Path) -> tuple[dict, list[dict]]:
    context, calls = None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["type"] == "turn_context":
            context = entry["payload"]
        if entry["type"] == "response_item" and entry["payload"].get("type") == "function_call":
            calls.append(entry["payload"])
    assert context is not None
    return context, calls


@pytest.mark.parametrize("path", ROLLOUTS, ids=[p.name for p in ROLLOUTS])
def test_the_real_rollouts_call_tools_as_modelled(path):
    """The rollouts keep no ``tools``; every call in them names a modelled tool with parameters it advertises."""
    assert '"tools":' not in path.read_text(encoding="utf-8")
    context, calls = _rollout(path)
    assert calls
    sandbox, approval = context["sandbox_policy"]["type"], context["approval_policy"]
    for call in calls:
        tool = codex_tools.tool_for(call["name"], sandbox=sandbox, approval=approval)
        assert tool is not None, call["name"]
        assert set(json.loads(call["arguments"])) <= set(tool["parameters"]["properties"])
