"""Record what the real OpenAI Agents SDK's strict transform does (tests/fixtures/agents_sdk/strict.json).

Run it in its own environment (the toolkit does not depend on the SDK; ``make fixtures`` builds it)::

    python3 -m venv lab/.venv-agents && lab/.venv-agents/bin/pip install -r lab/requirements-agents.txt
    lab/.venv-agents/bin/python lab/record_agents_strict.py [--out tests/fixtures/agents_sdk]

It calls ``agents.strict_schema.ensure_strict_json_schema`` (no network) on every tool schema of the
pi-ai corpus (``tests/fixtures/pi_ai/corpus.json``, id ``pi_ai/<id>``) and on cases written here to
reach each ``UserError`` and each rewrite of ``agents/strict_schema.py`` (id ``sdk/<name>``), some with
the private ``_reject_open_objects=True`` the SDK's MCP tool conversion passes. Each record keeps the
input, then either ``ok`` + the output, or the exception's class and exact text, and whether the SDK
changed its input in place. Records are sorted by id; the file is 2-space JSON, byte-identical per run.
"""

from __future__ import annotations

import argparse
import copy
import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

from agents.strict_schema import ensure_strict_json_schema

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "pi_ai" / "corpus.json"
S = {"type": "string"}


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def nested_items(levels: int) -> dict[str, Any]:
    """An array nested ``levels`` deep: one container per level (the SDK's depth limit is 100)."""
    node: dict[str, Any] = S
    for _ in range(levels):
        node = {"type": "array", "items": node}
    return node


def ref_chain(length: int) -> dict[str, Any]:
    """``d0 -> d1 -> ...``, each ``$ref`` with a description, so each is inlined one recursion deeper."""
    defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}", "description": f"d{i}"} for i in range(length)}
    defs[f"d{length}"] = S
    return {"type": "object", "properties": {"a": {"$ref": "#/$defs/d0", "description": "a"}}, "$defs": defs}


def fan_out(levels: int) -> dict[str, Any]:
    """Each definition names the next twice: the inlined size doubles per level (node budget 100,000)."""
    defs: dict[str, Any] = {}
    for i in range(levels):
        nxt = {"$ref": f"#/$defs/f{i + 1}", "description": "x"}
        defs[f"f{i}"] = {"type": "object", "properties": {"l": nxt, "r": nxt}}
    defs[f"f{levels}"] = S
    return {"type": "object", "properties": {"root": {"$ref": "#/$defs/f0", "description": "x"}}, "$defs": defs}


