"""pi-ai's strict-schema transform (``src/api/constrained-sampling.ts``), rule for rule, per version.

``make_strict`` returns what ``makeStrictJsonSchema`` returns, and raises ``StrictSchemaError`` with
pi-ai's own message where pi-ai throws ``UnsupportedStrictJsonSchemaError``, plus the rule number
(as numbered in ``docs/upstream.md``, "pi-ai-strict-transform") and the JSON path pi-ai does not report.
The rules differ by version (``pi_ai.Release``): 0.99.1 has no rule 4; 0.82.1 and 0.73.1 have no
transform at all ("pi-ai-versions").
"""

from __future__ import annotations

import copy
from typing import Any

from toolkit.errors import InputError
from toolkit.knowledge.pi_ai import DEFAULT_VERSION, release

__all__ = ["UNSUPPORTED_KEYWORDS", "StrictSchemaError", "allows_null", "has_transform", "make_strict"]

# Rule 2: keywords whose presence pi-ai refuses, in the order it checks them.
UNSUPPORTED_KEYWORDS = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


class StrictSchemaError(InputError):
    """pi-ai refuses to make this schema strict. ``str()`` is pi-ai's message; ``rule`` and ``path`` say
    which rule (``docs/upstream.md``, "pi-ai-strict-transform") and where."""

    def __init__(self, message: str, *, rule: int, path: str):
        self.rule, self.path, self.reason = rule, path, message
        super().__init__(message)

    def __repr__(self) -> str:
        return f"StrictSchemaError({self.reason!r}, rule={self.rule}, path={self.path!r})"


def make_strict(schema: Any, version: str = DEFAULT_VERSION) -> dict[str, Any]:
    """``makeStrictJsonSchema`` of pi-ai ``version``: a deep copy made strict; the input is never changed.
    ``ValueError`` for a version without the transform (``has_transform``)."""
    rel = release(version)
    if rel.transform is None:
        raise ValueError(f"pi-ai {version} has no strict transform (no makeStrictJsonSchema in {rel.package})")
    if not isinstance(schema, dict):  # checked before rule 1: a boolean root gets the root message
        raise StrictSchemaError("root schema must have type object", rule=0, path="$")
    out: dict[str, Any] = _node(copy.deepcopy(schema), "$", rel.refuses_typeless)
    if out.get("type") != "object":
        raise StrictSchemaError("root schema must have type object", rule=0, path="$")
    return out


def has_transform(version: str = DEFAULT_VERSION) -> bool:
    """Whether pi-ai ``version`` has ``makeStrictJsonSchema`` (without it, ``strict: true`` sends the
    schema as defined)."""
    return release(version).transform is not None


def allows_null(node: Any) -> bool:
    """``schemaAllowsNull``: OpenAPI ``nullable: true`` is not recognised."""
    if not isinstance(node, dict):
        return False
    t = node.get("type")
    if t == "null" or (isinstance(t, list) and "null" in t):
        return True
    if "const" in node and node["const"] is None:
        return True
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        return True
    return isinstance(node.get("anyOf"), list) and any(allows_null(v) for v in node["anyOf"])


def _types(node: dict[str, Any]) -> list[Any]:
    t = node.get("type")
    return t if isinstance(t, list) else [t] if t is not None else []


def _node(node: Any, path: str, typeless: bool) -> Any:
    if not isinstance(node, dict):  # rule 1: true/false boolean schemas
        raise StrictSchemaError("boolean schemas are unsupported", rule=1, path=path)
    for key in UNSUPPORTED_KEYWORDS:  # rule 2
        if key in node:
            raise StrictSchemaError(f"{key} schemas are unsupported", rule=2, path=path)
    if typeless and "type" not in node and "anyOf" not in node and "enum" not in node:  # rule 4 (new in 1.6.0)
        raise StrictSchemaError("schemas without a type are unsupported", rule=4, path=path)
    if "anyOf" in node:  # rule 5
        variants = node["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise StrictSchemaError("anyOf must contain at least one schema", rule=5, path=path)
        for i, v in enumerate(variants):
            if isinstance(v, dict) and ({"object", "array"} & set(_types(v)) or "properties" in v or "items" in v):
                raise StrictSchemaError("object and array unions are unsupported", rule=5, path=f"{path}.anyOf[{i}]")
        node["anyOf"] = [_node(v, f"{path}.anyOf[{i}]", typeless) for i, v in enumerate(variants)]
    if "items" in node:  # rule 6
        if isinstance(node["items"], list):
            raise StrictSchemaError("tuple schemas are unsupported", rule=6, path=path)
        node["items"] = _node(node["items"], f"{path}.items", typeless)
    if "properties" in node and node.get("type") != "object":  # rule 7
        raise StrictSchemaError("properties require type object", rule=7, path=path)
    if node.get("type") == "object":  # rules 8-11
        ap = node.get("additionalProperties", False)
        if ap is not False:
            raise StrictSchemaError("schema-valued or true additionalProperties is unsupported", rule=8, path=path)
        props = node.get("properties")
        if props is None:
            node["required"] = []
            node["additionalProperties"] = False
            return node
        if not isinstance(props, dict):
            raise StrictSchemaError("object properties must be a schema map", rule=8, path=f"{path}.properties")
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise StrictSchemaError("object required must be a string array", rule=8, path=f"{path}.required")
        if any(r not in props for r in required):
            raise StrictSchemaError("required contains an unknown property", rule=8, path=f"{path}.required")
        for name, prop in list(props.items()):
            strict_prop = _node(prop, f"{path}.properties.{name}", typeless)
            if name not in required and not allows_null(prop):
                strict_prop = {"anyOf": [strict_prop, {"type": "null"}]}  # rule 9
            props[name] = strict_prop
        node["required"] = list(props)  # rule 10
        node["additionalProperties"] = False  # rule 11
    return node
