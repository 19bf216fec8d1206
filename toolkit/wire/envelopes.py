"""HTTP error bodies → (error_type, error_code, error_message), whatever shape the server chose.

OpenAI wraps errors as ``{"error": {message, type, param, code}}`` and the SDK unwraps with
``body.get("error", body)`` (openai-python ``_client.py`` ``_make_status_error``); Anthropic wraps them as
``{"type": "error", "error": {type, message}}``, which the same unwrapping reads (its stream's ``error``
event too; docs/upstream.md#anthropic-messages); gateways send a bare object, a string ``error``,
FastAPI-style ``detail`` or plain text.
"""

from __future__ import annotations

import json
import math
from typing import Any

from toolkit.wire.json_text import loads
from toolkit.wire.values import what_is_wrong

__all__ = [
    "MAX_ERROR_VALUE_DEPTH",
    "MAX_ERROR_VALUE_ITEMS",
    "ErrorFields",
    "decode_error_body",
    "error_fields",
    "too_big_to_keep",
]

ErrorFields = tuple[str | None, str | None, str | None]

#: An error field that is an object or array is kept as its JSON text only while it is at most this deep and
#: holds at most ``MAX_ERROR_VALUE_ITEMS`` values: past either it is left empty with a problem saying what it
#: was, so that a 1,000-deep or a million-item ``message`` is never encoded whole (nor overflows the stack).
MAX_ERROR_VALUE_DEPTH = 32
MAX_ERROR_VALUE_ITEMS = 1000
_HUGE = 10**1000  # an integer code kept as its digits up to here (str() refuses past 4,300 digits)


def decode_error_body(
    body: bytes | str | dict[str, Any] | list[Any] | None, unfit: list[str] | None = None
) -> ErrorFields:
    """Never raises; ``(None, None, None)`` when the body says nothing. A field whose value cannot be
    kept (see ``error_fields``) is left empty and, when ``unfit`` is given, named there."""
    if isinstance(body, (bytes, bytearray)):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        text = body.strip().lstrip("\ufeff")
        if not text:
            return None, None, None
        try:
            body = loads(text)
        except ValueError:
            return None, None, text
    return error_fields(body, unfit)


def error_fields(obj: Any, unfit: list[str] | None = None) -> ErrorFields:
    """The same unwrapping for an already-parsed body or a mid-stream ``{"error": …}`` payload.

    A field that is not text is kept as text (a number as its digits, an object or array as its JSON)
    unless that cannot be done faithfully and boundedly: a non-finite number, or an object or array past
    ``MAX_ERROR_VALUE_DEPTH`` / ``MAX_ERROR_VALUE_ITEMS``. Such a field is left empty and one sentence per
    field, naming it and what it held, goes to ``unfit`` (the caller's problem rows)."""
    if unfit is None:
        unfit = []
    if isinstance(obj, list):  # some gateways wrap the envelope in a list
        obj = obj[0] if obj else None
    if not isinstance(obj, dict):
        return None, None, _text(obj, "error", unfit)
    err = obj.get("error", obj)
    if isinstance(err, dict):
        key = "message" if "message" in err else "detail"
        where = "error." if err is not obj else ""
        return (
            _text(err.get("type"), where + "type", unfit),
            _text(err.get("code"), where + "code", unfit),
            _text(err.get(key), where + key, unfit),
        )
    # `error` is a string (or other scalar): type/code may sit beside it
    key = "error" if err is not None else "message" if "message" in obj else "detail"
    return _text(obj.get("type"), "type", unfit), _text(obj.get("code"), "code", unfit), _text(obj.get(key), key, unfit)


def _text(v: Any, name: str, unfit: list[str]) -> str | None:
    if v is None or v == "":
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, bool) or (isinstance(v, int) and -_HUGE < v < _HUGE):
        return str(v)
    if isinstance(v, float) and math.isfinite(v):
        return str(v)
    if isinstance(v, (dict, list)):
        wrong = too_big_to_keep(v)
        if wrong is None:
            return json.dumps(v, ensure_ascii=False, sort_keys=True)
    else:
        wrong = what_is_wrong(v)
    unfit.append(f"error field `{name}`: {wrong}; left empty")
    return None


def too_big_to_keep(
    v: dict[str, Any] | list[Any],
    max_depth: int = MAX_ERROR_VALUE_DEPTH,
    max_items: int | None = MAX_ERROR_VALUE_ITEMS,
    depth_name: str = "MAX_ERROR_VALUE_DEPTH",
    items_name: str = "MAX_ERROR_VALUE_ITEMS",
) -> str | None:
    """Why an object or array is not kept as its JSON text (deeper than ``max_depth``, more than
    ``max_items`` values), or ``None``: found by an iterative walk that stops at the first bound passed,
    never by encoding it (``json.dumps`` recurses, and past the stack raises ``RecursionError``)."""
    stack: list[tuple[Any, int]] = [(v, 1)]
    items = 0
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return f"{what_is_wrong(v)} nested deeper than {depth_name} ({max_depth}) levels"
        children = node.values() if isinstance(node, dict) else node
        items += len(children)
        if max_items is not None and items > max_items:
            return f"{what_is_wrong(v)} of more than {items_name} ({max_items}) values"
        stack += [(c, depth + 1) for c in children if isinstance(c, (dict, list))]
    return None
