"""The Python model of pi-ai against what the real library did (``tests/fixtures/pi_ai``, made by
``lab/pi-ai-fixtures/generate.mjs`` with the pinned npm packages). Every disagreement fails."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.knowledge.pi_ai_tools import PiAiRefusal, convert_responses_tools
from toolkit.layers.serialization import StrictSchemaError, convert_tools, make_strict, strict_state

PI = FIXTURES / "pi_ai"
CORPUS = {t["id"]: t for t in json.loads((PI / "corpus.json").read_text(encoding="utf-8"))["tools"]}
MAKE_STRICT = json.loads((PI / "make_strict.json").read_text(encoding="utf-8"))
DIRECT = json.loads((PI / "convert_direct.json").read_text(encoding="utf-8"))
WIRE = json.loads((PI / "wire.json").read_text(encoding="utf-8"))


def definition(tool_id: str, constrained=None) -> dict:
    t = CORPUS[tool_id]["tool"]
    d = {"name": t["name"], "description": t.get("description"), "parameters": t.get("parameters")}
    if constrained:
        d["constrainedSampling"] = constrained
    return d


def same(a, b) -> bool:
    """Equal values and equal key order: the wire bytes would be the same."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.mark.parametrize("case", MAKE_STRICT, ids=[c["id"] for c in MAKE_STRICT])
def test_make_strict_matches_the_library(case):
    schema = CORPUS[case["id"]]["tool"]["parameters"]
    if case["ok"]:
        assert same(make_strict(schema), case["schema"])
    else:
        with pytest.raises(StrictSchemaError) as info:
            make_strict(schema)
        assert str(info.value) == case["error"]


def _direct_ids(version):
    return [
        f"{i}-{c['tool']}-{json.dumps(c['options'])}-{(c['constrainedSampling'] or {}).get('strict', (c['constrainedSampling'] or {}).get('type'))}"
        for i, c in enumerate(DIRECT[version])
    ]


@pytest.mark.parametrize("version", ["1.6.0", "0.73.1"])
def test_convert_responses_tools_called_directly(version):
    for case in DIRECT[version]:
        tool = (
            definition(case["tool"], case["constrainedSampling"])
            if case["tool"] in CORPUS
            else {
                **{k: case["result"][0][k] for k in ("name", "description")},
                "parameters": case["result"][0].get(
                    "parameters", {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
                ),
                "constrainedSampling": case["constrainedSampling"],
            }
        )
        options = case["options"] if case["optionsGiven"] else None
        where = (case["tool"], case["options"], case["constrainedSampling"])
        if case["ok"]:
            got = convert_responses_tools([tool], options, version=version)
            assert same(got, case["result"]), where
        else:
            with pytest.raises((PiAiRefusal, StrictSchemaError)) as info:
                convert_responses_tools([tool], options, version=version)
            assert str(info.value) == case["error"], where


CELLS = [c for c in WIRE["cells"] if not c.get("catalog")]


def _cell_id(c) -> str:
    compat = "unset" if c["compat"] is None else json.dumps(c["compat"]["supportsStrictMode"])
    return f"{c['piAi']}-{c['api']}-{compat}-{c['toolset']}" + (f"-{c['tool']}" if c.get("tool") else "")


@pytest.mark.parametrize("cell", CELLS, ids=[_cell_id(c) for c in CELLS])
def test_provider_tool_arrays_match_the_wire(cell):
    toolset = cell["toolset"]
    constrained = (
        None
        if toolset == "plain"
        else {"type": "json_schema", "strict": "prefer" if toolset == "prefer" else "require"}
    )
    ids = [cell["tool"]] if toolset == "require-single" else WIRE["toolsets"][toolset]
    tools = [definition(i, constrained) for i in ids]
    if cell["ok"]:
        got = convert_tools(tools, api=cell["api"], compat=cell["compat"], pi_ai=cell["piAi"])
        assert same(got, cell["tools"]), _cell_id(cell)
        assert same(got, cell["body"]["tools"])  # the tools array as the server received it
    else:
        assert cell["requests"] == 0  # pi-ai refused before sending
        with pytest.raises(PiAiRefusal) as info:
            convert_tools(tools, api=cell["api"], compat=cell["compat"], pi_ai=cell["piAi"])
        assert str(info.value) == cell["error"]


def test_the_fixtures_cover_every_cell_of_the_pi_ai_md_table():
    cells = {
        (c["piAi"], c["api"], json.dumps((c["compat"] or {}).get("supportsStrictMode")), c["toolset"]) for c in CELLS
    }
    for api in ("openai-responses", "openai-codex-responses", "openai-completions"):
        for compat in ("null", "true", "false"):
            assert ("0.73.1", api, compat, "plain") in cells
            for toolset in ("plain", "prefer", "require"):
                assert ("1.6.0", api, compat, toolset) in cells

    # and the bash column of docs/upstream.md#pi-ai-observed-strict, read off the real bodies
    def bash_strict(version, api, compat, toolset):
        cell = next(
            c for c in CELLS if (c["piAi"], c["api"], c["compat"], c["toolset"]) == (version, api, compat, toolset)
        )
        if not cell["ok"]:
            return "error"
        tools = [t.get("function", t) for t in cell["tools"]]
        return strict_state(next(t for t in tools if t["name"] == "bash"))

    unset, on, off = None, {"supportsStrictMode": True}, {"supportsStrictMode": False}
    assert [bash_strict("1.6.0", "openai-responses", c, "plain") for c in (unset, on, off)] == [
        "absent",
        "false",
        "absent",
    ]
    assert [bash_strict("1.6.0", "openai-responses", c, "prefer") for c in (unset, on, off)] == [
        "absent",
        "true",
        "absent",
    ]
    assert [bash_strict("1.6.0", "openai-responses", c, "require") for c in (unset, on, off)] == [
        "error",
        "true",
        "error",
    ]
    assert [bash_strict("1.6.0", "openai-codex-responses", c, "plain") for c in (unset, on, off)] == [
        "null",
        "null",
        "absent",
    ]
    assert [bash_strict("1.6.0", "openai-completions", c, "plain") for c in (unset, on, off)] == [
        "absent",
        "false",
        "absent",
    ]
    assert [bash_strict("0.73.1", "openai-responses", c, "plain") for c in (unset, on, off)] == ["false"] * 3
    assert [bash_strict("0.73.1", "openai-codex-responses", c, "plain") for c in (unset, on, off)] == ["null"] * 3
    assert [bash_strict("0.73.1", "openai-completions", c, "plain") for c in (unset, on, off)] == [
        "false",
        "false",
        "absent",
    ]
