"""Canonical schema hashing and the few schema facts the layers compare (strict, required, optional).

The same tool schema is sent in thousands of requests, so facts are cached by hash.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import orjson

from toolkit.wire.json_text import compact_deep

__all__ = ["SchemaFacts", "canonical_json", "flat_tool", "schema_facts", "schema_hash", "strict_state"]

_MISSING = object()
_CACHE_MAX = 4096
_facts_cache: dict[str, SchemaFacts] = {}


def strict_state(tool: Any) -> str:
    """``absent`` / ``null`` / ``false`` / ``true``: absent and null mean different things per API.

    Chat tools carry ``strict`` under ``function``; Responses tools carry it at the top level.
    A non-boolean value is read by truthiness (the vocabulary is fixed to four states).
    """
    if not isinstance(tool, dict):
        return "absent"
    fn = tool.get("function")
    value = (fn if isinstance(fn, dict) else tool).get("strict", _MISSING)
    if value is _MISSING:
        return "absent"
    if value is None:
        return "null"
    return "true" if value else "false"


def canonical_json(obj: Any) -> str:
    """Key-sorted, compact, non-ASCII kept: equal schemas give equal strings (at any depth)."""
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    except RecursionError:  # nested past json's stack (JSON allows MAX_JSON_DEPTH)
        return compact_deep(obj, sort_keys=True, default=repr)


_hash_cache: dict[str | bytes, str] = {}


def flat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool (nested under ``function``) as a flat Responses-shaped one; other tools
    as they are (a copy)."""
    if isinstance(tool.get("function"), dict):
        return {"type": tool.get("type", "function"), **tool["function"]}
    return dict(tool)


def schema_hash(schema: Any) -> str:
    """First 16 hex chars of sha256 over the canonical JSON (``None`` hashes as ``null``).

    Memoised on ``orjson.dumps`` (key order kept, about ten times cheaper than ``repr``, which is
    itself several times cheaper than canonical JSON): values decoded from JSON with equal dumps have
    equal canonical forms, so a hit is always right (a miss just costs the full computation, e.g. for
    the same schema with keys in another order). orjson writes NaN as ``null``, so a dump with a
    ``null`` in it, or one orjson refuses, is keyed on ``repr`` instead.
    """
    try:
        key: str | bytes = orjson.dumps(schema)
    except TypeError:  # also orjson's own recursion limit (255 levels), where repr would meet Python's
        key = canonical_json(schema)
    if isinstance(key, bytes) and b"null" in key:
        key = repr(schema)
    digest = _hash_cache.get(key)
    if digest is None:
        if len(_hash_cache) >= _CACHE_MAX:
            _hash_cache.clear()
        # a lone surrogate (``"\\udfff"`` in the JSON) is hashed as its code point: the hash must not fail
        text = canonical_json(schema).encode("utf-8", "surrogatepass")
        digest = _hash_cache[key] = hashlib.sha256(text).hexdigest()[:16]
    return digest


@dataclass(frozen=True, slots=True)
class SchemaFacts:
    """Facts about the root object: property names in declaration order."""

    required: tuple[str, ...]
    optional: tuple[str, ...]  # declared properties not in ``required``
    additional_properties: str  # absent | true | false | schema
    nullable: tuple[str, ...] = ()  # declared properties whose schema admits null
    undeclared_required: tuple[str, ...] = ()  # required names with no property schema


def schema_facts(schema: Any, digest: str | None = None) -> SchemaFacts:
    """Facts for ``schema``, cached by its hash (pass ``digest`` if already computed)."""
    key = digest or schema_hash(schema)
    facts = _facts_cache.get(key)
    if facts is None:
        if len(_facts_cache) >= _CACHE_MAX:
            _facts_cache.clear()
        facts = _facts_cache[key] = _compute(schema)
    return facts


def _compute(schema: Any) -> SchemaFacts:
    if not isinstance(schema, dict):
        return SchemaFacts((), (), "absent")
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    req = schema.get("required")
    required = tuple(dict.fromkeys(r for r in req if isinstance(r, str))) if isinstance(req, list) else ()
    ap = schema.get("additionalProperties", _MISSING)
    ap_state = (
        "absent"
        if ap is _MISSING
        else "schema"
        if isinstance(ap, dict)
        else "true"
        if ap is True
        else "false"
        if ap is False
        else "schema"
    )
    return SchemaFacts(
        required=required,
        optional=tuple(p for p in props if p not in required),
        additional_properties=ap_state,
        nullable=tuple(p for p, s in props.items() if _admits_null(s)),
        undeclared_required=tuple(r for r in required if r not in props),
    )


def _admits_null(s: Any) -> bool:
    if not isinstance(s, dict):
        return s is True  # the schema `true` admits anything
    t = s.get("type")
    if t == "null" or (isinstance(t, list) and "null" in t):
        return True
    enum = s.get("enum")
    if (isinstance(enum, list) and None in enum) or ("const" in s and s["const"] is None):
        return True
    return any(_admits_null(x) for k in ("anyOf", "oneOf") for x in (s.get(k) or ()))
