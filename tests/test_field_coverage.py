"""docs/field-failures.md against the packaged triage rules and the README: every failure mode reported in
the field is named by a rule that exists or is listed as out of reach with a reason, in both places; and
the texts users reported land on the rules the table names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolkit.analysis import triage

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "field-failures.md"
README = ROOT / "README.md"
OUT = "out of reach — "
RULE_ID = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")
PACKAGED = {r.id for r in triage.load_rules()}

# The exact error texts of the field reports (as quoted in the reports; `…` where the report elides),
# by failure mode. Each must land on one of the rules the table names for that mode.
FIELD_TEXTS = {
    "F10": ["exactly one of command or ws"],
    "F11": ["timeout_secs is only valid with timeout_mode 'after'"],
    "F12": [
        "invalid justification: expected a non-empty sentence",
        "invalid escalation: sandbox_permissions requires a justification",
        "invalid escalation: justification is only valid together with sandbox_permissions",
    ],
    "F16": [
        "Invalid schema for function 'manage_memory': In context=(), 'required' is required to be supplied and to be "
        "an array including every key in properties. Missing 'content'.",
        "Invalid schema for response_format 'cli_proxy_structured_output': … Missing 'impossible'.",
    ],
    "F17": [
        "Invalid schema for function 'my_tool': In context=('properties', 'fields'), 'additionalProperties' is "
        "required to be supplied and to be false.",
        "Invalid schema for function 'shell': In context=(), 'additionalProperties' is required to be supplied and "
        "to be false.",
    ],
    "F18": [
        "agents.exceptions.UserError: additionalProperties should not be set for object types. This could be "
        "because you're using an older version of Pydantic, or because you configured additional properties to be "
        "allowed. If you really need this, update the function or output tool to not use a strict schema."
    ],
    "F19": [
        'API Error: 400 {"error":{"message":"Tool call validation failed: parameters for tool Read did not match '
        "schema: errors: [missing properties: 'offset', 'limit', 'pages']\",\"type\":\"invalid_request_error\","
        '"code":"tool_use_failed"}}'
    ],
    "F20": [
        "Schema validation failed: [standard_violation] /properties/properties/additionalProperties: property "
        "schema 'false' is not supported"
    ],
    "F21": ["502 server_error / upstream_rejected_input", "400 invalid_function_parameters"],
    "F23": ["tools.0.custom.strict: Extra inputs are not permitted"],  # reported as `tools.<n>.custom.strict: …`
    "F25": [
        "Invalid schema for function '_create_site': schema must have type 'object' and not have "
        "'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.",
        "[invalid_client_tool_schema] codex_app__automation_update: tool parameter root must be an object type "
        "(root schema is an anyOf/oneOf union with a non-object branch)",
    ],
    "F26": [
        "Invalid schema for function 'codex_app__automation_update': schema must be a JSON Schema of "
        "'type: \"object\"', got 'type: null'.",
        "Invalid schema for function 'list_mcp_resources': null is not of type \"array\"",
        '400 Invalid schema for function agents_list: null is not of type "array"',
        "400 Tool 17 function has invalid 'parameters' schema: None is not of type 'array'",
    ],
    "F27": ['tools.function.parameters.type is required and must be "object"'],
    "F28": [
        '400 Invalid JSON payload received. Unknown name "$schema" at \'tools[0].function_declarations[0].'
        'parameters\': Cannot find field. … Unknown name "additionalProperties"',
        "tools.function.parameters is not a valid moonshot flavored json schema, details: <At path "
        "'properties.source': type is not defined>",
        "Invalid schema for function 'Artifact': '^(?!__.*__$)[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\"\\\\./[\\]]{1,200}$' "
        "is not a 'regex'.",
        "InvalidParameter: The parameters, when provided as a dict, must confirm to a valid openai-compatible JSON "
        "schema",
    ],
    "F29": ["Invalid schema for function 'xxx': In context=(), object schema missing properties."],
    "F30": [
        'Only `type:"function"` tools are supported on this endpoint. Built-in tools (web_search, file_search, '
        "code_interpreter, computer_use, mcp) are not executed here.",
        "400 Unknown parameter: 'tools.defer_loading'.",
        "invalid params, function name or parameters is empty (2013)",
        "Invalid JSON payload received. Unknown name \"tools\" at 'request.tools[0].function_declarations[10]': "
        "Cannot find field.",
    ],
    "F31": [
        "Missing required parameter: 'input[0].content'.",
        "UnsupportedParamsError: openai does not support parameters: [reasoning_effort], for model=EB-GLM-5.2",
    ],
    "F32": ["`tools` must not be an empty array. Either provide at least one tool or omit the field entirely."],
    "F33": ['{"detail":"Instructions are required"}'],
    "F34": ["Cannot read properties of undefined (reading 'startsWith')"],
    "F35": ["Tool  not found", "function_call_output missing call_id", 'unknown tool ""'],
    "F36": [
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_…",
        "Expected toolResult blocks at messages.2.content for the following Ids: …",
    ],
    "F37": [
        'Error: sandbox escalation to "workspace-write" is not strictly wider than this call\'s current '
        '"danger-full-access" mode'
    ],
    "F41": ["(image omitted: model does not support images)"],
    "F42": [
        "ERROR: Cannot read image (this model does not support image input). Inform the user.",
        "[image attachment - not viewable by this model]",
        "[attachment omitted: DeepSeek does not support image or document inputs]",
        "This model (MiMo-V2.5) does not support image data.",
    ],
    "F44": [
        '401 {"detail":"You have insufficient permissions for this operation. Missing scopes: '
        'api.responses.write. ..."}'
    ],
    "F45": [
        "Function tools with reasoning_effort are not supported in /v1/chat/completions. To use function tools, "
        "use /v1/responses or set reasoning_effort to 'none'.",
        '400: invalid value for "reasoning_effort": expected a string',
    ],
    "F46": [
        "Invalid arguments for tool get_library: Unknown argument(s): offset, source, totally_made_up. They were "
        "refused rather than ignored, because a dropped argument is indistinguishable from one that worked."
    ],
}
# Reported texts that name no cause; the table says which generic rule (or none) takes them.
UNNAMED_TEXTS = {
    "F45": ('400 "model not supported"', "http-client-error-message"),
    "F40": ("disabled by policy in this environment", triage.UNKNOWN),
}


def _rows() -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    section = None
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), 1):
        heading = re.match(r"^## ([A-G])\. ", line)
        if heading:
            section = heading.group(1)
        if not re.match(r"^\| F\d+ \|", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 5, f"{DOC.name} line {number}: expected 5 cells, found {len(cells)}"
        fid, description, stacks, sources, verdict = cells
        assert fid not in rows, f"{DOC.name} line {number}: {fid} appears twice"
        rows[fid] = {"section": section, "description": description, "stacks": stacks, "sources": sources}
        rows[fid]["triage"] = verdict
    return rows


ROWS = _rows()


def _rules_of(fid: str) -> list[str]:
    verdict = ROWS[fid]["triage"]
    return [] if verdict.startswith(OUT) else RULE_ID.findall(verdict.split(" — ")[0])


def _out_of_reach() -> set[str]:
    return {fid for fid, row in ROWS.items() if row["triage"].startswith(OUT)}


def _readme_triage() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Triage\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_every_failure_mode_has_a_row_with_its_report():
    assert list(ROWS) == [f"F{n}" for n in range(1, 47)]
    assert {row["section"] for row in ROWS.values()} == set("ABCDEFG")
    for fid, row in ROWS.items():
        assert row["description"] and row["stacks"], fid
        assert re.search(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+", row["sources"]), fid


def test_every_row_has_rules_or_a_reason():
    for fid, row in ROWS.items():
        verdict = row["triage"]
        if verdict.startswith(OUT):
            assert len(verdict) > len(OUT) + 10, f"{fid}: out of reach needs a reason"
        else:
            assert _rules_of(fid), f"{fid}: name the triage rule ids, or write '{OUT}<why>'"


def test_every_rule_the_doc_names_exists():
    named = {rule for row in ROWS.values() for rule in RULE_ID.findall(row["triage"])}
    assert named and named - PACKAGED == set()


@pytest.mark.parametrize("fid", sorted(FIELD_TEXTS, key=lambda f: int(f[1:])))
def test_reported_texts_land_on_the_rules_the_doc_names(fid):
    rules = _rules_of(fid)
    assert rules, f"{fid} has reported texts but the table names no rule"
    for text in FIELD_TEXTS[fid]:
        assert triage.classify(text).rule_id in rules, text


def test_texts_that_name_no_cause_stay_generic():
    for fid, (text, rule_id) in UNNAMED_TEXTS.items():
        assert triage.classify(text).rule_id == rule_id, (fid, text)


def test_readme_lists_the_same_out_of_reach_modes():
    section = _readme_triage()
    assert "docs/field-failures.md" in section
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Out of reach for message rules"))
    listed: set[str] = set()
    for line in lines[start + 1 :]:
        if not line.startswith("- "):
            break
        ids, _, why = line[2:].partition(": ")
        assert why.strip(), f"README: {line!r} says no why"
        listed |= set(re.findall(r"\bF\d+\b", ids))
    assert listed == _out_of_reach()


def test_readme_counts_agree_with_the_doc():
    section = _readme_triage()
    covered = len(ROWS) - len(_out_of_reach())
    found = re.search(r"(\d+) of the (\d+) failure modes", section)
    assert found and (int(found.group(1)), int(found.group(2))) == (covered, len(ROWS))
    total = re.search(r"(\d+) packaged rules", section)
    assert total and int(total.group(1)) == len(PACKAGED)


def test_rules_citing_a_row_are_named_in_it():
    """A rule written for a field report says which rows in its source; those rows name it back."""
    for rule in triage.load_rules():
        cited = re.search(r"docs/field-failures\.md ((?:F\d+(?:, )?)+)", rule.source)
        if cited:
            for fid in re.findall(r"F\d+", cited.group(1)):
                assert rule.id in _rules_of(fid), f"{rule.id} cites {fid}, whose row does not name it"