# name -> (schema, reject_open_objects)
CASES: dict[str, tuple[Any, bool]] = {
    # rewrites
    "empty_schema": ({}, False),
    "type_inferred_from_properties": ({"properties": {"a": S}}, False),
    "type_null_with_properties": ({"type": None, "properties": {"a": S}}, False),
    "required_rewritten_in_place": ({"required": ["b"], "type": "object", "properties": {"a": S, "b": S}}, False),
    "additional_properties_false_kept": ({"additionalProperties": False, "type": "object", "properties": {}}, False),
    "object_without_properties": ({"type": "object"}, False),
    "type_list_object_nested": (obj(a={"type": ["object", "null"], "properties": {"x": S}}), False),
    "root_type_list_object": ({"type": ["object"], "properties": {"a": S}}, False),
    "items_object": (obj(a={"type": "array", "items": {"properties": {"x": S}}}), False),
    "items_list_untouched": (obj(a={"type": "array", "items": [S, {"type": "object"}]}), False),
    "anyof_nested": (obj(a={"anyOf": [S, {"type": "object", "properties": {"x": S}}, {"type": "null"}]}), False),
    "oneof_to_anyof": (obj(a={"oneOf": [S, {"type": "integer"}], "description": "d"}), False),
    "oneof_appended_to_anyof": (obj(a={"anyOf": [S], "oneOf": [{"type": "integer"}]}), False),
    "oneof_with_non_list_anyof": (obj(a={"anyOf": "x", "oneOf": [{"type": "integer"}]}), False),
    "root_oneof": ({"oneOf": [obj(a=S), obj(b=S)]}, False),
    "allof_single_inline": (obj(a={"description": "d", "allOf": [{"type": "object", "properties": {"x": S}}]}), False),
    "allof_single_closed_parent": (
        obj(
            a={
                "additionalProperties": False,
                "allOf": [{"type": "object", "properties": {"x": S}}],
                "properties": {"y": S},
            }
        ),
        False,
    ),
    "allof_single_equal_overlap": (obj(a={"type": "string", "allOf": [{"type": "string", "minLength": 1}]}), False),
    "allof_single_empty_props_required": (
        {"type": "object", "properties": {}, "required": [], "allOf": [obj(x=S)]},
        False,
    ),
    "allof_single_ref": (
        {
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/s"}], "description": "d"}},
            "$defs": {"s": obj(x=S)},
        },
        False,
    ),
    "allof_single_ref_chain": (
        {
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/p", "title": "t"}]}},
            "$defs": {"p": {"$ref": "#/$defs/q", "description": "p"}, "q": {"type": "integer", "description": "q"}},
        },
        False,
    ),
    "allof_single_ref_constraining_sibling": (
        {"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/$defs/s", "minLength": 2}]}}, "$defs": {"s": S}},
        False,
    ),
    "allof_multi": (obj(a={"allOf": [obj(x=S), {"properties": {"y": S}}]}), False),
    "default_none_stripped": (
        obj(a={"type": ["string", "null"], "default": None}, b={"type": "string", "default": "x"}),
        False,
    ),
    "ref_plain_kept": ({"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": obj(x=S)}}, False),
    "ref_with_description_inlined": (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/s", "description": "mine"}},
            "$defs": {"s": {"description": "theirs", **obj(x=S)}},
        },
        False,
    ),
    "ref_definitions": (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/s", "title": "A"}},
            "definitions": {"s": {"properties": {"x": S}}},
        },
        False,
    ),
    "ref_escaped_pointer": (
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a~1b%20c~0d", "title": "A"}}, "$defs": {"a/b c~d": S}},
        False,
    ),
    "ref_chain_inlined": (ref_chain(3), False),
    "ref_self_cycle": (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/a", "title": "A"}},
            "$defs": {"a": {"$ref": "#/$defs/a", "description": "loop"}},
        },
        False,
    ),
    "root_ref_with_id": ({"$id": "urn:x", "$ref": "#/$defs/r", "$defs": {"r": obj(a=S)}}, False),
    "root_ref_plain": ({"$ref": "#/$defs/r", "$defs": {"r": obj(a=S)}}, False),
    "nested_id_without_refs": (obj(a={"$id": "urn:a", "type": "object", "properties": {"x": S}}), False),
    "pydantic_style": (
        {
            "$defs": {"Color": {"enum": ["red", "green"], "title": "Color", "type": "string"}},
            "properties": {
                "color": {"$ref": "#/$defs/Color", "default": None},
                "name": {"anyOf": [S, {"type": "null"}], "default": None, "title": "Name"},
                "tags": {"items": S, "title": "Tags", "type": "array"},
            },
            "required": ["tags"],
            "title": "Params",
            "type": "object",
        },
        False,
    ),
    "reject_open_closed_ok": (
        {"type": "object", "properties": {"a": {"type": "object", "additionalProperties": False}}},
        True,
    ),
    "reject_open_ref_inlined_ok": (
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/s", "title": "A"}}, "$defs": {"s": S}},
        True,
    ),
    # UserError
    "err_container_depth": (nested_items(100), False),
    "ok_container_depth_99": (nested_items(99), False),
    "err_recursion_depth": (ref_chain(100), False),
    "err_node_budget": (fan_out(17), False),
    "ok_node_budget_small": (fan_out(3), False),
    "err_root_anyof": ({"anyOf": [obj(a=S), obj(b=S)]}, False),
    "err_root_nullable": ({"type": ["object", "null"], "properties": {"a": S}}, False),
    "err_root_type_list_string": ({"type": ["string", "object"]}, False),
    "err_additional_untyped_true": (obj(a={"additionalProperties": True}), False),
    "err_additional_untyped_empty": (obj(a={"additionalProperties": {}}), False),
    "err_additional_object_schema": (obj(a={"type": "object", "additionalProperties": {"type": "string"}}), False),
    "err_additional_object_empty": (obj(a={"type": "object", "additionalProperties": {}}), False),
    "err_open_object": ({"type": "object", "properties": {"a": {"type": "object"}}}, True),
    "err_open_root_empty_properties": ({"type": "object", "properties": {}}, True),
    "err_unvalidated_ref": ({"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": S}}, True),
    "err_ref_siblings": (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/s", "type": "string", "minLength": 1}},
            "$defs": {"s": S},
        },
        False,
    ),
    "err_ref_id_sibling_nested": (
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/s", "$id": 5}}, "$defs": {"s": S}},
        False,
    ),
    "err_nested_resource_ref": (
        {
            "type": "object",
            "properties": {"a": {"$id": "urn:a", "type": "object", "properties": {"b": {"$ref": "#/$defs/s"}}}},
            "$defs": {"s": S},
        },
        False,
    ),
    "err_ref_into_resource": (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/s", "title": "A"}},
            "$defs": {"s": {"$id": "urn:s", "type": "string"}},
        },
        False,
    ),
    "err_allof_ref_in_resource": (
        {"type": "object", "properties": {"a": {"$id": "urn:a", "allOf": [{"$ref": "#/$defs/s"}]}}, "$defs": {"s": S}},
        False,
    ),
    "err_allof_ref_cycle": (
        {
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/p"}]}},
            "$defs": {"p": {"$ref": "#/$defs/q"}, "q": {"$ref": "#/$defs/p"}},
        },
        False,
    ),
    "err_allof_incompatible": (
        obj(a={"type": "object", "minProperties": 1, "allOf": [{"type": "string", "minProperties": 2}]}),
        False,
    ),
    "err_allof_closed_parent_properties": (obj(a={"additionalProperties": False, "allOf": [obj(x=S)]}), False),
    "err_allof_bool_vs_int": (
        obj(a={"type": "integer", "minimum": 1, "allOf": [{"type": "integer", "minimum": True}]}),
        False,
    ),
    "err_open_before_additional": (obj(a={"type": "object", "additionalProperties": True}), True),
    "err_additional_with_properties_reject": (
        obj(a={"type": "object", "properties": {"x": S}, "additionalProperties": True}),
        True,
    ),
    "allof_empty": (obj(a={"allOf": [], "type": "string"}), False),
    "ref_empty_string_kept": (obj(a={"$ref": "", "title": "A"}), False),
    "err_ref_empty_string_unvalidated": (obj(a={"$ref": ""}), True),
    "allof_ref_to_self": (
        {"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/properties/a"}], "title": "A"}}},
        False,
    ),
    "recursive_def_inlined": (
        {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/Node", "description": "x"}},
            "$defs": {"Node": obj(child={"$ref": "#/$defs/Node", "description": "y"})},
        },
        False,
    ),
    "recursive_def_plain_ref": (
        {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": obj(child={"$ref": "#/$defs/Node"})},
        },
        False,
    ),
    # other exceptions the SDK lets through
    "exc_allof_ref_not_string": (obj(a={"allOf": [{"$ref": 5}]}), False),
    "exc_ref_list_node": (obj(a=[S]), False),
    "exc_boolean_property": (obj(a=True), False),
    "exc_root_not_dict": ([S], False),
    "exc_ref_not_fragment": ({"type": "object", "properties": {"a": {"$ref": "other.json#/x", "title": "A"}}}, False),
    "exc_ref_missing": (
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope", "title": "A"}}, "$defs": {}},
        False,
    ),
    "exc_ref_through_non_dict": (
        {"type": "object", "properties": {"a": {"$ref": "#/properties/b/type", "title": "A"}, "b": S}},
        False,
    ),
    "exc_ref_not_string": ({"type": "object", "properties": {"a": {"$ref": 5, "title": "A"}}}, False),
    "exc_ref_bad_percent": (
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/%ff", "title": "A"}}, "$defs": {}},
        False,
    ),
}


