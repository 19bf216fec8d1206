"""JSONL exchange logs: one JSON object per line, each holding one request and its response.

The file is read line by line and a record is yielded per line, so memory does not grow with the
file. Each non-blank line becomes exactly one ``Decoded`` (exchange id ``"{source}:{line}"``,
location ``"line {n}"``) or one ``Problem`` with no exchange id (kind ``bad-line``: not JSON, with
the line, column and byte offset of the error; kind ``unknown-shape``: JSON, but none of the shapes
below). Blank lines are not entries. The reader ends with ``EntryCount(source, "line", n)``. A
file in which not a single line parses as JSON raises ``CaptureError`` naming the first bad line.
``.gz`` and ``.zst`` files are read through transparently; their byte offsets count decompressed
bytes. A ``decode-error`` Problem means the decoder itself failed on the line (a bug to report).

Accepted shapes (tried in this order):

**Canonical (this toolkit's own)** ::

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

**LiteLLM ``LiteLLM_SpendLogs`` rows** (``BerriAI/litellm`` ``schema.prisma``; bodies only with
``general_settings: store_prompts_in_spend_logs: true``), e.g. from ``/spend/logs`` or SQL:
``request_id, call_type, startTime, endTime, model, api_base, status, messages, response,
proxy_server_request, prompt_tokens, completion_tokens, metadata``. JSON columns may arrive as JSON
text; they are parsed. These bodies are **LiteLLM-normalised, not wire bytes**
(``body_fidelity = "normalised"``): ``proxy_server_request`` is the request body the proxy received
(``litellm/proxy/spend_tracking/spend_tracking_utils.py``
``_get_proxy_server_request_for_spend_logs_payload``) and ``response`` is LiteLLM's response object
(a stream is stored assembled, not as SSE). ``method`` is taken as POST, ``url`` is inferred as
``api_base`` + the endpoint ``call_type`` implies, and ``status`` 200 is inferred from
``status: "success"`` (a failure row takes ``metadata.error_information``). ``{}`` bodies mean
"not stored" (prompt storage off, or LiteLLM v1.77.2, litellm#15641) and become a
``body-not-stored`` Issue; strings cut at ``MAX_STRING_LENGTH_PROMPT_IN_DB`` (marked
``litellm_truncated``) become a ``body-truncated`` Issue.

**Helicone export** (``npx @helicone/export --format jsonl --include-body``; JSON format is the same
objects in one array, which this reader does not take). Each line is one ``HeliconeRequest`` from
``POST /v1/request/query-clickhouse`` with ``request_body`` / ``response_body`` filled from the
signed body URL's ``{request, response}``. Field names confirmed from ``Helicone/helicone``
``examples/export/typescript/index.ts`` and the ``HeliconeRequest`` schema in docs.helicone.ai
``rest/request/post-v1requestquery-clickhouse``: ``request_id, request_created_at, request_path,
request_body, response_id, response_created_at, response_status, response_body, target_url, model,
provider, delay_ms, time_to_first_token, prompt_tokens, completion_tokens, signed_body_url``.
There are no headers and no method (POST is assumed). Bodies are the logged JSON (``"json"``);
what Helicone stores as ``response_body`` for a *streamed* call was not confirmed, and the exporter
"automatically filters large ``streamed_data`` fields", so a raw stream may be missing. A row
without bodies (exported without ``--include-body``) gets a ``body-missing`` Issue.

``request_bytes`` / ``response_bytes`` are the lengths of the bodies as the log holds them (JSON
values re-serialised compactly), not wire sizes, except for string and base64 bodies.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from os import PathLike
from typing import Any
from urllib.parse import urlsplit

from toolkit.errors import CaptureError
from toolkit.wire import encodings
from toolkit.wire.http import decode_exchange
from toolkit.wire.json_text import json_kind
from toolkit.wire.records import Decoded, EntryCount, Exchange, Header, Issue, Problem

_BOM = b"\xef\xbb\xbf"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

# LiteLLM call_type -> the OpenAI-style endpoint it implies (litellm ``CallTypes``).
_LITELLM_ENDPOINTS = {
    "completion": "/chat/completions",
    "acompletion": "/chat/completions",
    "responses": "/responses",
    "aresponses": "/responses",
    "text_completion": "/completions",
    "atext_completion": "/completions",
    "embedding": "/embeddings",
    "aembedding": "/embeddings",
    "anthropic_messages": "/messages",
}
_LITELLM_TRUNCATED = "litellm_truncated"  # litellm/constants.py LITELLM_TRUNCATED_PAYLOAD_FIELD
_LITELLM_KEYS = ("startTime", "call_type", "proxy_server_request", "api_base", "spend")
_HELICONE_KEYS = (
    "request_created_at",
    "request_body",
    "request_path",
    "response_status",
    "response_body",
    "signed_body_url",
    "response_created_at",
)


def read(path: str | PathLike, source: str) -> Iterator[Any]:
    """Yield one ``Decoded`` or ``Problem`` per non-blank line, then ``EntryCount``."""
    f = _open(path)
    with f:
        entries = 0
        parsed_any = False
        held: list[Problem] = []  # bad lines before the first good one (the file may be no JSONL)
        offset = 0
        for line_no, raw in _numbered_lines(f, path):
            start = offset
            offset += len(raw)
            if line_no == 1 and raw.startswith(_BOM):
                raw, start = raw[len(_BOM) :], start + len(_BOM)
            if not raw.strip():
                continue
            entries += 1
            obj, problem = _parse_line(raw, line_no, start, source)
            if problem is not None:
                if parsed_any:
                    yield problem
                else:
                    held.append(problem)
                continue
            if not parsed_any:
                parsed_any = True
                yield from held
                held = []
            yield _entry_record(obj, source, line_no)
        if held:
            first = held[0]
            raise CaptureError(
                path,
                f"not a JSONL file: no line parses as JSON ({first.message})",
                location=first.location,
            )
        yield EntryCount(source, "line", entries)


def _open(path: str | PathLike):
    """The file as a binary stream of lines, through gzip or zstd compression (sniffed)."""
    try:
        f = open(path, "rb")
        magic = f.read(4)
        f.seek(0)
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    if magic[:2] == b"\x1f\x8b":
        f.close()
        return gzip.open(path, "rb")
    if magic == _ZSTD_MAGIC:
        import zstandard

        # closefd (the default) closes ``f`` with the reader
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True))
    return f


def _numbered_lines(f, path: str | PathLike) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line); a corrupt compressed tail ends the file with a CaptureError."""
    line_no = 0
    while True:
        try:
            raw = f.readline()
        except Exception as exc:  # gzip/zstd corruption (OSError, EOFError, zstandard.ZstdError)
            raise CaptureError(
                path, f"compressed data is corrupt after line {line_no}: {exc}", location=f"line {line_no + 1}"
            ) from None
        if not raw:
            return
        line_no += 1
        yield line_no, raw


