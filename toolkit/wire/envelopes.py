"""HTTP error bodies → (error_type, error_code, error_message), whatever shape the server chose.

OpenAI wraps errors as ``{"error": {message, type, param, code}}`` and the SDK unwraps with
``body.get("error", body)`` (openai-python ``_client.py`` ``_make_status_error``); Anthropic wraps them as
``{"type": "error", "error": {type, message}}``, which the same unwrapping reads (its stream's ``error``
event too; docs/upstream.md#anthropic-messages); gateways send a bare object, a string ``error``,
FastAPI-style ``detail`` or plain text.
"""

from __future__ import annotations

import json
from typing import Any

from toolkit.wire.json_text import loads

__all__ = ["ErrorFields", "decode_error_body", "error_fields"]

ErrorFields = tuple[str | None, str | None, str | None]


def decode_error_body(body: bytes | str | dict[str, Any] | list[Any] | None) -> ErrorFields:
    """Never raises; ``(None, None, None)`` when the body says nothing."""
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
    return error_fields(body)


def error_fields(obj: Any) -> ErrorFields:
    """The same unwrapping for an already-parsed body or a mid-stream ``{"error": …}`` payload."""
    if isinstance(obj, list):  # some gateways wrap the envelope in a list
        obj = obj[0] if obj else None
    if not isinstance(obj, dict):
        return None, None, _text(obj)
    err = obj.get("error", obj)
    if isinstance(err, dict):
        message = err.get("message", err.get("detail"))
        return _text(err.get("type")), _text(err.get("code")), _text(message)
    # `error` is a string (or other scalar): type/code may sit beside it
    message = err if err is not None else obj.get("message", obj.get("detail"))
    return _text(obj.get("type")), _text(obj.get("code")), _text(message)


def _text(v: Any) -> str | None:
    if v is None or v == "":
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float, bool)):
        return str(v)
    return json.dumps(v, ensure_ascii=False, sort_keys=True)
