"""The Python model of pi-ai against what the real library did (``tests/fixtures/pi_ai``, made by
``lab/pi-ai-fixtures/generate.mjs`` with the pinned npm packages). Every disagreement fails."""

from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES

from toolkit.knowledge import pi_ai
from toolkit.knowledge.pi_ai_strict import has_transform
from toolkit.knowledge.pi_ai_tools import PiAiRefusal, convert_responses_tools
from toolkit.layers.serialization import StrictSchemaError, convert_tools, make_strict, strict_state

PI = FIXTURES / "pi_ai"
load = lambda name: json.loads((PI / name).read_text(encoding="utf-8"))  # noqa: E731
CORPUS = {t["id"]: t for t in load("corpus.json")["tools"]}
#: makeStrictJsonSchema per version that has one (0.82.1 and 0.73.1 have none)
MAKE_STRICT = {"1.6.0": load("make_strict.json"), "0.99.1": load("make_strict_0.99.1.json")}
DIRECT = load("convert_direct.json")
WIRE = load("wire.json")
META = load("meta.json")
NEW = ("0.82.1", "0.99.1")  # recorded like 1.6.0: direct calls and the whole api x compat x toolset grid


def definition(tool_id: str, constrained=None) -> dict:
    t = CORPUS[tool_id]["tool"]
    d = {"name": t["name"], "description": t.get("description"), "parameters": t.get("parameters")}
    if constrained:
        d["constrainedSampling"] = constrained
    return d


def same(a, b) -> bool:
    """Equal values and equal key order: the wire bytes would be the same."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


STRICT_CASES = [(v, c) for v, cases in MAKE_STRICT.items() for c in cases]


@pytest.mark.parametrize(("version", "case"), STRICT_CASES, ids=[f"{v}-{c['id']}" for v, c in STRICT_CASES])
def test_make_strict_matches_the_library(version, case):
    schema = CORPUS[case["id"]]["tool"]["parameters"]
    if case["ok"]:
        assert same(make_strict(schema, version), case["schema"])
    else:
        with pytest.raises(StrictSchemaError) as info:
            make_strict(schema, version)
        assert str(info.value) == case["error"]


def test_make_strict_exists_exactly_where_the_library_has_it():
    assert [v for v in pi_ai.VERSIONS if has_transform(v)] == sorted(MAKE_STRICT, key=pi_ai.VERSIONS.index)
    for version in pi_ai.VERSIONS:
        used = META["functionsUsed"][version]
        assert ("makeStrictJsonSchema" in used) == has_transform(version), version
        if not has_transform(version):
            with pytest.raises(ValueError, match=f"pi-ai {version} has no strict transform"):
                make_strict({"type": "object"}, version)


def test_the_fixtures_record_every_modelled_version():
    assert sorted(META["functionsUsed"]) == sorted(pi_ai.VERSIONS)
    for version in pi_ai.VERSIONS:
        assert DIRECT[version], version
        assert any(c["piAi"] == version for c in WIRE["cells"]), version
        assert META["packages"][f"pi-ai-{version}"] == pi_ai.release(version).package


def test_an_unmodelled_version_is_refused_naming_the_modelled_ones():
    for call in (
        lambda: convert_tools([], api="openai-responses", pi_ai="1.3.0"),
        lambda: make_strict({"type": "object"}, "1.3.0"),
        lambda: pi_ai.plain_tool_strict("openai-responses", None, "1.3.0"),
    ):
        with pytest.raises(
            ValueError, match=re.escape("pi-ai '1.3.0' is not modelled; choose one of 1.6.0, 0.73.1, 0.82.1, 0.99.1")
        ):
            call()


def _direct_ids(version):
    return [
        f"{i}-{c['tool']}-{json.dumps(c['options'])}-{(c['constrainedSampling'] or {}).get('strict', (c['constrainedSampling'] or {}).get('type'))}"
        for i, c in enumerate(DIRECT[version])
    ]


@pytest.mark.parametrize("version", ["1.6.0", "0.73.1", *NEW])
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
            for version in ("1.6.0", *NEW):
                for toolset in ("plain", "prefer", "require", "require-single"):
                    assert (version, api, compat, toolset) in cells

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


@pytest.mark.parametrize("version", pi_ai.VERSIONS)
def test_plain_tool_strict_is_what_every_plain_tool_carried(version):
    """``pi_ai.plain_tool_strict`` (what config resolution reports per model) against every plain cell."""
    plain = [c for c in CELLS if c["piAi"] == version and c["toolset"] == "plain"]
    assert len(plain) == 9
    for cell in plain:
        compat = None if cell["compat"] is None else cell["compat"]["supportsStrictMode"]
        states = {strict_state(t.get("function", t)) for t in cell["tools"]}
        assert states == {pi_ai.plain_tool_strict(cell["api"], compat, version)}, _cell_id(cell)
