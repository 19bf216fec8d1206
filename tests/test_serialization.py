"""Layer 2 beyond the fixtures: variants, comparison with a rewriting gateway, argument validation."""

from __future__ import annotations

import copy
import sys

import pandas as pd
import pytest
from conftest import REPO

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
