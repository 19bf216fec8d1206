"""httprr traces: the record/replay logs of Go tests (``*.httprr``, also gzip-compressed).

Format (rsc.io/httprr and golang.org/x/oscar ``internal/httprr/rr.go``): the line ``httprr trace v1``,
then one record per round trip: a line ``<n1> <n2>`` and ``n1`` bytes of the request as Go's
``Request.WriteProxy`` writes it (absolute URL in the request line), then ``n2`` bytes of the response
as ``Response.Write`` writes it (chunked or close-delimited when the length was unknown). The raw
messages are parsed by ``toolkit.wire.http1``.

Each record is one entry (``EntryCount(source, "record", n)``), location ``record N (byte B)`` with
B the offset of its size line. A record whose lengths are intact but whose request cannot be parsed
is a ``bad-entry`` Problem and reading goes on; a malformed size line or a record running past the
end of the file is a ``bad-entry`` Problem and reading stops there (nothing after it can be framed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from urllib.parse import urlsplit

from toolkit.errors import CaptureError
from toolkit.sources.inflate import inflate_file
from toolkit.wire.http import decode_exchange
from toolkit.wire.http1 import Http1Error, Request, Response, parse_request, parse_response
from toolkit.wire.records import BAD_ENTRY, RESPONSE_BODY, Decoded, EntryCount, Exchange, Header, Issue, Problem

__all__ = ["HEADER", "read", "recognize"]

HEADER = b"httprr trace v1\n"
_SIZES = re.compile(rb"^(\d+) (\d+)$")


def recognize(head: bytes) -> bool:
    """The trace's header line, exactly as httprr writes and requires it."""
    return head.startswith(HEADER)


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    data = _load(Path(path))
    if not data.startswith(HEADER):
        raise CaptureError(path, "not an httprr trace: the first line is not 'httprr trace v1'", location="byte 0")
    pos, n = len(HEADER), 0
    while pos < len(data):
        where = f"record {n} (byte {pos})"
        eol = data.find(b"\n", pos)
        sizes = _SIZES.match(data[pos:eol]) if eol >= 0 else None
        if sizes is None:
            line = data[pos : eol if eol >= 0 else pos + 40][:40]
            yield Problem(source, where, BAD_ENTRY, f"{where}: no '<n1> <n2>' size line ({line!r}); reading stopped")
            n += 1
            break
        n1, n2 = int(sizes[1]), int(sizes[2])
        start = eol + 1
        if start + n1 + n2 > len(data):
            yield Problem(
                source,
                where,
                BAD_ENTRY,
                f"{where}: truncated, {n1} + {n2} bytes announced, {len(data) - start} left; reading stopped",
            )
            n += 1
            break
        raw_req, raw_resp = data[start : start + n1], data[start + n1 : start + n1 + n2]
        pos = start + n1 + n2
        try:
            req = parse_request(raw_req)
        except Http1Error as exc:
            yield Problem(source, where, BAD_ENTRY, f"{where}: request: {exc}")
            n += 1
            continue
        yield _exchange(req, raw_resp, source, where, f"{source}:{n}")
        n += 1
    yield EntryCount(source, "record", n)


def _load(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":  # trace.httprr.gz
        try:
            raw = inflate_file(raw, "gzip", path)
        except (OSError, EOFError) as exc:
            raise CaptureError(path, f"corrupt gzip data: {exc}", location="byte 0") from None
    return raw


def _exchange(req: Request, raw_resp: bytes, source: str, where: str, xid: str) -> Decoded:
    issues = [Issue(kind, f"request {msg}") for kind, msg in req.issues]
    resp: Response | None
    try:
        resp = parse_response(raw_resp, request_method=req.method)
    except Http1Error as exc:
        resp = None
        issues.append(Issue(RESPONSE_BODY, f"response: {exc}"))
    else:
        issues += [Issue(kind, f"response {msg}") for kind, msg in resp.issues]
    url, host, path = _where(req)
    ex = Exchange(
        exchange_id=xid,
        source=source,
        location=where,
        method=req.method,
        url=url,
        host=host,
        path=path,
        status=resp.status if resp else None,
        request_bytes=len(req.body) if req.body is not None else None,
        response_bytes=len(resp.body) if resp and resp.body is not None else None,
        body_fidelity="wire",
    )
    d = decode_exchange(
        ex,
        req.body or None,
        resp.body if resp else None,
        request_content_type=req.header("content-type"),
        response_content_type=resp.header("content-type") if resp else None,
    )
    d.headers = [Header("request", k, v) for k, v in req.headers] + [
        Header("response", k, v) for k, v in (resp.headers if resp else [])
    ]
    d.issues = issues + d.issues
    return d


def _where(req: Request) -> tuple[str | None, str | None, str | None]:
    """URL, host, path: the absolute request target httprr writes, else the Host header."""
    if "://" in req.target:
        parts = urlsplit(req.target)
        return req.target, parts.hostname or req.header("host"), parts.path or "/"
    host = req.header("host")
    return None, host.rsplit(":", 1)[0] if host and not host.endswith("]") else host, req.target.split("?", 1)[0]