def _parse_line(raw: bytes, line_no: int, start: int, source: str) -> tuple[Any, Problem | None]:
    location = f"line {line_no}"
    raw = raw.rstrip(b"\r\n")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"line {line_no}: not UTF-8 text: {exc.reason} (byte {start + exc.start})"
        return None, Problem(source, location, "bad-line", msg)
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        byte = start + len(text[: exc.pos].encode("utf-8"))
        msg = f"line {line_no}: not JSON: {exc.msg} (column {exc.colno}, byte {byte})"
        return None, Problem(source, location, "bad-line", msg)
    except RecursionError:
        msg = f"line {line_no}: JSON nested too deeply to read"
        return None, Problem(source, location, "bad-line", msg)


@dataclass(slots=True)
class _Entry:
    """What one log line says about an exchange, before the protocol is decoded."""

    log_id: str | None = None
    started_at: float | None = None
    duration_ms: float | None = None
    method: str | None = None
    url: str | None = None
    status: int | None = None
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    request_body: bytes | str | None = None
    response_body: bytes | str | None = None
    request_bytes: int | None = None
    response_bytes: int | None = None
    fidelity: str | None = None
    provider: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    error_type: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    issues: list[Issue] = field(default_factory=list)


def _entry_record(obj: Any, source: str, line_no: int) -> Decoded | Problem:
    location = f"line {line_no}"
    if not isinstance(obj, dict):
        msg = f"line {line_no}: a JSON {json_kind(obj)}, not an object holding a request"
        return Problem(source, location, "unknown-shape", msg)
    if isinstance(obj.get("request"), dict):
        shape = _canonical
    elif _is_helicone(obj):
        shape = _helicone
    elif _is_litellm(obj):
        shape = _litellm
    else:
        keys = ", ".join(list(obj)[:8]) or "none"
        msg = (
            f"line {line_no}: JSON object with no recognisable request/response "
            f"(keys: {keys}); expected the canonical, LiteLLM spend-log or Helicone shape"
        )
        return Problem(source, location, "unknown-shape", msg)
    try:
        return _decode(shape(obj), source, line_no)
    except Exception as exc:  # a bug here must not cost the rest of the file
        msg = f"line {line_no}: reading the entry failed ({type(exc).__name__}: {exc})"
        return Problem(source, location, "decode-error", msg)


