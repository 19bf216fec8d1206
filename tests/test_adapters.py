"""The adapter registry (``toolkit.knowledge.adapters``) and layer 2's front over it: ``convert_tools(...,
adapter=…)``, ``compare(..., adapter=…)`` and ``attribute``, checked against every recorded cell of the
pi-ai, AI SDK, LiteLLM, Agents SDK and Codex fixtures and against the bundled captures."""

from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES, REPO

import toolkit
from toolkit.knowledge import adapters, ai_sdk_tools, litellm_tools, pi_ai
from toolkit.knowledge.pi_ai_tools import convert_tools as pi_ai_convert
from toolkit.layers.attribution import ATTRIBUTION, NO_MATCH, attribute, attribute_capture, capture_tools
from toolkit.layers.serialization import compare, convert_tools

load = lambda path: json.loads((FIXTURES / path).read_text(encoding="utf-8"))  # noqa: E731
PI = load("pi_ai/wire.json")
PI_CORPUS = {t["id"]: t["tool"] for t in load("pi_ai/corpus.json")["tools"]}
AI = load("ai_sdk/wire.json")
AI_DEFS = {d["name"]: d for d in AI["definitions"]}
LITELLM = load("litellm/wire.json")
AGENTS = load("agents_sdk/wire.json")
CODEX = load("codex/tools-0.171.0.json")


def same(a, b) -> bool:
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def matches(table) -> set[tuple]:
    """(adapter, version, api, options text) of every row that reproduces the tools exactly."""
    hit = table[table["match"].astype(bool)]
    assert (hit["rank"] == 1).all()  # an exact match is never ranked below a partial one
    return set(zip(hit["adapter"], hit["version"], hit["api"], hit["options"], strict=True))


def assert_attributed(table, own: tuple) -> None:
    assert ATTRIBUTION.mismatches(table) == []
    found = matches(table)
    assert own in found, (own, table.attrs["verdict"])
    verdict = table.attrs["verdict"]
    assert verdict.startswith("these tools look like ")
    for adapter, version, _, _ in found:  # every tie is named, none hidden
        assert adapters.PROFILES[adapter].name in verdict and version in verdict
    assert ("tied" in verdict) == (len(found) > 1)


# ---- the registry ------------------------------------------------------------------------------


def test_parse_names_the_default_version_and_refuses_naming_the_choices():
    p, version = adapters.parse("pi-ai")
    assert (p.id, version) == ("pi-ai", pi_ai.DEFAULT_VERSION)
    assert adapters.parse("ai-sdk@7.0.173")[1] == "7.0.173" == ai_sdk_tools.DEFAULT_VERSION
    assert adapters.parse("litellm")[1] == litellm_tools.DEFAULT_VERSION
    with pytest.raises(
        ValueError, match="unknown adapter 'vertex'; choose one of pi-ai, ai-sdk, agents-sdk, litellm, codex"
    ):
        adapters.parse("vertex@1")
    with pytest.raises(ValueError, match=re.escape("Vercel AI SDK '6.0.0' is not modelled; choose one of 7.0.173")):
        adapters.parse("ai-sdk@6.0.0")
    assert [p.name for p in adapters.PROFILES.values()] == [
        "pi-ai",
        "Vercel AI SDK",
        "OpenAI Agents SDK",
        "LiteLLM",
        "Codex CLI",
    ]


def test_every_adapter_api_maps_to_a_wire_api_and_an_endpoint():
    for p in adapters.PROFILES.values():
        for api in p.apis:
            assert adapters.WIRE_API[(p.id, api)] in adapters.ENDPOINTS
    assert adapters.wire_api("openai-responses") == adapters.wire_api("/v1/responses") == "responses"
    assert adapters.wire_api("/codex/responses") == "responses"
    assert adapters.wire_api("openai-completions") == adapters.wire_api("/v1/chat/completions") == "chat"
    assert adapters.adapter_apis("ai-sdk", "chat") == ("chat", "openai-compatible")
    assert adapters.adapter_apis("pi-ai", "/v1/responses") == ("openai-responses", "openai-codex-responses")
    with pytest.raises(ValueError, match="unknown api 'messages'"):
        adapters.wire_api("messages")


def test_options_are_checked_against_the_modelled_values():
    bash = PI_CORPUS["bash"]
    with pytest.raises(ValueError, match="Vercel AI SDK strict 'yes' is not modelled; choose one of None, True, False"):
        adapters.convert([bash], adapter="ai-sdk", api="chat", options={"strict": "yes"})
    with pytest.raises(ValueError, match="LiteLLM has no option 'compat'; choose from strict"):
        adapters.convert([bash], adapter="litellm", api="chat", options={"compat": None})
    with pytest.raises(ValueError, match="LiteLLM has no api 'openai-completions'; choose one of chat, responses"):
        adapters.convert([bash], adapter="litellm", api="openai-completions")
    assert adapters.describe_options("pi-ai", {"compat": {"supportsStrictMode": False}}) == (
        "compat.supportsStrictMode false"
    )
    assert adapters.describe_options("ai-sdk", {}) == "strict unset"
    assert [c["compat"] for c in adapters.combinations("pi-ai")] == [
        None,
        {"supportsStrictMode": True},
        {"supportsStrictMode": False},
    ]


