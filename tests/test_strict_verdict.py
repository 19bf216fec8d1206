"""Strict-mode verdicts: OpenAI's rules with their exact 400 texts, and the verdict on real DSH tools."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import toolkit
from toolkit.capture.frames import DECLARED
from toolkit.knowledge.openai_strict import RULES, check
from toolkit.layers.strict import VERDICTS, all_keys_required, strict_verdict, strict_verdicts

OK = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False}


def obj(props: dict, **extra) -> dict:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False, **extra}


def first(schema, name="f"):
    found = check(schema, name=name)
    return found[0] if found else None


def test_a_strict_compatible_schema_is_accepted():
    assert check(OK, name="f") == []
    assert check(obj({}), name="f") == []  # zero arguments with an empty properties map


# (rule, schema, near miss, exact 400 text of the positive case)
CASES = [
    (
        "required-missing",
        {**OK, "properties": {"content": {"type": "string"}, "id": {"type": "string"}}, "required": ["id"]},
        obj({"content": {"type": "string"}, "id": {"type": "string"}}),
        "Invalid schema for function 'manage_memory': In context=(), 'required' is required to be supplied and to "
        "be an array including every key in properties. Missing 'content'.",
    ),
    (
        "additional-properties",
        obj({"fields": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}),
        obj({"fields": obj({"a": {"type": "string"}})}),
        "Invalid schema for function 'manage_memory': In context=('properties', 'fields'), 'additionalProperties' "
        "is required to be supplied and to be false.",
    ),
    (
        "root-combinator",
        {**OK, "anyOf": [OK, {"type": "string"}]},
        OK,
        "Invalid schema for function 'manage_memory': schema must have type 'object' and not have "
        "'oneOf'/'anyOf'/'allOf'/'enum'/'const'/'not' at the top level.",
    ),
    (
        "root-type",
        {"type": None, "properties": {}},
        obj({}),
        "Invalid schema for function 'manage_memory': schema must be a JSON Schema of 'type: \"object\"', got "
        "'type: \"None\"'.",
    ),
    (
        "object-missing-properties",
        {"type": "object", "additionalProperties": False},
        obj({}),
        "Invalid schema for function 'manage_memory': In context=(), object schema missing properties.",
    ),
    (
        "type-missing",
        obj({"ok": {"description": "anything"}}),
        obj({"ok": {"type": "boolean", "description": "anything"}}),
        "Invalid schema for function 'manage_memory': In context=('properties', 'ok'), schema must have a 'type' key.",
    ),
    (
        "format",
        obj({"url": {"type": "string", "format": "uri"}}),
        obj({"url": {"type": "string", "format": "date-time"}}),
        "Invalid schema for function 'manage_memory': In context=('properties', 'url'), 'uri' is not a valid format.",
    ),
    (
        "pattern-regex",
        obj({"n": {"type": "string", "pattern": r"^[^\p{Cc}]{1,200}$"}}),
        obj({"n": {"type": "string", "pattern": r"^[a-z]{1,200}$"}}),
        "Invalid schema for function 'manage_memory': '^[^\\p{Cc}]{1,200}$' is not a 'regex'.",
    ),
    (
        "required-type",
        {"type": "object", "properties": {}, "required": None, "additionalProperties": False},
        obj({}),
        "Invalid schema for function 'manage_memory': None is not of type 'array'.",
    ),
    (
        "unsupported-keyword",
        obj({"x": {"type": "string", "not": {"const": "a"}}}),
        obj({"x": {"type": "string", "enum": ["b"]}}),
        "Invalid schema for function 'manage_memory': In context=('properties', 'x'), 'not' is not permitted.",
    ),
]


@pytest.mark.parametrize(("rule", "bad", "near", "text"), CASES, ids=[c[0] for c in CASES])
def test_each_openai_rule_gives_its_400_and_the_near_miss_passes(rule, bad, near, text):
    v = first(bad, "manage_memory")
    assert v is not None and v.rule == rule and v.message == text
    assert v.source.startswith(RULES[rule].source)
    assert check(near, name="manage_memory") == []


def test_nested_objects_give_openai_context_and_a_json_path():
    schema = obj({"items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}})
    v = first(schema)
    assert (v.rule, v.context, v.path) == (
        "additional-properties",
        "('properties', 'items', 'items')",
        "$.properties.items.items",
    )


def test_nesting_and_size_limits():
    deep: dict = {"type": "string"}
    for _ in range(11):
        deep = obj({"x": deep})
    assert first(deep).message == "Invalid schema for function 'f': 11 levels of nesting exceeds limit of 10."
    ten: dict = {"type": "string"}
    for _ in range(10):
        ten = obj({"x": ten})
    assert check(ten, name="f") == []
    wide = obj({f"p{i}": {"type": "string"} for i in range(5001)})
    assert first(wide).message == "Invalid schema for function 'f': 5001 parameters exceeds limit of 5000."
    assert check(obj({f"p{i}": {"type": "string"} for i in range(5000)}), name="f") == []
    many = obj({"e": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}})
    v = first(many)
    assert v.rule == "total-enum-values" and not v.exact


def test_additional_properties_is_checked_before_required_in_one_object():
    # openai/codex #7758: the shell tool, optional properties and no additionalProperties, got this text
    v = first(
        {
            "type": "object",
            "properties": {"command": {"type": "string"}, "workdir": {"type": "string"}},
            "required": ["command"],
        },
        "shell",
    )
    assert v.message == (
        "Invalid schema for function 'shell': In context=(), 'additionalProperties' is required to be supplied "
        "and to be false."
    )


DSH = "data/dsh-before-fix/capture.har"


@pytest.fixture(scope="module")
def dsh_capture():
    return toolkit.load_capture(DSH)


def test_no_dsh_tool_is_accepted_by_a_strict_endpoint_as_sent(dsh_capture):
    df = strict_verdicts(dsh_capture)
    assert len(df) == 25 and set(df["tool"]) == set(dsh_capture.tools["name"])
    assert not df["openai_accepts"].any()  # no DSH schema carries additionalProperties: false at its root
    assert set(df["first_rule"]) == {"additional-properties"} and set(df["first_path"]) == {"$"}
    assert (df["strict_state_sent"] == "absent").all()
    assert int(df["uses"].sum()) == len(dsh_capture.tools)
    # pi-ai's transform makes all but workflow acceptable; workflow's free-form args pi-ai refuses
    refused = df[df["pi_ai_transform"] != "accepted"]
    assert list(refused["tool"]) == ["workflow"]
    assert refused["pi_ai_transform"].iloc[0] == "refused: schema-valued or true additionalProperties is unsupported"
    # the Agents SDK refuses the same map with its UserError (F18); the all-keys-required result is refused by
    # OpenAI because the map has no properties
    sdk = df.set_index("tool")["agents_sdk"]
    assert sdk["workflow"].startswith("refused: additionalProperties should not be set for object types.")
    assert (sdk.drop("workflow") == "accepted").all()
    akr = df.set_index("tool")["all_keys_required"]
    assert akr["workflow"] == (
        "Invalid schema for function 'workflow': In context=('properties', 'args'), object schema missing properties."
    )


def test_bash_risky_fills_name_the_empty_justification_and_the_escalation(dsh_capture):
    bash = dsh_capture.tool_schemas.set_index("schema_hash").loc[
        dsh_capture.tools.set_index("name").loc["bash", "schema_hash"].iloc[0], "schema"
    ]
    v = strict_verdict({"name": "bash", "description": "", "parameters": bash})
    assert not v.accepted
    fills = {r["field"]: r for r in v.risky_fills}
    assert fills["justification"]["filled"] == ""
    assert "invalid justification: expected a non-empty sentence" in fills["justification"]["why"]
    assert fills["sandbox_permissions"]["filled"] == bash["properties"]["sandbox_permissions"]["enum"][0]
    assert "escalation" in fills["sandbox_permissions"]["why"]
    assert "sandbox_permissions+justification" in fills
    assert fills["timeoutMs"]["filled"] == 0 and fills["run_in_background"]["filled"] is False
    assert v.absent_reading["must_fill"] == tuple(p for p in bash["properties"] if p not in bash["required"])
    # the absent reading is variants()'s, and pi-ai's transform is accepted by OpenAI
    assert v.transform_verdicts["pi-ai 1.6.0"] is None
    assert v.transform_verdicts["all-keys-required"] is None


def test_a_chat_nested_tool_and_the_all_keys_required_transform():
    tool = {
        "type": "function",
        "function": {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["b"],
            },
        },
    }
    v = strict_verdict(tool)
    assert v.tool == "t" and v.first.rule == "additional-properties"
    assert all_keys_required(tool["function"]["parameters"])["required"] == ["b", "a"]
    assert v.transforms["pi-ai 1.6.0"]["properties"]["a"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert [r["filled"] for r in v.risky_fills] == [""]


def test_a_pi_ai_version_without_a_transform_sends_the_schema_as_defined():
    v = strict_verdict({"name": "t", "parameters": OK}, pi_ai="0.82.1")
    assert v.transforms["pi-ai 0.82.1"] == OK and v.accepted


def test_bad_tools_are_input_errors():
    with pytest.raises(toolkit.errors.InputError, match="no name"):
        strict_verdict({"parameters": OK})


def test_the_frame_is_declared_and_keeps_its_dtypes(dsh_capture):
    assert DECLARED["strict.verdicts"] is VERDICTS
    df = strict_verdicts(dsh_capture)
    assert dict(df.dtypes.astype(str)) == dict(VERDICTS.empty().dtypes.astype(str))
    no_tools = SimpleNamespace(tools=dsh_capture.tools.iloc[0:0], tool_schemas=dsh_capture.tool_schemas.iloc[0:0])
    empty = strict_verdicts(no_tools)
    assert empty.empty and list(empty.columns) == list(VERDICTS.columns)
    assert dict(empty.dtypes.astype(str)) == dict(df.dtypes.astype(str))


def test_before_fix_capture():
    df = strict_verdicts(toolkit.load_capture("data/before-fix/capture.har"))
    assert list(df["tool"]) == ["bash", "read_image"] and not df["openai_accepts"].any()


# §1 of issue 28: each gap, from a public report (URL, date); the full cases are in tests/corpus/openai_strict.


def test_one_of_is_refused_where_any_of_is_walked_and_a_defs_entry_is_its_own_context():
    # livekit/agents #5302 (2026-04-01): a discriminated union in $defs got "In context=(), 'oneOf' is not permitted."
    car = obj({"vehicle": {"type": "string", "const": "Car"}})
    defs = {"Car": car, "CarOrBike": {"oneOf": [{"$ref": "#/$defs/Car"}]}}
    v = first({**obj({"vehicle": {"$ref": "#/$defs/CarOrBike"}}), "$defs": defs})
    assert (v.rule, v.context, v.path) == ("unsupported-keyword", "()", "$.$defs.CarOrBike")
    assert v.message == "Invalid schema for function 'f': In context=(), 'oneOf' is not permitted."
    any_of = {**defs, "CarOrBike": {"anyOf": [{"$ref": "#/$defs/Car"}]}}  # "this version works"
    assert check({**obj({"vehicle": {"$ref": "#/$defs/CarOrBike"}}), "$defs": any_of}, name="f") == []


def test_keywords_beside_a_ref_are_refused_in_the_context_form_without_in():
    # community.openai.com/t/1374904: a description next to a $ref; the same node wrapped in anyOf is accepted
    foo = obj({"id": {"type": "string"}})
    bad = {**obj({"foo": {"$ref": "#/$defs/Foo", "description": "A Foo object."}}), "$defs": {"Foo": foo}}
    v = check(bad, name="json_schema", surface="response_format")[0]
    assert v.message == (
        "Invalid schema for response_format 'json_schema': context=('properties', 'foo'), $ref cannot have "
        "keywords {'description'}."
    )
    wrapped = {
        **obj({"foo": {"anyOf": [{"$ref": "#/$defs/Foo"}], "description": "A Foo object."}}),
        "$defs": {"Foo": foo},
    }
    assert check(wrapped, name="json_schema", surface="response_format") == []


def test_a_root_combinator_without_type_reports_the_root_type_first():
    # openai-node #1092 (2024-09-21) and vercel/ai #7005 (2025-07-02): a root without type is 'type: "None"'
    v = first({"anyOf": [OK]}, "query")
    assert v.rule == "root-type"
    assert v.message.endswith("got 'type: \"None\"'.")
    assert first({"type": "string"}).message.endswith("got 'type: \"string\"'.")  # openai-node #1597 (2025-07-24)


def test_the_root_combinator_text_is_dated_and_the_verdict_names_its_period():
    # 'const' joined the list: microsoft/vscode #307515 (2026-04-02) without it, cc-switch #6918 (2026-08-28) with it
    rule = RULES["root-combinator"]
    assert [label for label, _ in rule.dated] == ["until 2026-04", "since 2026-08"]
    assert rule.template == rule.dated[-1][1]
    schema = {**OK, "oneOf": [OK]}
    old, new = check(schema, name="f", date="2026-04-02")[0], check(schema, name="f", date="2026-08-28")[0]
    assert (old.period, new.period) == ("until 2026-04", "since 2026-08")
    assert "'enum'/'not'" in old.message and "'enum'/'const'/'not'" in new.message
    assert check(schema, name="f")[0].message == new.message  # no date: today's wording
    assert check(schema, name="f", date="2026-06-15")[0].period == "until 2026-04"  # a gap keeps the last seen


def test_array_items_parameters_type_and_required_null_are_refused_even_without_strict():
    # sigoden/aichat #1049 (2024-12-11), maltekuhr/laravel-gpt #8 (2024-03-13), yomorun/yomo #860 (2024-07-17)
    paths = {"type": "object", "properties": {"paths": {"type": "array"}}, "required": ["paths"]}
    v = check(paths, name="read", strict=False)
    assert [x.message for x in v] == [
        "Invalid schema for function 'read': In context=('properties', 'paths'), array schema missing items."
    ]
    assert (
        check([], name="k", strict=False)[0].message == "Invalid schema for function 'k': [] is not of type 'object'."
    )
    null = {"type": "object", "properties": {}, "required": None}
    assert check(null, name="ai-sfn", strict=False)[0].message == (
        "Invalid schema for function 'ai-sfn': None is not of type 'array'."
    )
    assert (
        check(
            {**paths, "properties": {"paths": {"type": "array", "items": {"type": "string"}}}},
            name="read",
            strict=False,
        )
        == []
    )


def test_a_function_without_parameters_is_read_as_an_empty_object():
    # inngest/agent-kit #66 (2025-02-13): a strict tool with no parameters is asked for additionalProperties
    assert first(None, "done").message == (
        "Invalid schema for function 'done': In context=(), 'additionalProperties' is required to be supplied and to "
        "be false."
    )
    assert check(None, name="done", strict=False) == []
    assert strict_verdict({"name": "done"}).first.rule == "additional-properties"
    assert strict_verdict({"type": "function", "function": {"name": "done"}}).first.rule == "additional-properties"


def test_what_openai_accepts_is_not_refused():
    # openai-python tests/lib/chat/test_completions.py, recorded against the live API (2024-09-26): $defs/$ref,
    # anyOf of references, a non-null default; and the guide's formats
    condition = obj({"value": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"$ref": "#/$defs/Dyn"}]}})
    schema = {
        **obj({"c": {"$ref": "#/$defs/Condition"}, "units": {"type": "string", "enum": ["c", "f"], "default": "c"}}),
        "$defs": {"Condition": condition, "Dyn": obj({"column_name": {"type": "string"}})},
    }
    assert check(schema, name="f") == []
    assert check(obj({f: {"type": "string", "format": f} for f in ("date-time", "email", "uuid")}), name="f") == []


def test_an_extra_required_key_has_the_reported_text():
    # pnthn-ai/polar_llama #86 (2026-07-14) quotes the text after the context
    v = first({**obj({"a": {"type": "string"}}), "required": ["a", "thinking"]})
    assert v.rule == "required-extra" and v.exact
    assert v.message.endswith(
        "'required' is required to be supplied and to be an array including every key in properties. Extra required "
        "key 'thinking' supplied."
    )
