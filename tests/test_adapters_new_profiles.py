"""Attribution for the two newest adapter profiles, the OpenAI Agents SDK (``toolkit.knowledge.agents_sdk_tools``,
``tests/fixtures/agents_sdk/wire.json``) and Codex CLI (``toolkit.knowledge.codex_tools``,
``tests/fixtures/codex/tools-0.171.0.json``): each recorded cell is ranked among the exact matches as
its own adapter and options."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.knowledge import adapters
from toolkit.layers.serialization import ATTRIBUTION, attribute, convert_tools

AGENTS = json.loads((FIXTURES / "agents_sdk" / "wire.json").read_text(encoding="utf-8"))
CODEX = json.loads((FIXTURES / "codex" / "tools-0.171.0.json").read_text(encoding="utf-8"))


def matches(table) -> set[tuple]:
    hit = table[table["match"].astype(bool)]
    assert (hit["rank"] == 1).all()
    return set(zip(hit["adapter"], hit["version"], hit["api"], hit["options"], strict=True))


def assert_attributed(table, own: tuple) -> None:
    assert ATTRIBUTION.mismatches(table) == []
    found = matches(table)
    assert own in found, (own, table.attrs["verdict"])
    verdict = table.attrs["verdict"]
    for adapter, version, _, _ in found:
        assert adapters.PROFILES[adapter].name in verdict and version in verdict
    assert ("tied" in verdict) == (len(found) > 1)


def test_both_profiles_are_in_this_build():
    assert {p.id for p in adapters.available()} == set(adapters.PROFILES)
    assert adapters.parse("agents-sdk")[1] == AGENTS["version"]
    assert adapters.parse("codex")[1] == CODEX["codex"]


AGENT_CELLS = [c for c in AGENTS["cells"] if isinstance(c["tools"], list) and c["tools"]]


@pytest.mark.parametrize(
    "cell",
    AGENT_CELLS,
    ids=[f"{c['api']}-{c['strict_json_schema']}-{c['built_with']}-{c['tool']}" for c in AGENT_CELLS],
)
def test_attribute_finds_each_agents_sdk_cell_among_the_exact_matches(cell):
    table = attribute(cell["tools"], cell["given"], api=cell["api"])
    label = adapters.describe_options("agents-sdk", {"strict_json_schema": cell["strict_json_schema"]})
    assert_attributed(table, ("agents-sdk", AGENTS["version"], cell["api"], label))


def test_the_agents_sdk_front_reproduces_a_cell():
    cell = next(c for c in AGENT_CELLS if c["built_with"] == "FunctionTool" and c["strict_json_schema"])
    got = convert_tools(cell["given"], adapter="agents-sdk", api=cell["api"], options={"strict_json_schema": True})
    assert json.dumps(got, ensure_ascii=False) == json.dumps(cell["tools"], ensure_ascii=False)


def _codex_cells():
    module = adapters.profile("codex").load()
    out = []
    for c in CODEX["cells"]:
        s = c["settings"]
        if c["request"] is None or s.get("features") or s.get("web_search") is not None or s.get("model") != "gw-coder":
            continue
        if s.get("sandbox_mode") in module.SANDBOX_MODES and s.get("approval_policy") in module.APPROVAL_POLICIES:
            out.append(c)
    return out


CODEX_CELLS = _codex_cells()


def test_the_codex_grid_is_recorded():
    assert len(CODEX_CELLS) >= 6


@pytest.mark.parametrize("cell", CODEX_CELLS, ids=[c["id"] for c in CODEX_CELLS])
def test_attribute_finds_each_codex_cell_among_the_exact_matches(cell):
    tools = cell["request"]["tools"]
    table = attribute(tools, api="responses")  # Codex sends its own tools: matched by name
    s = cell["settings"]
    label = adapters.describe_options("codex", {"sandbox": s["sandbox_mode"], "approval": s["approval_policy"]})
    assert_attributed(table, ("codex", CODEX["codex"], "responses", label))


def test_a_tool_codex_does_not_send_is_said_to_be_none_of_its_own():
    odd = {"type": "function", "name": "not_codex", "description": "x", "parameters": {"type": "object"}}
    table = attribute([odd], api="responses")
    codex = table[table["adapter"] == "codex"]
    assert not codex["match"].any()
    assert all(d == ("not_codex: $ not a Codex CLI tool",) for d in codex["differences"])