# ---- convert_tools: today's call and the adapter form ------------------------------------------


def test_todays_convert_tools_call_is_unchanged_and_equals_the_adapter_form():
    bash = PI_CORPUS["bash"]
    for version in pi_ai.VERSIONS:
        for api in ("openai-responses", "openai-completions", "openai-codex-responses"):
            for compat in (None, {"supportsStrictMode": True}):
                want = pi_ai_convert([bash], api=api, compat=compat, pi_ai=version)
                assert same(convert_tools([bash], api=api, compat=compat, pi_ai=version), want)
                assert same(
                    convert_tools([bash], adapter=f"pi-ai@{version}", api=api, options={"compat": compat}), want
                )
    assert same(convert_tools([bash], api="openai-responses"), convert_tools([bash], api="/v1/responses"))
    with pytest.raises(ValueError, match="compat is pi-ai's option"):
        convert_tools([bash], adapter="ai-sdk", api="chat", compat={})


def test_convert_tools_reproduces_a_recorded_cell_of_each_adapter():
    ai = next(c for c in AI["cells"] if c["ok"] and c["toolset"] == "nested_object" and c["api"] == "chat")
    tools = [AI_DEFS[n] for n in AI["toolsets"][ai["toolset"]]]
    assert same(
        convert_tools(tools, adapter="ai-sdk@7.0.173", api="chat", options=ai["options"] | {}), ai["tools"]
    ) or ("strictJsonSchema" in ai["options"])
    ll = next(c for c in LITELLM["cells"] if c["strict"] is True and c["api"] == "responses")
    definition = {k: ll["given"][k] for k in ("name", "description", "parameters")}
    assert same(convert_tools([definition], adapter="litellm", api="responses", options={"strict": True}), ll["tools"])


# ---- compare with an adapter -------------------------------------------------------------------


def test_compare_with_an_adapter_names_what_it_would_have_sent():
    bash = PI_CORPUS["bash"]
    sent = convert_tools([bash], api="openai-responses")[0]  # pi-ai 1.6.0, compat unset: strict absent
    assert compare(sent, bash, api="openai-responses").matches
    ai = compare(sent, bash, api="responses", adapter="ai-sdk")
    assert not ai.matches and list(ai.differences["kind"]) == ["strict removed"]
    assert ai.expected_strict == "false" and ai.adapter == "Vercel AI SDK 7.0.173"
    assert "Vercel AI SDK 7.0.173 would send strict=false" in repr(ai)
    assert compare(sent, bash, api="responses", adapter="litellm").matches  # pass-through, strict unset
    refused = compare(sent, AI_DEFS["property_names_integer"], api="chat", adapter="ai-sdk")
    assert list(refused.differences["kind"]) == ["not sent by the adapter"]
    assert refused.expected_strict is None


# ---- attribution against every recorded cell ---------------------------------------------------


def _pi_cells():
    """Cells with a tools array and a compat that only sets supportsStrictMode (the modelled option)."""
    out = []
    for c in PI["cells"]:
        if not (c["ok"] and isinstance(c["tools"], list)) or c.get("catalog"):
            continue
        if c["compat"] is not None and set(c["compat"]) != {"supportsStrictMode"}:
            continue
        out.append(c)
    return out


def _pi_definitions(cell) -> list[dict]:
    toolset = cell["toolset"]
    constrained = (
        None
        if toolset == "plain"
        else {"type": "json_schema", "strict": "prefer" if toolset == "prefer" else "require"}
    )
    ids = [cell["tool"]] if toolset == "require-single" else PI["toolsets"][toolset]
    defs = []
    for i in ids:
        t = PI_CORPUS[i]
        d = {"name": t["name"], "description": t.get("description"), "parameters": t.get("parameters")}
        defs.append(d | ({"constrainedSampling": constrained} if constrained else {}))
    return defs


def _grouped(cells, key):
    groups: dict[str, list] = {}
    for c in cells:
        groups.setdefault(key(c), []).append(c)
    return list(groups.values())


PI_GROUPS = _grouped(_pi_cells(), lambda c: json.dumps([c["api"], c["tools"], _pi_definitions(c)], ensure_ascii=False))


@pytest.mark.parametrize(
    "group", PI_GROUPS, ids=[f"{g[0]['api']}-{g[0]['toolset']}-{i}" for i, g in enumerate(PI_GROUPS)]
)
def test_attribute_finds_each_pi_ai_cell_among_the_exact_matches(group):
    first = group[0]
    table = attribute(first["tools"], _pi_definitions(first), api=first["api"])
    for cell in group:  # every cell that sent this array, with these definitions
        label = adapters.describe_options("pi-ai", {"compat": cell["compat"]})
        assert_attributed(table, ("pi-ai", cell["piAi"], cell["api"], label))


