"""Layer 2 beyond the fixtures: variants, comparison with a rewriting gateway, argument validation."""

from __future__ import annotations

import copy
import json
import re
import sys

import pandas as pd
import pytest
from conftest import FIXTURES, REPO

from toolkit.layers.serialization import (
    COMPARE,
    MISSING,
    VARIANTS,
    PiAiRefusal,
    StrictSchemaError,
    compare,
    convert_tools,
    make_strict,
    schema_changes,
    strict_state,
    validate_arguments,
    variants,
)

sys.path.insert(0, str(REPO / "lab"))
import scenarios

BASH = {"name": "bash", "description": scenarios.BASH_DESCRIPTION, "parameters": scenarios.BASH_PARAMETERS}
OPTIONAL = ("timeoutMs", "workdir", "run_in_background", "sandbox_permissions", "justification")


def test_variants_of_dshs_bash_tool():
    v = variants(BASH).set_index("variant")
    assert list(v.index) == [
        "absent, pass-through gateway",
        "absent, gateway reads absence as strict",
        "false",
        "null (Codex)",
        "true, pi-ai's strict transform",
    ]
    assert v.loc["absent, pass-through gateway", "required"] == ("command", "description")
    assert v.loc["absent, pass-through gateway", "optional"] == OPTIONAL
    strict = v.loc["true, pi-ai's strict transform"]
    assert strict["required"] == ("command", "description") + OPTIONAL and strict["nullable"] == OPTIONAL
    assert strict["additional_properties"] == "false"
    assert "justification must be present and may be null" in strict["must_send"].replace(
        "timeoutMs, workdir, run_in_background, sandbox_permissions, ", ""
    )
    normalised = v.loc["absent, gateway reads absence as strict"]
    assert normalised["nullable"] == () and normalised["required"] == ("command", "description") + OPTIONAL
    assert "invents values" in normalised["must_send"]


def test_variants_when_pi_ai_cannot_make_it_strict():
    tool = {"name": "x", "parameters": {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}}
    row = variants(tool).iloc[-1]
    assert row["read_as"] == "not possible" and row["must_send"].startswith(
        "pi-ai cannot make this schema strict: oneOf schemas are unsupported"
    )


def test_compare_catches_a_gateway_that_rewrites_schemas():
    sent = {
        "type": "function",
        "name": "bash",
        "description": scenarios.BASH_DESCRIPTION,
        "strict": True,
        "parameters": copy.deepcopy(scenarios.BASH_PARAMETERS),
    }
    del sent["parameters"]["properties"]["run_in_background"]
    sent["parameters"]["required"] = ["command"]
    sent["parameters"]["additionalProperties"] = False
    result = compare(sent, BASH, api="openai-responses", compat={"supportsStrictMode": True})
    assert (result.strict, result.expected_strict, result.parameters) == ("true", "false", "rewritten")
    got = set(zip(result.differences["path"], result.differences["kind"]))
    assert got == {
        ("$.strict", "strict changed"),
        ("$.parameters.required", "required changed"),
        ("$.parameters.additionalProperties", "additionalProperties injected"),
        ("$.parameters.properties.run_in_background", "property dropped"),
    }


def test_compare_the_lab_captures_match_pi_ai():
    import toolkit

    for folder, compat, expected in [
        ("before-fix", None, "absent"),
        ("after-fix", {"supportsStrictMode": True}, "false"),
    ]:
        cap = toolkit.load_capture(REPO / "data" / folder / "capture.har")
        schema_of = dict(zip(cap.tool_schemas["schema_hash"], cap.tool_schemas["schema"]))
        for row in cap.tools[cap.tools["name"] == "bash"].itertuples():
            sent = {
                "type": "function",
                "name": "bash",
                "description": scenarios.BASH_DESCRIPTION,
                "parameters": schema_of[row.schema_hash],
            }
            if row.strict_state != "absent":
                sent["strict"] = {"false": False, "true": True, "null": None}[row.strict_state]
            result = compare(sent, BASH, api="openai-responses", compat=compat)
            assert result.matches and result.strict == expected and result.parameters == "as defined", result


def test_compare_a_chat_tool_and_a_removed_strict():
    sent = {
        "type": "function",
        "function": {
            "name": "bash",
            "description": scenarios.BASH_DESCRIPTION,
            "parameters": scenarios.BASH_PARAMETERS,
        },
    }
    result = compare(sent, BASH, api="openai-completions", compat={"supportsStrictMode": True})
    assert list(result.differences["kind"]) == ["strict removed"]


