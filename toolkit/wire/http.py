"""One HTTP exchange's bodies → a Decoded bundle (api, model, tools, inputs, calls, terminal state).

Shared by every reader of HTTP captures (HAR, JSONL logs, mitmproxy flows), so that the protocol is
decoded in exactly one place.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

from toolkit.wire import chat, responses
from toolkit.wire.envelopes import decode_error_body
from toolkit.wire.json_text import describe_json_error
from toolkit.wire.records import Decoded, Exchange, Issue

__all__ = ["apply_result", "decode_exchange"]

_SSE_STARTS = ("event:", "data:", ":", "id:", "retry:")


class _ApiDecoder(Protocol):
    """What ``responses`` and ``chat`` each provide (modules, typed as one interface)."""

    def decode_request(self, body: Any) -> responses.RequestInfo: ...

    def decode_response(self, body: Any) -> responses.ResponseInfo: ...

    def decode_stream(self, chunks: bytes | str | Iterable[bytes]) -> responses.ResponseInfo: ...


_MODULES: dict[str, _ApiDecoder] = {"responses": responses, "chat": chat}


def decode_exchange(
    exchange: Exchange,
    request_body: bytes | str | None,
    response_body: bytes | str | None,
    *,
    request_content_type: str | None = None,
    response_content_type: str | None = None,
) -> Decoded:
    """Fill ``exchange`` (api, model, stream, terminal, error_*) and decode its child rows.

    Bodies are already de-encoded (no base64, no Content-Encoding). A body that is not valid JSON, a
    malformed SSE frame or a cut stream becomes an ``Issue`` on the bundle, never an exception.
    A ``None`` response body adds no issue (the reader reports why it is missing); an empty one is an
    issue, never a cut stream (mitmproxy's streamed flows record no body).
    """
    out = Decoded(exchange)
    try:
        _decode(out, request_body, response_body, response_content_type)
    except Exception as e:  # a decoder bug must not lose the exchange
        out.issues.append(Issue("decoder", f"{type(e).__name__}: {e}"))
    return out


def _decode(out: Decoded, request_body: Any, response_body: Any, response_ct: str | None) -> None:
    ex = out.exchange
    req = None
    req_text = _text(request_body)
    if req_text:
        try:
            req = json.loads(req_text)
        except json.JSONDecodeError as e:
            out.issues.append(Issue("request-body", describe_json_error(e)))
    out.request = req
    ex.api = _api(ex.path or ex.url, req)
    req_stream = None
    if ex.api in _MODULES and req is not None:
        info = _MODULES[ex.api].decode_request(req)
        out.tools, out.inputs, req_stream = info.tools, info.inputs, info.stream
        out.issues += info.issues
        ex.model = info.model
    elif isinstance(req, dict):
        ex.model = req.get("model") if isinstance(req.get("model"), str) else None
        req_stream = req.get("stream") if isinstance(req.get("stream"), bool) else None

    resp_text = _text(response_body)
    sse = False
    if ex.status is not None and ex.status >= 400:
        ex.terminal = "http-error"
        ex.error_type, ex.error_code, ex.error_message = decode_error_body(resp_text)
    elif ex.status == 0:
        out.issues.append(Issue("response-body", "status 0: no HTTP response was received"))
    elif resp_text is None:
        pass  # no body handed over: the reader knows why and reports it
    elif not resp_text.strip():
        out.issues.append(Issue("response-body", "response body is empty (not recorded, or never sent)"))
    else:
        sse = _is_sse(resp_text, response_ct)
        if ex.api == "other":
            ex.api = _api_from_response(resp_text, sse)
        raw = bytes(response_body) if isinstance(response_body, (bytes, bytearray)) else resp_text.encode("utf-8")
        result = _decode_response(ex.api, resp_text, raw if sse else None, out)
        if result is not None:
            apply_result(out, result)
    ex.stream = req_stream if req_stream is not None else (True if sse else (False if resp_text else None))


def apply_result(out: Decoded, result: responses.ResponseInfo) -> None:
    """Copy what a response body or stream said onto the bundle (the request's model wins)."""
    ex = out.exchange
    out.calls = result.calls
    out.issues = out.issues + result.issues
    ex.terminal, ex.error_type, ex.error_code, ex.error_message = (
        result.terminal,
        result.error_type,
        result.error_code,
        result.error_message,
    )
    ex.input_tokens, ex.output_tokens = result.input_tokens, result.output_tokens
    ex.model = ex.model or result.model
    out.echoed_tools = getattr(result, "echoed_tools", None)


def _decode_response(api: str, text: str, sse_bytes: bytes | None, out: Decoded) -> responses.ResponseInfo | None:
    """JSON body → decode_response; SSE (raw bytes, so issue offsets are true byte offsets) → stream."""
    module: _ApiDecoder | None = _MODULES.get(api)
    if sse_bytes is not None:
        return (module or responses).decode_stream(sse_bytes)
    try:
        body = json.loads(text)
    except json.JSONDecodeError as e:
        out.issues.append(Issue("response-body", describe_json_error(e)))
        return None
    if module is None:
        return None
    return module.decode_response(body)


def _text(body: Any) -> str | None:
    """bytes or str → str without a BOM (undecodable bytes replaced, never raised)."""
    if body is None:
        return None
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", errors="replace")
    text: str = body
    return text[1:] if text.startswith("\ufeff") else text


def _api(path: str | None, req: Any) -> str:
    p = (path or "").split("?", 1)[0].rstrip("/")
    if p.endswith("/responses"):
        return "responses"
    if p.endswith("/chat/completions"):
        return "chat"
    if isinstance(req, dict):
        if "input" in req:
            return "responses"
        if "messages" in req:
            return "chat"
    return "other"


def _api_from_response(text: str, sse: bool) -> str:
    """Last resort when neither path nor request tells: the response's own shape."""
    head = text[:2000]
    if '"response.' in head or '"object":"response"' in head.replace(" ", ""):
        return "responses"
    if "chat.completion" in head or '"choices"' in head:
        return "chat"
    return "other"


def _is_sse(text: str, content_type: str | None) -> bool:
    head = text.lstrip()[:16]
    if head.startswith(("{", "[")):
        return False  # a JSON body (often an error) even if labelled text/event-stream
    if head.startswith(_SSE_STARTS):
        return True
    return content_type is not None and content_type.split(";")[0].strip().lower() == "text/event-stream"
