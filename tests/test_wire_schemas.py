"""strict state (absent/null/false/true), canonical hashing and root-object facts."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.wire import schemas
from toolkit.wire.schemas import canonical_json, schema_facts, schema_hash, strict_state


@pytest.mark.parametrize(
    "tool, state",
    [
        ({"type": "function", "name": "bash"}, "absent"),
        ({"type": "function", "name": "bash", "strict": None}, "null"),
        ({"type": "function", "name": "bash", "strict": False}, "false"),
        ({"type": "function", "name": "bash", "strict": True}, "true"),
        ({"type": "function", "function": {"name": "bash"}}, "absent"),
        ({"type": "function", "function": {"name": "bash", "strict": None}}, "null"),
        ({"type": "function", "function": {"name": "bash", "strict": False}}, "false"),
        ({"type": "function", "function": {"name": "bash", "strict": True}}, "true"),
        # Chat ignores a top-level strict: the server reads it under `function`
        ({"type": "function", "strict": True, "function": {"name": "bash"}}, "absent"),
        (None, "absent"),
    ],
)
def test_strict_state(tool, state):
    assert strict_state(tool) == state


def test_strict_state_of_reference_requests():
    req = json.loads((FIXTURES / "wire" / "responses_request.json").read_text())
    codex = json.loads((FIXTURES / "wire" / "codex_request.json").read_text())
    assert strict_state(req["tools"][0]) == "absent"
    assert strict_state(codex["tools"][0]) == "null"


def test_canonical_json_and_hash_ignore_key_order_and_spacing():
    a = {"type": "object", "properties": {"ü": {"type": "string"}}, "required": ["ü"]}
    b = json.loads(json.dumps({"required": ["ü"], "properties": {"ü": {"type": "string"}}, "type": "object"}, indent=2))
    assert canonical_json(a) == '{"properties":{"ü":{"type":"string"}},"required":["ü"],"type":"object"}'
    assert schema_hash(a) == schema_hash(b)
    assert len(schema_hash(a)) == 16 and int(schema_hash(a), 16) >= 0
    assert schema_hash(None) != schema_hash({}) and len(schema_hash(None)) == 16
    assert schema_hash({"required": ["a", "b"]}) != schema_hash({"required": ["b", "a"]})  # order is meaningful


def test_schema_facts_required_optional_in_declaration_order():
    s = {
        "type": "object",
        "properties": {
            "z": {"type": "string"},
            "command": {"type": "string"},
            "a": {"type": ["integer", "null"]},
            "m": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["command", "description"],
        "additionalProperties": False,
    }
    f = schema_facts(s)
    assert f.required == ("command", "description")
    assert f.optional == ("z", "a", "m")
    assert f.additional_properties == "false"
    assert f.nullable == ("a", "m")
    assert f.undeclared_required == ("description",)


@pytest.mark.parametrize(
    "ap, state", [(None, "absent"), (True, "true"), (False, "false"), ({"type": "string"}, "schema")]
)
def test_additional_properties_states(ap, state):
    s = {"type": "object", "properties": {}} | ({} if ap is None else {"additionalProperties": ap})
    assert schema_facts(s).additional_properties == state


def test_facts_of_non_objects_and_cache_reuse():
    assert schema_facts(None) == schemas.SchemaFacts((), (), "absent")
    s = {"type": "object", "properties": {"x": {}}}
    first = schema_facts(s)
    assert schema_facts(json.loads(json.dumps(s))) is first  # cached by hash, not identity
    assert schema_facts(s, digest=schema_hash(s)) is first