def _decode(entry: _Entry, source: str, line_no: int) -> Decoded:
    host = path = None
    if entry.url:
        try:
            parts = urlsplit(entry.url)
            host = parts.hostname
            path = parts.path or ("/" if parts.netloc else None)
        except ValueError:
            entry.issues.append(Issue("bad-url", f"unparseable url {entry.url[:200]!r}"))
    exchange = Exchange(
        exchange_id=f"{source}:{line_no}",
        source=source,
        location=f"line {line_no}",
        started_at=entry.started_at,
        method=entry.method,
        url=entry.url,
        host=host,
        path=path,
        status=entry.status,
        duration_ms=entry.duration_ms,
        request_bytes=entry.request_bytes,
        response_bytes=entry.response_bytes,
        provider=entry.provider,
        log_id=entry.log_id,
        body_fidelity=entry.fidelity,
    )
    decoded = decode_exchange(
        exchange,
        entry.request_body,
        entry.response_body,
        request_content_type=_header(entry.request_headers, "content-type"),
        response_content_type=_header(entry.response_headers, "content-type"),
    )
    ex = decoded.exchange
    # The log's own columns fill only what the bodies did not say.
    for name in ("model", "input_tokens", "output_tokens", "provider", "error_type", "error_code", "error_message"):
        if getattr(ex, name) is None and getattr(entry, name) is not None:
            setattr(ex, name, getattr(entry, name))
    decoded.headers.extend(Header("request", n, v) for n, v in entry.request_headers)
    decoded.headers.extend(Header("response", n, v) for n, v in entry.response_headers)
    decoded.issues[:0] = entry.issues
    return decoded


# --- canonical ------------------------------------------------------------------------------


def _canonical(obj: dict) -> _Entry:
    e = _Entry(log_id=_str_or_none(obj.get("id")))
    for key in ("started_at", "timestamp", "time"):
        if obj.get(key) is not None:
            e.started_at = _epoch(obj[key], key, e.issues)
            break
    e.duration_ms = _number(obj.get("duration_ms"), "duration_ms", e.issues)
    req = obj["request"]
    resp = obj.get("response")
    e.method = _str_or_none(req.get("method"))
    e.url = _str_or_none(req.get("url"))
    e.request_headers = _headers(req.get("headers"), "request", e.issues)
    e.request_body, e.request_bytes, req_fid = _body(req, e.request_headers, "request", e.issues)
    fidelities = [req_fid]
    if isinstance(resp, dict):
        e.status = _status(resp.get("status"), e.issues)
        e.response_headers = _headers(resp.get("headers"), "response", e.issues)
        e.response_body, e.response_bytes, resp_fid = _body(resp, e.response_headers, "response", e.issues)
        fidelities.append(resp_fid)
    elif resp is not None:
        e.issues.append(Issue("bad-response", f"response is a JSON {json_kind(resp)}, not an object"))
    known = [f for f in fidelities if f]
    # The weaker of the two bodies describes the entry.
    e.fidelity = "json" if "json" in known else (known[0] if known else None)
    return e


def _body(
    part: dict, headers: list[tuple[str, str]], direction: str, issues: list[Issue]
) -> tuple[bytes | str | None, int | None, str | None]:
    value = part.get("body")
    if value is None:
        return None, None, None
    if isinstance(value, str):
        encoding = str(part.get("body_encoding") or "").lower()
        if encoding != "base64":
            return value, len(value.encode("utf-8")), "wire"
        try:
            data = encodings.decode_base64(value)
        except encodings.BodyDecodeError as exc:
            issues.append(Issue("body-decode", f"{direction} body: {exc}"))
            return None, None, None
        size = len(data)
        coding = _header(headers, "content-encoding")
        if coding:
            try:
                data = encodings.decode_content(data, coding, cap=encodings.MAX_BODY_BYTES)
            except encodings.BodyDecodeError as exc:  # includes BodyTooLarge
                if encodings.sniff_compression(data) is not None or isinstance(exc, encodings.BodyTooLarge):
                    issues.append(Issue("body-decode", f"{direction} body ({coding}): {exc}"))
                    return None, size, None
                # exporters often keep the header after decoding the bytes; use them as they are
        return data, size, "wire"
    text = _compact(value)
    return text, len(text.encode("utf-8")), "json"


