"""Helicone export rows (``npx @helicone/export --format jsonl --include-body``).

The JSON format is the same objects in one array, which this reader does not take. Each line is one
``HeliconeRequest`` from ``POST /v1/request/query-clickhouse`` with ``request_body`` /
``response_body`` filled from the signed body URL's ``{request, response}``. Field names confirmed
from ``Helicone/helicone`` ``examples/export/typescript/index.ts`` and the ``HeliconeRequest``
schema in docs.helicone.ai ``rest/request/post-v1requestquery-clickhouse``. The fields read:
``request_id, request_created_at, request_path, request_body, response_created_at, response_status,
response_body, target_url, model, request_model, response_model, provider, delay_ms,
prompt_tokens, completion_tokens, signed_body_url``.

There are no headers and no method (POST is assumed). Bodies are the logged JSON (``"json"``);
what Helicone stores as ``response_body`` for a *streamed* call was not confirmed, and the exporter
"automatically filters large ``streamed_data`` fields", so a raw stream may be missing. A row
without bodies (exported without ``--include-body``) gets a ``body-missing`` Issue.
"""

from __future__ import annotations

from typing import Any

from toolkit.sources.jsonl.entry import Entry
from toolkit.sources.jsonl.fields import compact, count, json_value, not_stored, status, str_or_none, timing
from toolkit.wire.json_text import utf8_size
from toolkit.wire.records import BODY_MISSING, Issue

__all__ = ["KEYS", "entry", "matches"]

#: A line holding at least two of these is a Helicone row.
KEYS = (
    "request_created_at",
    "request_body",
    "request_path",
    "response_status",
    "response_body",
    "signed_body_url",
    "response_created_at",
)


def matches(obj: dict[str, Any]) -> bool:
    return sum(k in obj for k in KEYS) >= 2


def entry(obj: dict[str, Any]) -> Entry:
    e = Entry(method="POST", fidelity="json")
    e.log_id = str_or_none(obj.get("request_id"), e.issues, "request_id")
    timing(e, obj, "request_created_at", "response_created_at", "delay_ms")
    target = str_or_none(obj.get("target_url"), e.issues, "target_url")
    req_path = str_or_none(obj.get("request_path"), e.issues, "request_path")
    if target and "://" in target:
        e.url = target
    elif req_path and "://" in req_path:
        e.url = req_path
    elif target or req_path:
        e.url = target or req_path
    e.status = status(obj.get("response_status"), e.issues)
    e.provider = str_or_none(obj.get("provider"), e.issues, "provider")
    e.model = str_or_none(obj.get("model") or obj.get("request_model") or obj.get("response_model"))
    e.input_tokens = count(obj.get("prompt_tokens"))
    e.output_tokens = count(obj.get("completion_tokens"))
    missing = []
    for key, direction in (("request_body", "request"), ("response_body", "response")):
        value = json_value(obj.get(key))
        if not_stored(value):
            missing.append(direction)
            continue
        body = value if isinstance(value, str) else compact(value)
        size = utf8_size(body)
        if direction == "request":
            e.request_body, e.request_bytes = body, size
        else:
            e.response_body, e.response_bytes = body, size
    if missing:
        hint = " (exported without --include-body?)" if obj.get("signed_body_url") else ""
        e.issues.append(Issue(BODY_MISSING, f"Helicone row has no {' or '.join(missing)} body{hint}"))
    return e
