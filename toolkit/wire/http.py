"""One HTTP exchange's bodies → a Decoded bundle (api, model, tools, inputs, calls, terminal state).

Shared by every reader of HTTP captures (HAR, JSONL logs, mitmproxy flows), so that the protocol is
decoded in exactly one place. The API is told by the path, else by the request body's shape, else by
the response's. An exchange that speaks none of the three APIs (``other``: embeddings, model lists, web
pages, assets) raises no body problem: a problem is raised only where an API body was expected.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson

from toolkit.wire import chat, messages, responses
from toolkit.wire.envelopes import decode_error_body
from toolkit.wire.json_text import describe_json_error, loads
from toolkit.wire.records import (
    BAD_FIELD,
    BAD_UTF8,
    BODY_MISSING,
    DECODER,
    NO_RESPONSE,
    REQUEST_BODY,
    RESPONSE_BODY,
    Decoded,
    Exchange,
    Issue,
)
from toolkit.wire.values import clean_text, has_surrogate

__all__ = ["ParsedBody", "apply_result", "decode_exchange", "host_and_path"]

_SSE_STARTS = ("event:", "data:", ":", "id:", "retry:")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class ParsedBody:
    """A request body a log already holds as parsed JSON (not as text): decoded as it is, not
    serialised and parsed again."""

    value: Any


class _ApiDecoder(Protocol):
    """What ``responses``, ``chat`` and ``messages`` each provide (modules, typed as one interface)."""

    def decode_request(self, body: Any) -> responses.RequestInfo: ...

    def decode_response(self, body: Any) -> responses.ResponseInfo: ...

    def decode_stream(self, chunks: bytes | str | Iterable[bytes]) -> responses.ResponseInfo: ...


_MODULES: dict[str, _ApiDecoder] = {"responses": responses, "chat": chat, "messages": messages}

#: Response content types that are documents, never an API body (web pages and their assets).
_NOT_API_TYPES = ("text/html", "text/css", "image/", "font/", "audio/", "video/", "application/font")
_NOT_API_SUBSTRINGS = ("javascript", "ecmascript", "xhtml", "woff", "wasm")


def decode_exchange(
    exchange: Exchange,
    request_body: bytes | str | ParsedBody | None,
    response_body: bytes | str | None,
    *,
    request_content_type: str | None = None,
    response_content_type: str | None = None,
    api: str | None = None,
) -> Decoded:
    """Fill ``exchange`` (api, model, stream, terminal, error_*) and decode its child rows.

    ``api`` is for a reader that knows the API from the file itself (a saved response body names its ``object``),
    as a path would tell it: then the body's head is not sniffed.

    Bodies are already de-encoded (no base64, no Content-Encoding). A body that is not valid JSON, a
    malformed SSE frame or a cut stream becomes an ``Issue`` on the bundle, never an exception.
    A ``None`` response body adds no issue (the reader reports why it is missing); an empty one is an
    issue, never a cut stream (mitmproxy's streamed flows record no body).
    """
    out = Decoded(exchange)
    try:
        _decode(out, request_body, response_body, response_content_type, api)
    except Exception as e:  # a decoder bug must not lose the exchange
        out.issues.append(Issue(DECODER, f"{type(e).__name__}: {e}"))
    return out


def _decode(out: Decoded, request_body: Any, response_body: Any, response_ct: str | None, api: str | None) -> None:
    ex = out.exchange
    req = None
    req_error = None
    if isinstance(request_body, ParsedBody):
        req, request_body = request_body.value, None  # parsed from the log: no text to check
    elif type(request_body) is bytes and request_body and not request_body.startswith(_BOM):
        # orjson reads the bytes as they are and refuses any that are not UTF-8; what it refuses is
        # read below as text, for Python's reading and message
        with contextlib.suppress(orjson.JSONDecodeError):
            req, request_body = orjson.loads(request_body), None  # UTF-8 and parsed: nothing left to check
    if request_body is not None and (req_text := _text(request_body)):
        try:
            req = loads(req_text)
        except json.JSONDecodeError as e:
            req_error = describe_json_error(e)
    out.request = req
    resp_text = _text(response_body)
    if resp_text is not None and has_surrogate(resp_text):  # a log's "\udc00": text no UTF-8 writer accepts
        out.issues.append(Issue(BAD_UTF8, "response body text holds a lone surrogate; read with U+FFFD in its place"))
        resp_text = clean_text(resp_text)
        if isinstance(response_body, str):
            response_body = resp_text
    ex.api, by_path = (api, True) if api is not None else _api(ex.path or ex.url, req)
    answered = ex.status is None or 0 < ex.status < 400
    if not by_path and ex.api != "responses" and answered and resp_text:
        told = _api_from_response(resp_text)
        if told == "messages" or ex.api == "other":  # a Messages request and a Chat one can look alike
            ex.api = told
    if ex.api != "other":  # a form post or an upload to a web page is no API body
        _report_bad_utf8(request_body, "request", out)
        if req_error is not None:
            out.issues.append(Issue(REQUEST_BODY, req_error))
    api_body = ex.api != "other" and (by_path or not _not_api_type(response_ct))
    req_stream = None
    if ex.api in _MODULES and req is not None:
        info = _MODULES[ex.api].decode_request(req)
        out.tools, out.inputs, req_stream = info.tools, info.inputs, info.stream
        out.issues += info.issues
        ex.model = info.model
    elif isinstance(req, dict):
        ex.model = req.get("model") if isinstance(req.get("model"), str) else None
        req_stream = req.get("stream") if isinstance(req.get("stream"), bool) else None

    sse = False
    if ex.status is not None and ex.status >= 400:
        ex.terminal = "http-error"
        unfit: list[str] = []  # a field too deep or too large to keep as text: left empty, and said so
        ex.error_type, ex.error_code, ex.error_message = decode_error_body(resp_text, unfit)
        out.issues += [Issue(BAD_FIELD, m) for m in unfit]
    elif ex.status == 0:
        if api_body:
            out.issues.append(Issue(NO_RESPONSE, "status 0: no HTTP response was received"))
    elif resp_text is None:
        pass  # no body handed over: the reader knows why and reports it
    elif not resp_text or resp_text.isspace():  # (no stripped copy of a large body)
        if api_body:
            out.issues.append(Issue(BODY_MISSING, "response body is empty (not recorded, or never sent)"))
    else:
        sse = _is_sse(resp_text, response_ct)
        if not api_body:  # a web page, an asset or an endpoint of none of the three APIs: nothing expected
            ex.stream = req_stream if req_stream is not None else sse
            return
        if not sse:  # the stream decoder reports a stream's bad bytes frame by frame
            _report_bad_utf8(response_body, "response", out)
        # a stream's own bytes (issue offsets are byte offsets), or its text, which is UTF-8 by construction
        raw = bytes(response_body) if isinstance(response_body, (bytes, bytearray)) else resp_text
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
    cached = getattr(result, "cache_read_tokens", None)  # Messages: apart from input_tokens
    if cached is not None:
        ex.cache_read_tokens = cached
    ex.model = ex.model or result.model
    out.echoed_tools = getattr(result, "echoed_tools", None)


def _decode_response(api: str, text: str, sse: bytes | str | None, out: Decoded) -> responses.ResponseInfo | None:
    """JSON body → decode_response; SSE (raw bytes or text: issue offsets are UTF-8 byte offsets) → stream."""
    module = _MODULES[api]
    if sse is not None:
        return module.decode_stream(sse)
    try:
        body = loads(text)
    except json.JSONDecodeError as e:
        out.issues.append(Issue(RESPONSE_BODY, describe_json_error(e)))
        return None
    return module.decode_response(body)


def _report_bad_utf8(body: Any, direction: str, out: Decoded) -> None:
    """Bytes that are not UTF-8 are read as U+FFFD (``_text``), and said so, with the first bad byte."""
    if isinstance(body, (bytes, bytearray)):
        try:
            bytes(body).decode("utf-8")
        except UnicodeDecodeError as e:
            out.issues.append(
                Issue(BAD_UTF8, f"{direction} body: byte {e.start}: bytes that are not UTF-8, read as U+FFFD")
            )


def _text(body: Any) -> str | None:
    """bytes or str → str without a BOM (undecodable bytes replaced, never raised)."""
    if body is None:
        return None
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", errors="replace")
    text: str = body
    return text[1:] if text.startswith("\ufeff") else text


def _api(path: str | None, req: Any) -> tuple[str, bool]:
    """``(api, told by the path)``. ``/messages`` is Anthropic's, but not the Assistants API's
    ``/threads/{id}/messages``."""
    p = (path or "").split("?", 1)[0].rstrip("/")
    if p.endswith("/responses"):
        return "responses", True
    if p.endswith("/chat/completions"):
        return "chat", True
    if (p == "/messages" or p.endswith("/messages")) and "/threads/" not in p:
        return "messages", True
    if p.endswith(_OTHER_SUFFIXES) or "/models/" in p:
        return "other", True
    if isinstance(req, dict):
        if "input" in req:
            return "responses", False
        if "messages" in req:
            return ("messages" if _messages_shaped(req) else "chat"), False
    return "other", False


#: Endpoints of none of the three APIs whose requests look like theirs (an embeddings request has ``input``).
_OTHER_SUFFIXES = ("/embeddings", "/models", "/moderations", "/count_tokens", "/batches", "/files", "/completions")

_MESSAGES_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "document")


def _messages_shaped(req: dict[str, Any]) -> bool:
    """A request body with ``messages`` that only Anthropic Messages would send."""
    if "anthropic_version" in req or "system" in req or "stop_sequences" in req:
        return True
    tools = req.get("tools")
    if any(isinstance(t, dict) and "input_schema" in t for t in (tools if isinstance(tools, list) else ())):
        return True
    choice = req.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("auto", "any", "tool", "none"):
        return True
    msgs = req.get("messages")
    for msg in msgs if isinstance(msgs, list) else ():
        content = msg.get("content") if isinstance(msg, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and (
                block.get("type") in _MESSAGES_BLOCKS or (block.get("type") == "image" and "source" in block)
            ):
                return True
    return False


_MESSAGE_OBJECT = re.compile(r'"type"\s*:\s*"(message_start|message)"')


def _api_from_response(text: str) -> str:
    """When neither path nor request tells: the response's own shape."""
    head = text[:2000]
    if '"response.' in head or '"object":"response"' in head.replace(" ", ""):
        return "responses"
    if "chat.completion" in head or '"choices"' in head:
        return "chat"
    if _MESSAGE_OBJECT.search(head) and ("message_start" in head or '"stop_reason"' in text):
        return "messages"
    return "other"


def _not_api_type(content_type: str | None) -> bool:
    """A web page or one of its assets (HTML, CSS, images, fonts, scripts, media), by content type."""
    ct = (content_type or "").split(";")[0].strip().lower()
    return bool(ct) and (ct.startswith(_NOT_API_TYPES) or any(s in ct for s in _NOT_API_SUBSTRINGS))


def _is_sse(text: str, content_type: str | None) -> bool:
    head = text.lstrip()[:16]
    if head.startswith(("{", "[")):
        return False  # a JSON body (often an error) even if labelled text/event-stream
    if head.startswith(_SSE_STARTS):
        return True
    return content_type is not None and content_type.split(";")[0].strip().lower() == "text/event-stream"


def host_and_path(url: str | None, issues: list[Issue]) -> tuple[str | None, str | None]:
    """The host and path of a logged URL; an unparseable one is a ``bad-field`` issue, not a silent gap."""
    if not url:
        return None, None
    try:
        parts = urlsplit(url)
        return parts.hostname, parts.path or ("/" if parts.netloc else None)
    except ValueError:
        issues.append(Issue(BAD_FIELD, f"unparseable url {url[:200]!r}"))
        return None, None