def _timing(e: _Entry, obj: dict, start_key: str, end_key: str, duration_key: str) -> None:
    """Start time, and a duration taken as logged or else from the end time."""
    if obj.get(start_key) is not None:
        e.started_at = _epoch(obj[start_key], start_key, e.issues)
    e.duration_ms = _number(obj.get(duration_key), duration_key, e.issues)
    if e.duration_ms is None and obj.get(end_key) is not None and e.started_at is not None:
        end = _epoch(obj[end_key], end_key, e.issues)
        if end is not None:
            e.duration_ms = (end - e.started_at) * 1000.0


# --- Helicone --------------------------------------------------------------------------------


def recognizes(obj) -> bool:
    """Whether one parsed line has one of the exchange shapes this reader takes."""
    return isinstance(obj, dict) and (isinstance(obj.get("request"), dict) or _is_helicone(obj) or _is_litellm(obj))


def _is_helicone(obj: dict) -> bool:
    return sum(k in obj for k in _HELICONE_KEYS) >= 2


def _helicone(obj: dict) -> _Entry:
    e = _Entry(log_id=_str_or_none(obj.get("request_id")), method="POST", fidelity="json")
    _timing(e, obj, "request_created_at", "response_created_at", "delay_ms")
    target = _str_or_none(obj.get("target_url"))
    req_path = _str_or_none(obj.get("request_path"))
    if target and "://" in target:
        e.url = target
    elif req_path and "://" in req_path:
        e.url = req_path
    elif target or req_path:
        e.url = target or req_path
    e.status = _status(obj.get("response_status"), e.issues)
    e.provider = _str_or_none(obj.get("provider"))
    e.model = _str_or_none(obj.get("model") or obj.get("request_model") or obj.get("response_model"))
    e.input_tokens = _int_or_none(obj.get("prompt_tokens"))
    e.output_tokens = _int_or_none(obj.get("completion_tokens"))
    missing = []
    for key, direction in (("request_body", "request"), ("response_body", "response")):
        value = _json_value(obj.get(key))
        if _not_stored(value):
            missing.append(direction)
            continue
        body = value if isinstance(value, str) else _compact(value)
        size = len(body.encode("utf-8"))
        if direction == "request":
            e.request_body, e.request_bytes = body, size
        else:
            e.response_body, e.response_bytes = body, size
    if missing:
        hint = " (exported without --include-body?)" if obj.get("signed_body_url") else ""
        e.issues.append(Issue("body-missing", f"Helicone row has no {' or '.join(missing)} body{hint}"))
    return e


# --- LiteLLM ---------------------------------------------------------------------------------


def _is_litellm(obj: dict) -> bool:
    return "request_id" in obj and any(k in obj for k in _LITELLM_KEYS)