def run(schema: Any, reject: bool) -> dict[str, Any]:
    given = copy.deepcopy(schema)
    before = json.dumps(given)
    try:
        out = (
            ensure_strict_json_schema(given, _reject_open_objects=True) if reject else ensure_strict_json_schema(given)
        )
    except Exception as e:  # every exception the SDK raises is a recorded fact
        rec: dict[str, Any] = {
            "ok": False,
            "error": {"class": f"{type(e).__module__}.{type(e).__qualname__}", "message": str(e)},
        }
    else:
        rec = {"ok": True, "output": out, "returns_input": out is given}
    try:
        rec["input_mutated"] = json.dumps(given) != before
    except ValueError:  # the SDK can leave its input referring to itself (an inlined recursive `$ref`)
        rec["input_mutated"] = True
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "tests" / "fixtures" / "agents_sdk"))
    args = ap.parse_args()
    inputs: list[tuple[str, Any, bool]] = []
    for tool in json.loads(CORPUS.read_text())["tools"]:
        inputs.append((f"pi_ai/{tool['id']}", tool["tool"]["parameters"], False))
    inputs += [(f"sdk/{name}", schema, reject) for name, (schema, reject) in CASES.items()]
    records = []
    for rid, schema, reject in sorted(inputs, key=lambda r: r[0]):
        rec: dict[str, Any] = {"id": rid, "input": schema}
        if reject:
            rec["reject_open_objects"] = True
        rec.update(run(schema, reject))
        records.append(rec)
    doc = {
        "generator": "lab/record_agents_strict.py",
        "package": "openai-agents",
        "version": version("openai-agents"),
        "function": "agents.strict_schema.ensure_strict_json_schema",
        "records": records,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "strict.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(records)} records -> {out / 'strict.json'}")


if __name__ == "__main__":
    main()
