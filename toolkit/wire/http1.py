"""Raw HTTP/1.1 messages (as bytes) → start line, headers and the body a client would have read.

Recorders that keep the bytes of a whole message (httprr traces, raw dumps) need the framing undone
in one place: ``Transfer-Encoding: chunked`` (RFC 9112 §7.1), ``Content-Length``, a body delimited by
the end of the message, then ``Content-Encoding`` (through ``toolkit.wire.encodings``, capped). A
message whose head cannot be read raises ``Http1Error``; a body that cannot be undone is an issue on
the message (``(kind, message)``), so the exchange is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkit.wire.encodings import MAX_BODY_BYTES, BodyDecodeError, BodyTooLarge, decode_content
from toolkit.wire.records import BAD_BODY, BAD_COMPRESSION, BODY_TOO_LARGE, BODY_TRUNCATED

__all__ = ["Http1Error", "Request", "Response", "parse_request", "parse_response"]

_REQUEST_LINE = re.compile(rb"^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) (HTTP/\d\.\d)$")
_STATUS_LINE = re.compile(rb"^(HTTP/\d\.\d) (\d{3})(?: (.*))?$")
_NO_BODY_STATUS = (204, 304)


class Http1Error(ValueError):
    """The start line or a header line is not HTTP/1.x: the message cannot be read at all."""


@dataclass(slots=True)
class _Message:
    version: str
    headers: list[tuple[str, str]]
    body: bytes | None  # de-chunked and de-encoded; None when it could not be undone
    wire_body_bytes: int  # the body as framed in the message (before de-chunking)
    issues: list[tuple[str, str]] = field(default_factory=list)  # (problem kind, message)

    def header(self, name: str) -> str | None:
        """The first value of a header (names compare case-insensitively)."""
        name = name.lower()
        return next((v for n, v in self.headers if n.lower() == name), None)


@dataclass(slots=True)
class Request(_Message):
    method: str = ""
    target: str = ""  # as written: origin form (/v1/x) or absolute form (http://host/v1/x)


@dataclass(slots=True)
class Response(_Message):
    status: int = 0
    reason: str = ""


def parse_request(data: bytes, *, cap: int = MAX_BODY_BYTES) -> Request:
    start, headers, rest = _head(data)
    m = _REQUEST_LINE.match(start)
    if not m:
        raise Http1Error(f"not an HTTP/1.x request line: {_show(start)}")
    req = Request(m[3].decode(), headers, None, 0, method=m[1].decode(), target=m[2].decode("latin-1"))
    has_body = req.header("transfer-encoding") is not None or req.header("content-length") is not None
    _body(req, rest, cap, to_end=False if not has_body else None)
    return req


def parse_response(data: bytes, *, request_method: str | None = None, cap: int = MAX_BODY_BYTES) -> Response:
    start, headers, rest = _head(data)
    m = _STATUS_LINE.match(start)
    if not m:
        raise Http1Error(f"not an HTTP/1.x status line: {_show(start)}")
    status = int(m[2])
    resp = Response(m[1].decode(), headers, None, 0, status=status, reason=(m[3] or b"").decode("latin-1"))
    no_body = request_method == "HEAD" or status < 200 or status in _NO_BODY_STATUS
    _body(resp, rest, cap, to_end=False if no_body else None)
    return resp


def _head(data: bytes) -> tuple[bytes, list[tuple[str, str]], bytes]:
    """Start line, header fields, and the bytes after the blank line (CRLF or bare LF)."""
    m = re.search(rb"\r?\n\r?\n", data)
    if m is None:
        raise Http1Error("the message ends before the blank line that closes its header section")
    lines = re.split(rb"\r?\n", data[: m.start()])
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t") and headers:  # obsolete line folding
            last, folded = headers[-1]
            headers[-1] = (last, f"{folded} {line.strip().decode('latin-1')}")
            continue
        field_name, colon, field_value = line.partition(b":")
        if not colon or not field_name or field_name != field_name.strip():
            raise Http1Error(f"not a header field: {_show(line)}")
        headers.append((field_name.decode("latin-1"), field_value.strip().decode("latin-1")))
    return lines[0], headers, data[m.end() :]


def _body(msg: _Message, rest: bytes, cap: int, *, to_end: bool | None) -> None:
    """Frame the body (``to_end=False``: the message has none), then undo its Content-Encoding."""
    msg.wire_body_bytes = len(rest)
    if to_end is False:
        msg.body = b""
        if rest:
            msg.issues.append((BAD_BODY, f"{len(rest)} bytes after a message that has no body"))
        return
    te = [c.strip().lower() for c in (msg.header("transfer-encoding") or "").split(",") if c.strip()]
    length = msg.header("content-length")
    if te and te[-1] == "chunked":
        body = _dechunk(rest, msg.issues)
    elif length is not None:
        if not length.strip().isdigit():
            msg.issues.append((BAD_BODY, f"Content-Length {length!r} is not a number; the body is read to the end"))
            body = rest
        else:
            n = int(length)
            body = rest[:n]
            if len(rest) < n:
                msg.issues.append(
                    (BODY_TRUNCATED, f"body ends after {len(rest)} of the {n} bytes Content-Length declares")
                )
            elif len(rest) > n:
                msg.issues.append((BAD_BODY, f"{len(rest) - n} bytes after the {n}-byte body"))
    else:
        body = rest  # delimited by the end of the message (a close-delimited response)
    coding = msg.header("content-encoding")
    if coding and body:
        try:
            body = decode_content(body, coding, cap=cap)
        except BodyTooLarge as exc:
            msg.issues.append((BODY_TOO_LARGE, f"body: {exc}"))
            return
        except BodyDecodeError as exc:
            msg.issues.append((BAD_COMPRESSION, f"body: {exc}"))
            return
    msg.body = body


def _dechunk(data: bytes, issues: list[tuple[str, str]]) -> bytes:
    """The chunk data joined; a malformed or truncated chunk keeps what came before it."""
    out = bytearray()
    pos = 0
    while True:
        eol = data.find(b"\n", pos)
        if eol < 0:
            issues.append((BODY_TRUNCATED, f"chunked body ends at byte {pos} without its last chunk"))
            return bytes(out)
        size_text = data[pos:eol].rstrip(b"\r").split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            issues.append((BAD_BODY, f"chunked body: bad chunk size {_show(size_text)} at byte {pos}"))
            return bytes(out)
        if size == 0:
            return bytes(out)  # trailer fields, if any, are not part of the body
        start = eol + 1
        chunk = data[start : start + size]
        out += chunk
        if len(chunk) < size:
            issues.append((BODY_TRUNCATED, f"chunked body ends inside the {size}-byte chunk at byte {pos}"))
            return bytes(out)
        pos = start + size
        if data[pos : pos + 2] == b"\r\n":
            pos += 2
        elif data[pos : pos + 1] == b"\n":
            pos += 1
        else:
            issues.append((BAD_BODY, f"chunked body: no line end after the chunk at byte {start}"))
            return bytes(out)


def _show(raw: bytes) -> str:
    return repr(raw[:60].decode("latin-1")) + ("…" if len(raw) > 60 else "")