def test_the_pi_ai_grid_is_covered():
    cells = _pi_cells()
    assert len(cells) >= 250
    assert {c["piAi"] for c in cells} == set(pi_ai.VERSIONS)
    assert {c["api"] for c in cells} == {"openai-responses", "openai-codex-responses", "openai-completions"}


AI_CELLS = [c for c in AI["cells"] if c["ok"]]


@pytest.mark.parametrize(
    "cell", AI_CELLS, ids=[f"{c['api']}-{json.dumps(c['options'])}-{c['toolset']}" for c in AI_CELLS]
)
def test_attribute_finds_each_ai_sdk_cell_among_the_exact_matches(cell):
    defs = [AI_DEFS[t.get("function", t)["name"]] for t in cell["tools"]]  # "all" leaves out the refused ones
    table = attribute(cell["tools"], defs, api=cell["api"])
    label = adapters.describe_options("ai-sdk", {"strict": cell["options"]["strict"]})
    assert_attributed(table, ("ai-sdk", ai_sdk_tools.DEFAULT_VERSION, cell["api"], label))


@pytest.mark.parametrize(
    "cell", LITELLM["cells"], ids=[f"{c['api']}-{c['strict']}-{c['tool']}" for c in LITELLM["cells"]]
)
def test_attribute_finds_each_litellm_cell_among_the_exact_matches(cell):
    given = cell["given"].get("function", cell["given"])
    definition = {k: given[k] for k in ("name", "description", "parameters")}
    table = attribute(cell["tools"], [definition], api=cell["api"])
    label = adapters.describe_options("litellm", {"strict": cell["strict"]})
    assert_attributed(table, ("litellm", LITELLM["litellm"], cell["api"], label))


def test_a_rewrite_only_one_library_makes_is_attributed_to_it_alone():
    """The AI SDK drops a lookaround pattern on its openai apis: nobody else does, so no tie."""
    cell = next(
        c
        for c in AI["cells"]
        if c["ok"] and c["toolset"] == "lookaround_pattern" and c["api"] == "chat" and c["options"] == {"strict": True}
    )
    table = attribute(cell["tools"], [AI_DEFS["lookaround_pattern"]], api="chat")
    assert matches(table) == {("ai-sdk", "7.0.173", "chat", "strict true")}
    assert table.attrs["verdict"] == "these tools look like Vercel AI SDK 7.0.173 (chat) with strict true"


def test_no_profile_matches_is_said_and_never_claimed():
    bash = PI_CORPUS["bash"]
    odd = convert_tools([bash], api="openai-responses")[0] | {"strict": "sometimes"}
    table = attribute([odd], [bash], api="responses")
    assert not table["match"].any()
    verdict = table.attrs["verdict"]
    assert verdict.startswith(f"{NO_MATCH}; the closest is ")
    assert table.iloc[0]["exact"] == 0 and table.iloc[0]["differences"]
    with pytest.raises(toolkit.errors.InputError, match="1 definitions for 2 captured tools"):
        attribute([odd, odd], [bash], api="responses")


# ---- attribution of the bundled captures -------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "version"),
    [("before-fix", "1.6.0"), ("dsh-before-fix", "0.82.1")],  # DSH 0.1.0-rc.8 loads pi-ai 0.82.1
)
@pytest.mark.parametrize("bodies", [True, False])
def test_the_pi_ai_captures_attribute_to_pi_ai_with_the_routes_compat(folder, version, bodies):
    capture = toolkit.load_capture(REPO / "data" / folder / "capture.har", keep_bodies=bodies)
    sent, wire, exact = capture_tools(capture)
    assert wire == "responses" and exact is bodies and sent
    table = attribute_capture(capture)
    unset = adapters.describe_options("pi-ai", {"compat": None})  # the route has no compat
    assert ("pi-ai", version, "openai-responses", unset) in matches(table)
    assert ("ai-sdk", "7.0.173", "responses", "strict unset") not in matches(table)  # it would send strict: false
    verdict = table.attrs["verdict"]
    assert "LiteLLM 1.110.2 with strict unset" in verdict  # a pass-through of the same tools ties
    assert ("keep_bodies=True" in verdict) is not bodies


def test_capture_tools_rebuilt_from_the_frames_match_the_bodies_but_for_descriptions():
    with_bodies = toolkit.load_capture(REPO / "data" / "before-fix" / "capture.har", keep_bodies=True)
    frames_only = toolkit.load_capture(REPO / "data" / "before-fix" / "capture.har")
    exact, _, _ = capture_tools(with_bodies)
    rebuilt, _, _ = capture_tools(frames_only)
    assert [{k: v for k, v in t.items() if k != "description"} for t in exact] == rebuilt
    with pytest.raises(toolkit.errors.InputError, match="exchange 'nope' sent no tools"):
        capture_tools(frames_only, "nope")


# ---- the Agents SDK and Codex CLI profiles


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