def test_compare_a_tool_pi_ai_would_refuse():
    tool = {**BASH, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    result = compare(
        {"type": "function", "name": "bash", "parameters": BASH["parameters"]}, tool, api="openai-responses"
    )
    assert result.expected_strict is None and result.differences.iloc[0]["kind"] == "not sent by pi-ai"


def test_require_without_strict_support_raises_pi_ais_text():
    tool = {**BASH, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    with pytest.raises(PiAiRefusal) as info:
        convert_tools([tool], api="openai-responses")
    assert str(info.value) == 'Tool "bash" requires JSON-schema constrained sampling, but strict tools are unsupported.'


def test_make_strict_names_rule_and_path():
    with pytest.raises(StrictSchemaError) as info:
        make_strict({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"$ref": "#/x"}}}}})
    assert (str(info.value), info.value.rule, info.value.path) == (
        "$ref schemas are unsupported",
        2,
        "$.properties.a.properties.b",
    )
    assert make_strict(BASH["parameters"]) != BASH["parameters"]  # and the input is untouched:
    assert BASH["parameters"] == scenarios.BASH_PARAMETERS and "additionalProperties" not in scenarios.BASH_PARAMETERS


def test_strict_state_four_values():
    assert [
        strict_state(t)
        for t in ({}, {"strict": None}, {"strict": False}, {"strict": True}, {"function": {"strict": None}})
    ] == ["absent", "null", "false", "true", "null"]


def test_valid_for_the_schema_but_rejected_by_dsh():
    filled = {
        "command": "ls -la",
        "description": "List files in the workspace",
        "timeoutMs": 120000,
        "workdir": ".",
        "run_in_background": False,
        "sandbox_permissions": "danger-full-access",
        "justification": "",
    }
    assert validate_arguments(filled, scenarios.BASH_PARAMETERS) == []  # DSH: invalid justification
    strict_schema = make_strict(scenarios.BASH_PARAMETERS)
    nulls = {**filled, "sandbox_permissions": None, "justification": None}
    assert validate_arguments(nulls, strict_schema) == []  # valid under pi-ai's strict schema...
    violations = validate_arguments(nulls, scenarios.BASH_PARAMETERS)  # ...but not under the one DSH checks
    assert [(v.path, v.keyword) for v in violations] == [
        ("$.justification", "type"),
        ("$.sandbox_permissions", "enum"),
        ("$.sandbox_permissions", "type"),
    ]
    assert validate_arguments('{"command": ', scenarios.BASH_PARAMETERS)[0].keyword == "json"
    missing = validate_arguments({"command": "ls"}, scenarios.BASH_PARAMETERS)
    assert [(v.path, v.message) for v in missing] == [("$", "'description' is a required property")]


def test_schema_changes_is_the_one_schema_diff_with_raw_values():
    """compare and hops.diff both use it; a missing key is MISSING, not a JSON null."""
    before = {"name": "bash", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}, "required": []}}
    after = {
        "name": "bash",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": False,
        },
        "strict": None,
    }
    assert schema_changes(before, after, "$.tools[0]") == [
        ("$.tools[0].parameters.required", "required changed", [], ["a"]),
        ("$.tools[0].parameters.additionalProperties", "additionalProperties injected", MISSING, False),
        ("$.tools[0].strict", "strict added", MISSING, None),
    ]
    assert schema_changes(before, before) == []


# ---- declared frames --------------------------------------------------------------------------


def test_variants_frame_is_the_declared_one():
    v = variants(BASH)
    assert VARIANTS.mismatches(v) == []
    # fixed categoricals: a value outside the vocabulary would become missing, so none may be
    assert v[["strict", "read_as", "additional_properties"]].notna().all().all()
    refused = variants({"name": "x", "parameters": {"type": "object", "properties": {"a": {"oneOf": [{}]}}}})
    assert VARIANTS.mismatches(refused) == [] and refused.iloc[-1]["read_as"] == "not possible"
    assert pd.isna(refused.iloc[-1]["additional_properties"]) and refused.iloc[-1]["schema"] is None


