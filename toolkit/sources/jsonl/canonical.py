"""The toolkit's own JSONL shape: one exchange per line with the bodies as the wire carried them.

Every field name it accepts::

    {"id"?: str,
     "started_at" | "timestamp" | "time": ISO 8601 (naive = UTC) or epoch seconds / milliseconds,
     "duration_ms"?: number,
     "request":  {"method", "url", "headers", "body", "body_encoding"?},
     "response": {"status", "headers", "body", "body_encoding"?} | null}

``headers`` is a dict (a list value gives one header per item), ``[{"name", "value"}]`` or
``[[name, value]]``. ``body`` is a JSON object/array (the JSON value the wire carried; re-serialised
compactly, so ``body_fidelity`` is ``"json"``) or a string: raw text or an SSE stream as sent
(``"wire"``). With ``"body_encoding": "base64"`` the string holds the bytes base64-encoded; only
then is a declared ``Content-Encoding`` undone (a plain-text body is already decoded text).
"""

from __future__ import annotations

from typing import Any

from toolkit.sources.jsonl.entry import Entry
from toolkit.sources.jsonl.fields import (
    compact,
    compact_size,
    epoch,
    header,
    headers,
    number,
    status,
    str_or_none,
)
from toolkit.wire import encodings
from toolkit.wire.http import ParsedBody
from toolkit.wire.json_text import json_kind, utf8_size
from toolkit.wire.records import BAD_BODY, BODY_MISSING, Issue

__all__ = ["TIME_KEYS", "body", "entry", "matches"]

#: Methods whose requests carry no body, so that a missing one loses nothing.
_BODILESS = ("GET", "HEAD", "OPTIONS", "DELETE")

#: The start-time keys, in the order they are looked for.
TIME_KEYS = ("started_at", "timestamp", "time")


def matches(obj: dict[str, Any]) -> bool:
    return isinstance(obj.get("request"), dict)


def entry(obj: dict[str, Any]) -> Entry:
    e = Entry()
    e.log_id = str_or_none(obj.get("id"), e.issues, "id")
    for key in TIME_KEYS:
        if obj.get(key) is not None:
            e.started_at = epoch(obj[key], key, e.issues)
            break
    e.duration_ms = number(obj.get("duration_ms"), "duration_ms", e.issues)
    req = obj["request"]
    resp = obj.get("response")
    e.method = str_or_none(req.get("method"), e.issues, "method")
    e.url = str_or_none(req.get("url"), e.issues, "url")
    e.request_headers = headers(req.get("headers"), "request", e.issues)
    value = req.get("body")
    if value is None and (e.method or "POST").upper() not in _BODILESS:  # its tools and inputs are unknown
        said = "null" if "body" in req else "absent"
        e.issues.append(Issue(BODY_MISSING, f"request body is {said}: what the request sent is unknown"))
    if value is None or isinstance(value, str):
        e.request_body, e.request_bytes, req_fid = body(req, e.request_headers, "request", e.issues)
    else:  # the log holds the body as JSON: decoded as it is, not serialised and parsed again
        e.request_body, e.request_bytes, req_fid = ParsedBody(value), compact_size(value), "json"
    fidelities = [req_fid]
    if isinstance(resp, dict):
        e.status = status(resp.get("status"), e.issues)
        e.response_headers = headers(resp.get("headers"), "response", e.issues)
        e.response_body, e.response_bytes, resp_fid = body(resp, e.response_headers, "response", e.issues)
        fidelities.append(resp_fid)
        # status 0 is no answer at all (``no-response`` says so): there was no body to lose
        if resp.get("body") is None and e.status not in (0, 204, 304) and (e.method or "").upper() != "HEAD":
            said = "null" if "body" in resp else "absent"
            e.issues.append(Issue(BODY_MISSING, f"response body is {said}: what the response said is unknown"))
    elif resp is not None:
        e.issues.append(Issue(BAD_BODY, f"response is a JSON {json_kind(resp)}, not an object"))
    known = [f for f in fidelities if f]
    # The weaker of the two bodies describes the entry.
    e.fidelity = "json" if "json" in known else (known[0] if known else None)
    return e


def body(
    part: dict[str, Any], pairs: list[tuple[str, str]], direction: str, issues: list[Issue]
) -> tuple[bytes | str | None, int | None, str | None]:
    value = part.get("body")
    if value is None:
        return None, None, None
    if isinstance(value, str):
        encoding = str(part.get("body_encoding") or "").lower()
        if encoding != "base64":
            return value, utf8_size(value), "wire"
        try:
            data = encodings.decode_base64(value)
        except encodings.BodyDecodeError as exc:
            issues.append(Issue(exc.kind, f"{direction} body: {exc}"))
            return None, None, None
        size = len(data)
        coding = header(pairs, "content-encoding")
        if coding:
            try:
                data = encodings.decode_content(data, coding, cap=encodings.MAX_BODY_BYTES)
            except encodings.BodyDecodeError as exc:  # includes BodyTooLarge
                if encodings.sniff_compression(data) is not None or isinstance(exc, encodings.BodyTooLarge):
                    issues.append(Issue(exc.kind, f"{direction} body ({coding}): {exc}"))
                    return None, size, None
                # exporters often keep the header after decoding the bytes; use them as they are
        return data, size, "wire"
    text = compact(value)
    return text, utf8_size(text), "json"
