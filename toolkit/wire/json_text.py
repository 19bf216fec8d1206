"""How JSON text that arrived on the wire is parsed and described, in one wording for every decoder."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["describe_json_error", "json_int", "json_kind", "parse_arguments"]


def describe_json_error(e: json.JSONDecodeError) -> str:
    """One wording for bad JSON everywhere: 'invalid JSON at char 17: Expecting ',' delimiter'."""
    return f"invalid JSON at char {e.pos}: {e.msg}"


def json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages ('array', not 'list')."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_int(value: Any) -> int | None:
    """An integer from a decoded JSON value: an int, or a float without a fraction (JSON has one number
    type, so ``3.0`` is ``3``); booleans, fractions, non-finite numbers and text are ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A tool call's arguments string as the model emitted it → ``(object, None)`` or ``(None, why not)``."""
    if raw is None:
        return None, "no arguments string"
    if not isinstance(raw, str):
        return None, f"arguments are a {type(raw).__name__}, not a JSON string"
    if not raw.strip():
        return None, "empty arguments string"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as e:
        return None, describe_json_error(e)
    if not isinstance(value, dict):
        return None, f"arguments are a JSON {json_kind(value)}, not an object"
    return value, None