def test_compare_differences_are_the_declared_frame_also_when_identical_or_refused():
    rewritten = {
        "type": "function",
        "name": "bash",
        "parameters": {**BASH["parameters"], "additionalProperties": False},
    }
    diffs = compare(rewritten, BASH, api="openai-responses").differences
    assert len(diffs) and COMPARE.mismatches(diffs) == [] and diffs["kind"].notna().all()
    sent = convert_tools([BASH], api="openai-responses")[0]
    same = compare(sent, BASH, api="openai-responses")
    assert same.matches and COMPARE.mismatches(same.differences) == []
    tool = {**BASH, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    refused = compare(
        {"type": "function", "name": "bash", "parameters": BASH["parameters"]}, tool, api="openai-responses"
    )
    assert COMPARE.mismatches(refused.differences) == [] and list(refused.differences["kind"]) == ["not sent by pi-ai"]


# ---- versions ---------------------------------------------------------------------------------

PI = FIXTURES / "pi_ai"
PREFER = {"type": "json_schema", "strict": "prefer"}
WIRE_CELLS = json.loads((PI / "wire.json").read_text(encoding="utf-8"))["cells"]
CORPUS_TOOLS = {t["id"]: t["tool"] for t in json.loads((PI / "corpus.json").read_text(encoding="utf-8"))["tools"]}


def _sent_bash(version, api, compat, toolset):
    cell = next(
        c
        for c in WIRE_CELLS
        if not c.get("catalog") and (c["piAi"], c["api"], c["compat"], c["toolset"]) == (version, api, compat, toolset)
    )
    return next(t for t in cell["tools"] if t.get("function", t)["name"] == "bash")


@pytest.mark.parametrize("version", ["1.6.0", "0.73.1", "0.82.1", "0.99.1"])
def test_compare_recognises_what_each_version_really_sent(version):
    """Every plain/prefer bash pi-ai ``version`` sent matches ``compare(..., pi_ai=version)``; the sent
    parameters are named as pi-ai made them (its transform only where the version has one)."""
    definition = {k: CORPUS_TOOLS["bash"][k] for k in ("name", "description", "parameters")}
    for api in ("openai-responses", "openai-codex-responses", "openai-completions"):
        for compat in (None, {"supportsStrictMode": True}, {"supportsStrictMode": False}):
            for toolset in ("plain", "prefer") if version != "0.73.1" else ("plain",):
                d = definition if toolset == "plain" else {**definition, "constrainedSampling": PREFER}
                sent = _sent_bash(version, api, compat, toolset)
                result = compare(sent, d, api=api, compat=compat, pi_ai=version)
                assert result.matches, (version, api, compat, toolset, result)
                transformed = sent.get("function", sent)["parameters"] != definition["parameters"]
                assert result.parameters == ("pi-ai's strict transform" if transformed else "as defined")


def test_compare_tells_0_82_1_from_1_6_0_on_completions():
    """DSH's pi-ai (0.82.1) sends strict false on a custom completions route; 1.6.0 would send no key."""
    sent = _sent_bash("0.82.1", "openai-completions", None, "plain")
    against_160 = compare(sent, BASH, api="openai-completions", pi_ai="1.6.0")
    assert list(against_160.differences["kind"]) == ["strict added"]
    assert compare(sent, BASH, api="openai-completions", pi_ai="0.82.1").matches


@pytest.mark.parametrize("version", ["1.6.0", "0.82.1", "0.99.1"])
def test_variants_true_row_is_what_the_version_sends_under_prefer(version):
    """The ``strict: true`` row's schema is the parameters pi-ai ``version`` really sent for bash under
    ``prefer`` on a route that supports strict."""
    row = variants(BASH, version).set_index("variant").loc["true, pi-ai's strict transform"]
    sent = _sent_bash(version, "openai-responses", {"supportsStrictMode": True}, "prefer")
    assert sent["strict"] is True
    assert json.dumps(row["schema"]) == json.dumps(sent["parameters"])
    assert VARIANTS.mismatches(variants(BASH, version)) == []


def test_variants_refuse_an_unmodelled_version():
    with pytest.raises(ValueError, match=re.escape("choose one of 1.6.0, 0.73.1, 0.82.1, 0.99.1")):
        variants(BASH, "1.3.0")
    with pytest.raises(ValueError, match="choose one of"):
        compare({}, BASH, api="openai-responses", pi_ai="2.0.0")
