"""The Python model of the Vercel AI SDK's tools array against what the real SDK sent
(``tests/fixtures/ai_sdk``, made by ``lab/ai-sdk-fixtures/generate.mjs`` with the pinned npm packages)."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.errors import InputError
from toolkit.knowledge import ai_sdk_tools
from toolkit.knowledge.ai_sdk_tools import AiSdkRefusal, convert_tools, normalize_openai_schema, tool_warnings

AI = FIXTURES / "ai_sdk"
WIRE = json.loads((AI / "wire.json").read_text(encoding="utf-8"))
META = json.loads((AI / "meta.json").read_text(encoding="utf-8"))
CORPUS = {
    t["id"]: t["tool"] for t in json.loads((FIXTURES / WIRE["corpus"].split("fixtures/", 1)[1]).read_text())["tools"]
}
DEFS = {d["name"]: d for d in WIRE["definitions"]}
CELLS = WIRE["cells"]
PATHS = {"responses": "/v1/responses", "chat": "/v1/chat/completions", "openai-compatible": "/v1/chat/completions"}


def same(a, b) -> bool:
    """Equal values and equal key order: the wire bytes would be the same."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def _id(c) -> str:
    extra = f"-sjs{json.dumps(c['options']['strictJsonSchema'])}" if "strictJsonSchema" in c["options"] else ""
    return f"{c['api']}-strict{json.dumps(c['options']['strict'])}{extra}-{c['toolset']}"


@pytest.mark.parametrize("cell", CELLS, ids=[_id(c) for c in CELLS])
def test_tools_array_matches_the_wire(cell):
    tools = [DEFS[n] for n in WIRE["toolsets"][cell["toolset"]]]
    strict = cell["options"]["strict"]
    if cell["ok"]:
        assert cell["requests"] == 1
        assert cell["http"] == [{"method": "POST", "path": PATHS[cell["api"]]}]
        assert same(convert_tools(tools, api=cell["api"], strict=strict), cell["tools"])
        assert same(tool_warnings(tools, api=cell["api"]), cell["warnings"])
    else:
        assert cell["requests"] == 0  # the SDK threw before sending
        with pytest.raises(AiSdkRefusal) as info:
            convert_tools(tools, api=cell["api"], strict=strict)
        assert str(info.value) == cell["error"]
        assert info.value.error_name == cell["errorName"]


def test_the_definitions_are_the_corpus_tools_as_recorded():
    corpus_defs = [d for d in WIRE["definitions"] if d["name"] in CORPUS]
    assert {d["name"] for d in corpus_defs} >= {"bash", "nested_object", "already_nullable", "optional_anyof_scalars"}
    for d in corpus_defs:
        t = CORPUS[d["name"]]
        assert same(d, {"name": t["name"], "description": t["description"], "parameters": t["parameters"]})


def test_the_grid_is_complete():
    seen = {(c["api"], c["options"]["strict"], c["toolset"]) for c in CELLS if "strictJsonSchema" not in c["options"]}
    for api in ai_sdk_tools.AI_SDK_APIS:
        for strict in (None, True, False):
            for toolset in WIRE["toolsets"]:
                assert (api, strict, toolset) in seen
        for sjs in (True, False):
            assert any(c["api"] == api and c["options"].get("strictJsonSchema") is sjs for c in CELLS)
    assert any(not c["ok"] for c in CELLS) and any(c["warnings"] for c in CELLS if c["ok"])


def test_the_modelled_release_is_the_recorded_one():
    release = ai_sdk_tools.RELEASES[ai_sdk_tools.DEFAULT_VERSION]
    for name, version in release.items():
        assert META["packages"][name] == version


def test_normalisation_leaves_its_input_alone():
    schema = json.loads(json.dumps(DEFS["allof_ref"]["parameters"]))
    before = json.dumps(schema)
    normalize_openai_schema(schema)
    assert json.dumps(schema) == before


def test_unknown_api_or_version_is_refused_naming_the_modelled_ones():
    with pytest.raises(
        InputError, match="unknown AI SDK api 'completions'; choose one of responses, chat, openai-compatible"
    ):
        convert_tools([], api="completions")
    with pytest.raises(InputError, match=r"ai '6\.0\.0' is not modelled; choose one of 7\.0\.173"):
        convert_tools([], api="chat", version="6.0.0")
