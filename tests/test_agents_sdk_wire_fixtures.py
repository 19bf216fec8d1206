"""The Python model of the Agents SDK's function tools against what the real ``openai-agents`` sent to a
loopback server (``tests/fixtures/agents_sdk/wire.json``, made by ``lab/record_agents_tools.py``)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES

from toolkit.errors import InputError
from toolkit.knowledge import agents_sdk_tools
from toolkit.knowledge.agents_sdk_tools import AgentsSdkRefusal, convert_tools

WIRE = json.loads((FIXTURES / "agents_sdk" / "wire.json").read_text(encoding="utf-8"))
CELLS = WIRE["cells"]
PATHS = {"responses": "/v1/responses", "chat": "/v1/chat/completions"}
PINNED = Path(__file__).resolve().parent.parent / "lab" / "requirements-agents.txt"


def same(a, b) -> bool:
    """Equal values and equal key order: the wire bytes would be the same."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def cell_id(c: dict) -> str:
    return f"{c['api']}-{'strict' if c['strict_json_schema'] else 'loose'}-{c['tool']}"


@pytest.mark.parametrize("cell", CELLS, ids=[cell_id(c) for c in CELLS])
def test_convert_tools_matches_the_wire(cell):
    given = copy.deepcopy(cell["given"])
    kwargs = {"api": cell["api"], "strict_json_schema": cell["strict_json_schema"], "version": WIRE["version"]}
    if cell["error"] is not None:
        assert cell["http"] == [] and cell["error"]["stage"] == "FunctionTool"  # raised before any request
        with pytest.raises(AgentsSdkRefusal) as caught:
            convert_tools(given, **kwargs)
        assert str(caught.value) == cell["error"]["message"]
        assert caught.value.sdk_class == cell["error"]["class"]
        assert caught.value.tool == cell["given"][caught.value.index]["name"]
    else:
        assert cell["http"] == [{"method": "POST", "path": PATHS[cell["api"]], "stream": None}]
        out = convert_tools(given, **kwargs)
        # Chat Completions leaves the key out when there are no tools; the model returns []
        assert same(out, cell["tools"] if cell["tools_key_sent"] else [])
    assert same(given, cell["given"])  # the model does not change its input


def test_fixture_header_names_the_pinned_version():
    pinned = re.search(r"^openai-agents==(\S+)$", PINNED.read_text(encoding="utf-8"), re.M)
    assert pinned and WIRE["package"] == "openai-agents" and WIRE["version"] == pinned.group(1)
    modelled = (agents_sdk_tools.VERSIONS, agents_sdk_tools.DEFAULT_VERSION)
    assert modelled == ((WIRE["version"],), WIRE["version"])


def test_the_fixture_covers_the_grid():
    grid = {(c["api"], c["strict_json_schema"]) for c in CELLS}
    assert grid == {(a, s) for a in agents_sdk_tools.APIS for s in (True, False)}
    tools = {c["tool"] for c in CELLS}
    assert sum(t.startswith("pi_ai/") for t in tools) == 61
    assert {"decorated/list_files", "decorated/apply_edits", "lab/no_tools", "lab/three_tools"} <= tools
    assert {c["built_with"] for c in CELLS} == {"FunctionTool", "function_tool", "function_tool(strict_mode=False)"}
    refused = [c for c in CELLS if c["error"]]
    assert refused and all(c["strict_json_schema"] for c in refused)  # strict_json_schema=False never refuses
    strict_rewrote = [c for c in CELLS if c["strict_json_schema"] and c["tools"] and c["tools"] != []]
    assert any(
        not same(c["tools"], convert_tools(c["given"], api=c["api"], strict_json_schema=False)) for c in strict_rewrote
    )


def test_strict_is_always_sent():
    """Both apis send ``strict`` on every function tool, ``false`` included (the recorded fact)."""
    for c in CELLS:
        for tool in c["tools"] or []:
            holder = tool["function"] if c["api"] == "chat" else tool
            assert holder["strict"] is c["strict_json_schema"]


def test_unknown_api_version_and_bad_definitions_are_refused():
    with pytest.raises(ValueError, match=re.escape("unknown api 'x'; choose one of responses, chat")):
        convert_tools([], api="x")
    with pytest.raises(ValueError, match=re.escape("openai-agents '0.1' is not modelled; choose one of 0.24.0")):
        convert_tools([], api="chat", version="0.1")
    with pytest.raises(InputError, match=re.escape("tools[0]: a tool definition is a dict with a string 'name'")):
        convert_tools([{"parameters": {}}], api="responses")
    with pytest.raises(InputError, match=re.escape("tools[1] ('b'): no 'parameters'")):
        convert_tools([{"name": "a", "parameters": {}}, {"name": "b"}], api="chat")


def test_refusal_names_the_tool_and_the_place():
    bad = {
        "name": "t",
        "parameters": {"type": "object", "properties": {"a": {"type": "object", "additionalProperties": True}}},
    }
    with pytest.raises(AgentsSdkRefusal) as caught:
        convert_tools([{"name": "ok", "parameters": {}}, bad], api="responses")
    assert (caught.value.tool, caught.value.index, caught.value.path) == ("t", 1, "#/properties/a")
    assert isinstance(caught.value, InputError)