def _litellm(obj: dict) -> _Entry:
    e = _Entry(log_id=_str_or_none(obj.get("request_id")), method="POST", fidelity="normalised")
    _timing(e, obj, "startTime", "endTime", "request_duration_ms")
    call_type = _str_or_none(obj.get("call_type"))
    e.url = _litellm_url(_str_or_none(obj.get("api_base")), call_type)
    e.provider = _str_or_none(obj.get("custom_llm_provider"))
    e.model = _str_or_none(obj.get("model"))
    e.input_tokens = _int_or_none(obj.get("prompt_tokens"))
    e.output_tokens = _int_or_none(obj.get("completion_tokens"))
    status = _str_or_none(obj.get("status"))
    metadata = _json_value(obj.get("metadata"))
    if status == "success":
        e.status = 200
    elif status == "failure":
        info = metadata.get("error_information") if isinstance(metadata, dict) else None
        if isinstance(info, dict):
            code = _str_or_none(info.get("error_code"))
            e.status = int(code) if code and code.isdigit() else None
            e.error_code = code
            e.error_type = _str_or_none(info.get("error_class"))
            e.error_message = _str_or_none(info.get("error_message"))
        e.issues.append(Issue("gateway-failure", "LiteLLM logged this call as a failure"))

    request = _json_value(obj.get("proxy_server_request"))
    if isinstance(request, dict) and "body" in request and ({"url", "method", "headers"} & request.keys()):
        e.request_headers = _headers(request.get("headers"), "request", e.issues)
        request = _json_value(request.get("body"))
    response = _json_value(obj.get("response"))
    messages = _json_value(obj.get("messages"))

    if _not_stored(request) and _not_stored(response):
        e.issues.append(
            Issue(
                "body-not-stored",
                "LiteLLM stored {} for the request and response: store_prompts_in_spend_logs is off, "
                "or LiteLLM v1.77.2 dropped them (litellm#15641)",
            )
        )
    elif _not_stored(request):
        what = "request body (proxy_server_request is empty)"
        if not _not_stored(messages):
            what += "; only its normalised messages survive, so tools and parameters are unknown"
        e.issues.append(Issue("body-not-stored", f"LiteLLM stored no {what}"))
    elif _not_stored(response):
        e.issues.append(Issue("body-not-stored", "LiteLLM stored no response body"))
    if not _not_stored(request):
        e.request_body = request if isinstance(request, str) else _compact(request)
        e.request_bytes = len(e.request_body.encode("utf-8"))
    if not _not_stored(response):
        e.response_body = response if isinstance(response, str) else _compact(response)
        e.response_bytes = len(e.response_body.encode("utf-8"))
    for direction, body in (("request", e.request_body), ("response", e.response_body)):
        if isinstance(body, str) and _LITELLM_TRUNCATED in body:
            e.issues.append(
                Issue(
                    "body-truncated",
                    f"LiteLLM truncated strings in the {direction} (MAX_STRING_LENGTH_PROMPT_IN_DB)",
                )
            )
    return e


def _litellm_url(api_base: str | None, call_type: str | None) -> str | None:
    if not api_base:
        return None
    endpoint = _LITELLM_ENDPOINTS.get(call_type or "")
    base = api_base.rstrip("/")
    if endpoint and not urlsplit(base).path.endswith(endpoint):
        return base + endpoint
    return base


def _not_stored(value: Any) -> bool:
    return value is None or value == "" or value == {} or value == []


# --- small helpers ---------------------------------------------------------------------------


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _json_value(value: Any) -> Any:
    """A JSON column that may arrive as JSON text (SQL/CSV exports) or as the value itself."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") or stripped in ("null", '""'):
            try:
                return json.loads(stripped)
            except (json.JSONDecodeError, RecursionError):
                return value
    return value


def _headers(value: Any, direction: str, issues: list[Issue]) -> list[tuple[str, str]]:
    """Headers as (name, value) pairs from a dict, ``[{name, value}]`` or ``[[name, value]]``."""
    if value is None:
        return []
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for name, v in value.items():
            for item in v if isinstance(v, list) else [v]:
                out.append((str(name), _header_value(item)))
        return out
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and "name" in item:
                out.append((str(item["name"]), _header_value(item.get("value"))))
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                out.append((str(item[0]), _header_value(item[1])))
            else:
                issues.append(Issue("bad-header", f"{direction} header entry {str(item)[:80]!r} skipped"))
        return out
    issues.append(Issue("bad-header", f"{direction} headers are a JSON {json_kind(value)}; ignored"))
    return []


def _header_value(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    for n, v in headers:
        if n.lower().lstrip(":") == name:
            return v
    return None


def _epoch(value: Any, key: str, issues: list[Issue]) -> float | None:
    """Epoch seconds (UTC) from ISO 8601 or epoch seconds/milliseconds."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            try:
                dt = datetime.fromisoformat(text)
            except ValueError:
                issues.append(Issue("bad-time", f"{key} {text[:60]!r} is not ISO 8601 or epoch time"))
                return None
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
            return dt.timestamp()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        issues.append(Issue("bad-time", f"{key} {str(value)[:60]!r} is not a time"))
        return None
    # Epoch seconds reach 1e11 only in the year 5138: anything larger is milliseconds.
    return float(value) / 1000.0 if abs(value) >= 1e11 else float(value)


def _number(value: Any, key: str, issues: list[Issue]) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        issues.append(Issue("bad-number", f"{key} {str(value)[:60]!r} is not a number"))
        return None
    return number


def _status(value: Any, issues: list[Issue]) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        issues.append(Issue("bad-status", f"status {str(value)[:60]!r} is not an integer"))
        return None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)
