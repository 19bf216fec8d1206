"""Flat exchange logs: one object per line with the request and response fields side by side.

What ad-hoc loggers and proxy middlewares write (no nested ``request`` / ``response`` objects).
Every field name it accepts::

    {"id" | "request_id"?: str,
     "ts" | "timestamp" | "time" | "started_at"?: ISO 8601 (naive = UTC) or epoch seconds / milliseconds,
     "duration_ms"?: number,
     "method"?: str, "url": str, "status"?: int,
     "request_headers"?, "request_body"?, "request_body_encoding"?,
     "response_headers"?, "response_body"?, "response_body_encoding"?}

Headers and bodies are read as in the canonical shape (``canonical.body``): a JSON value is
``body_fidelity`` ``"json"``, a string is the text as sent (``"wire"``), ``"base64"`` marks bytes.
"""

from __future__ import annotations

from typing import Any

from toolkit.sources.jsonl.canonical import body
from toolkit.sources.jsonl.entry import Entry
from toolkit.sources.jsonl.fields import epoch, headers, number, status, str_or_none

__all__ = ["ID_KEYS", "TIME_KEYS", "entry", "matches"]

#: The start-time keys, in the order they are looked for.
TIME_KEYS = ("ts", "timestamp", "time", "started_at")
#: The log's own id for the line, in the order they are looked for.
ID_KEYS = ("id", "request_id")


def matches(obj: dict[str, Any]) -> bool:
    return "url" in obj and any(k in obj for k in ("request_body", "response_body", "method", "status"))


def entry(obj: dict[str, Any]) -> Entry:
    e = Entry()
    e.log_id = str_or_none(next((obj[k] for k in ID_KEYS if obj.get(k) is not None), None), e.issues, "id")
    for key in TIME_KEYS:
        if obj.get(key) is not None:
            e.started_at = epoch(obj[key], key, e.issues)
            break
    e.duration_ms = number(obj.get("duration_ms"), "duration_ms", e.issues)
    e.method = str_or_none(obj.get("method"), e.issues, "method")
    e.url = str_or_none(obj.get("url"), e.issues, "url")
    e.status = status(obj.get("status"), e.issues)
    fidelities = []
    for direction in ("request", "response"):
        pairs = headers(obj.get(f"{direction}_headers"), direction, e.issues)
        part = {"body": obj.get(f"{direction}_body"), "body_encoding": obj.get(f"{direction}_body_encoding")}
        value, size, fidelity = body(part, pairs, direction, e.issues)
        fidelities.append(fidelity)
        if direction == "request":
            e.request_headers, e.request_body, e.request_bytes = pairs, value, size
        else:
            e.response_headers, e.response_body, e.response_bytes = pairs, value, size
    known = [f for f in fidelities if f]
    e.fidelity = "json" if "json" in known else (known[0] if known else None)  # the weaker of the two
    return e
