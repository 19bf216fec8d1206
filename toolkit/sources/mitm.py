"""mitmproxy ``.mitm`` flow files: read with mitmproxy when it is importable, else natively.

mitmproxy is deliberately not a dependency: on Python 3.11 it resolves to 11.0.2 and downgrades
httpx to a version that breaks the OpenAI SDK at runtime (``docs/upstream.md``, "mitmproxy"), so it belongs in its
own environment. Without it, flow files of the format versions in ``NATIVE_VERSIONS`` (7 to 21:
mitmproxy 3.x to 12.x) are read here: each flow is a typed netstring (``wire.tnetstring``) holding the
flow's state, read one flow at a time, and an older state is first upgraded to format 21 by
``mitm_migrate``. A file whose first flow has another version raises ``CaptureError`` naming the version,
the release that wrote it and the commands that rewrite it in the current format or as HAR (mitmproxy 2
and older, whose flows are Python 2 era states, need mitmproxy's own migrations); a later flow of another
version, or one whose state cannot be upgraded, is a ``bad-entry`` problem and reading goes on.

The URL and host are the ones mitmproxy's HAR export writes (``Request.pretty_url``, ``pretty_host``):
the Host header (HTTP/1) or ``:authority`` (HTTP/2 and 3, else the Host header), falling back to the
connection's address; so a transparent-mode flow to an IP address gets the name the client asked for.

With it, every flow from ``mitmproxy.io.FlowReader(f).stream()`` is one entry (location
``"flow {i}"``, exchange id ``"{source}:{i}"``, counted as ``EntryCount(source, "flow", n)``): an
HTTP flow becomes a ``Decoded`` whose bodies are the message content with its Content-Encoding
undone by ``wire.encodings`` as in every reader (a body that does not decode is one ``bad-compression``
problem and no body), whose byte
counts are the raw (still encoded) body sizes, and whose times come from the request's and
response's ``timestamp_start`` / ``timestamp_end``. The tee addon's
``flow.metadata["sse_chunk_times"]`` is kept as ``Decoded.chunk_times``. A TCP, UDP or DNS flow is a
``Problem`` (kind ``not-http``); an HTTP flow that errored before a response keeps its request and
gets an ``Issue`` with mitmproxy's error message.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from collections.abc import Iterator
from os import PathLike
from typing import Any
from urllib.parse import urlsplit

from toolkit.errors import CaptureError
from toolkit.knowledge.mitmproxy import CONVERT_COMMAND, HAR_COMMAND, release_of
from toolkit.sources.mitm_migrate import CURRENT, OLDEST, MigrationError, migrate
from toolkit.wire.encodings import MAX_BODY_BYTES, BodyDecodeError, decode_content
from toolkit.wire.http import decode_exchange
from toolkit.wire.json_text import json_kind
from toolkit.wire.records import (
    BAD_ENTRY,
    BAD_FIELD,
    BODY_MISSING,
    FLOW_ERROR,
    NOT_HTTP,
    Decoded,
    EntryCount,
    Exchange,
    Header,
    Issue,
    Problem,
)
from toolkit.wire.tnetstring import MAX_PREFIX, TNetStringError, parse, read_prefix
from toolkit.wire.values import finite, int64, what_is_wrong

__all__ = ["NATIVE_VERSIONS", "read", "recognize"]


NATIVE_VERSIONS = frozenset(range(OLDEST, CURRENT + 1))


def read(path: str | PathLike[str], source: str) -> Iterator[Any]:
    """Yield one ``Decoded`` or ``Problem`` per flow, then ``EntryCount``."""
    try:
        from mitmproxy import http as mitm_http
        from mitmproxy import io as mitm_io
    except ImportError as exc:
        yield from _read_native(path, source, exc)
        return
    try:
        from mitmproxy.exceptions import FlowReadException
    except ImportError:  # pragma: no cover - present in every mitmproxy that has io.FlowReader
        FlowReadException = Exception

    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    with f:
        entries = 0
        flows = mitm_io.FlowReader(f).stream()
        while True:
            try:
                flow = next(flows)
            except StopIteration:
                break
            except FlowReadException as exc:
                if entries == 0:
                    raise CaptureError(path, f"not a mitmproxy flow file: {exc}", location="flow 0") from None
                # A truncated tail (mitmproxy killed mid-write) loses only what follows.
                yield Problem(
                    source, f"flow {entries}", BAD_ENTRY, f"flow {entries}: unreadable, reading stopped here ({exc})"
                )
                entries += 1
                break
            index = entries
            entries += 1
            if not isinstance(flow, mitm_http.HTTPFlow):
                kind = getattr(flow, "type", None) or type(flow).__name__
                yield Problem(source, f"flow {index}", NOT_HTTP, f"flow {index}: a {kind} flow, not HTTP")
                continue
            yield _decode_flow(flow, source, index)
        yield EntryCount(source, "flow", entries)


def _read_native(path: str | PathLike[str], source: str, import_error: ImportError) -> Iterator[Any]:
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    with f:
        entries = offset = 0
        while head := f.read(MAX_PREFIX + 1):
            try:
                length, start = read_prefix(head)
                data = head + f.read(start + length + 1 - len(head))
                state, _ = parse(data)
                if not isinstance(state, dict):
                    raise TNetStringError(0, "a flow is not a dictionary")
            except (TNetStringError, ValueError) as exc:
                if entries == 0:
                    raise CaptureError(path, f"not a mitmproxy flow file: {exc}", location=f"byte {offset}") from None
                yield Problem(
                    source,
                    f"flow {entries}",
                    BAD_ENTRY,
                    f"flow {entries} at byte {offset}: unreadable, reading stopped here ({exc})",
                )
                entries += 1
                break
            version = state.get("version")
            if not isinstance(version, int) or isinstance(version, bool) or version not in NATIVE_VERSIONS:
                if entries == 0:
                    raise CaptureError(
                        path,
                        _version_message(version) + " " + _missing_message(path, import_error, version),
                        location=f"flow 0, byte {offset}",
                    )
                yield Problem(source, f"flow {entries}", BAD_ENTRY, f"flow {entries}: {_version_message(version)}")
                entries, offset = entries + 1, offset + len(data)
                continue
            index, entries, offset = entries, entries + 1, offset + len(data)
            try:
                migrate(state)
            except MigrationError as exc:
                yield Problem(source, f"flow {index}", BAD_ENTRY, f"flow {index}: {exc}")
                continue
            if state.get("type") != "http":
                yield Problem(source, f"flow {index}", NOT_HTTP, f"flow {index}: a {state.get('type')} flow, not HTTP")
                continue
            if not isinstance(state.get("request"), dict):
                yield Problem(source, f"flow {index}", BAD_ENTRY, f"flow {index}: an HTTP flow without a request state")
                continue
            yield _decode_flow(_StateFlow(state), source, index)
        yield EntryCount(source, "flow", entries)


class _StateHeaders:
    def __init__(self, pairs: Any) -> None:
        pairs = pairs if isinstance(pairs, list) else []
        self.pairs = [
            (_text(p[0]), _text(p[1]))
            for p in pairs
            if isinstance(p, list) and len(p) == 2 and all(isinstance(x, (bytes, str)) for x in p)
        ]

    def items(self, multi: bool = False) -> list[tuple[Any, Any]]:
        return list(self.pairs)


class _StateMessage:
    """A request or response state with the attributes ``_decode_flow`` reads from mitmproxy's objects."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.raw_content: Any = state.get("content")
        self.headers = _StateHeaders(state.get("headers"))
        self.timestamp_start = state.get("timestamp_start")
        self.timestamp_end = state.get("timestamp_end")
        self.status_code = state.get("status_code")
        self.method = _text(state.get("method"))
        self.host = _text(state.get("host"))
        path = _text(state.get("path"))
        self.path = path
        if self.host is not None:
            scheme = _text(state.get("scheme")) or "http"
            port = state.get("port")
            self.url = f"{scheme}://{_hostport(scheme, self.host, port)}{path or ''}"
            # mitmproxy's Request.host_header, pretty_host and pretty_url (mitmproxy/http.py), which its HAR
            # export uses: the name the client asked for, not the address the connection went to.
            authority = _text(state.get("authority")) or ""
            host_header = _header(self.headers.items(), "host")
            if _text(state.get("http_version")) in ("HTTP/2.0", "HTTP/3"):
                host_header = authority or host_header
            if self.method == "CONNECT":
                self.pretty_host, self.pretty_url = self.host, authority
            elif host_header:
                self.pretty_host, pretty_port = _parse_authority(host_header)
                pretty_port = pretty_port or _DEFAULT_PORTS.get(scheme) or 443
                path = "" if path == "*" else path or ""
                self.pretty_url = f"{scheme}://{_hostport(scheme, self.pretty_host, pretty_port)}{path}"
            else:
                self.pretty_host, self.pretty_url = self.host, self.url


_DEFAULT_PORTS = {"http": 80, "https": 443}
_AUTHORITY = re.compile(r"^(?P<host>[^:]+|\[.+\])(?::(?P<port>\d+))?$")


def _parse_authority(authority: str) -> tuple[str, int | None]:
    """Host and port of a Host header or ``:authority``; the whole text as the host when it is not one."""
    match = _AUTHORITY.match(authority)
    if not match:
        return authority, None
    host = match["host"].removeprefix("[").removesuffix("]")
    port = int(match["port"]) if match["port"] else None
    return host, port if port is None or 0 < port < 65536 else None


def _hostport(scheme: str, host: str, port: Any) -> str:
    if port in (None, _DEFAULT_PORTS.get(scheme)):
        return f"[{host}]" if ":" in host else host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class _StateFlow:
    def __init__(self, state: dict[str, Any]) -> None:
        self.request = _StateMessage(state.get("request") or {})
        resp = state.get("response")
        self.response = _StateMessage(resp) if isinstance(resp, dict) else None
        # a response that is there but no object: its status and body are lost, and the row says so
        self.bad_response = None if resp is None or isinstance(resp, dict) else json_kind(resp)
        err = state.get("error")
        self.error = type("FlowError", (), {"msg": _text(err.get("msg"))})() if isinstance(err, dict) else None
        self.metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}


def _text(value: Any) -> Any:
    """Bytes as text (undecodable bytes kept as surrogates); anything else as it is."""
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def _version_message(version: Any) -> str:
    if isinstance(version, int) and not isinstance(version, bool):
        age = "older" if version < OLDEST else "newer"
        shown = str(version)
    elif isinstance(version, list):  # mitmproxy 0.x to 3.x wrote their own release number as the version
        age, shown = "older", repr(version)
    else:
        return f"a flow without a flow format version ({version!r}), so not a mitmproxy flow"
    return (
        f"flow format version {shown} (written by {release_of(version)}) is {age} than the versions the toolkit "
        f"reads itself ({OLDEST}, {release_of(OLDEST)}, to {CURRENT}, {release_of(CURRENT)})."
    )


def _missing_message(path: str | PathLike[str], exc: ImportError, version: Any) -> str:
    command = HAR_COMMAND.format(path=shlex.quote(str(path)))
    stem = str(path).removesuffix(".mitm")
    rewrite = CONVERT_COMMAND.format(path=shlex.quote(str(path)), path_new=shlex.quote(f"{stem}.v{CURRENT}.mitm"))
    try:
        installed = importlib.util.find_spec("mitmproxy") is not None
    except (ImportError, ValueError):
        installed = False
    what = (
        f"mitmproxy is installed but cannot be imported here ({exc})"
        if installed
        else "mitmproxy is not installed in this environment"
    )
    if isinstance(version, int) and version > CURRENT:  # only the release that wrote it can read it
        how = f"There, with the release that wrote it, convert it to HAR and load the HAR: {command}"
    else:
        how = (
            f"There (mitmproxy 10 to 12), rewrite it in a flow format read here and load the new file: {rewrite} "
            f"(keeps chunk times and flow metadata), or convert it to HAR and load the HAR: {command}"
        )
    return (
        f"{what}, so this file cannot be read here. "
        "mitmproxy needs its own environment on Python 3.11 (installing it next to this toolkit "
        f'downgrades httpx and breaks the OpenAI SDK; see docs/upstream.md, "mitmproxy"). {how}'
    )


def _decode_flow(flow: Any, source: str, index: int) -> Decoded:
    req = flow.request
    resp = flow.response
    issues: list[Issue] = []
    # The name the client asked for, as mitmproxy's HAR export has it (savehar.py: CONNECT as https://authority/).
    url = _attr(req, "pretty_url") or _attr(req, "url")
    host = _attr(req, "pretty_host") or _attr(req, "host")
    if url and _attr(req, "method") == "CONNECT":
        url = f"https://{url}/"
    path = _attr(req, "path")
    if url and (host is None or path is None):
        parts = urlsplit(url)
        host = host or parts.hostname
        path = path or parts.path
    if path:
        path = path.split("?", 1)[0]
    req_body, req_size = _content(req, "request", issues)
    resp_body = resp_size = None
    status = None
    if resp is not None:
        resp_body, resp_size = _content(resp, "response", issues)
        status = _attr(resp, "status_code")
    if (bad := getattr(flow, "bad_response", None)) is not None:
        issues.append(Issue(BAD_FIELD, f"response is a {bad}, not an object: its status and body are lost"))
    error = getattr(flow, "error", None)
    if error is not None:
        msg = getattr(error, "msg", None) or str(error)
        issues.append(Issue(FLOW_ERROR, f"mitmproxy recorded an error: {msg}"))
    started = _number(_attr(req, "timestamp_start"), "request timestamp_start", issues)
    ended = _number(_attr(resp, "timestamp_end"), "response timestamp_end", issues) if resp is not None else None
    if status is not None:
        code = int64(status)
        if code is None:
            issues.append(Issue(BAD_FIELD, f"response status_code: {what_is_wrong(status)}, not an integer"))
        status = code
    exchange = Exchange(
        exchange_id=f"{source}:{index}",
        source=source,
        location=f"flow {index}",
        started_at=started,
        method=_attr(req, "method"),
        url=url,
        host=host,
        path=path,
        status=status,
        duration_ms=(ended - started) * 1000.0 if started is not None and ended is not None else None,
        request_bytes=req_size,
        response_bytes=resp_size,
        body_fidelity="wire",
    )
    req_headers = _headers(req)
    resp_headers = _headers(resp) if resp is not None else []
    decoded = decode_exchange(
        exchange,
        req_body,
        resp_body,
        request_content_type=_header(req_headers, "content-type"),
        response_content_type=_header(resp_headers, "content-type"),
    )
    decoded.headers.extend(Header("request", n, v) for n, v in req_headers)
    decoded.headers.extend(Header("response", n, v) for n, v in resp_headers)
    decoded.issues[:0] = issues
    metadata = getattr(flow, "metadata", None)
    times = metadata.get("sse_chunk_times") if isinstance(metadata, dict) else None
    if isinstance(times, (list, tuple)):
        kept = [f for f in map(finite, times) if f is not None]
        if len(kept) != len(times):
            odd = next(t for t in times if finite(t) is None)
            decoded.issues.append(
                Issue(
                    BAD_FIELD, f"metadata sse_chunk_times: {len(times) - len(kept)} not a time ({what_is_wrong(odd)})"
                )
            )
        decoded.chunk_times = kept
    return decoded


def _number(value: Any, what: str, issues: list[Issue]) -> float | None:
    """A flow's timestamp as a float, or ``None`` with a problem when it is not a finite number."""
    if value is None:
        return None
    out = finite(value)
    if out is None:
        issues.append(Issue(BAD_FIELD, f"{what}: {what_is_wrong(value)}, not a time"))
    return out


def _content(message: Any, direction: str, issues: list[Issue]) -> tuple[bytes | None, int | None]:
    """The body with its Content-Encoding undone, and the size of the raw (encoded) body."""
    raw = getattr(message, "raw_content", None)
    if raw is None:
        if direction == "response":
            issues.append(
                Issue(
                    BODY_MISSING,
                    "response body not recorded (streamed with flow.response.stream = True and no tee addon)",
                )
            )
        return None, None
    raw = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else bytes(raw)
    try:  # undone here, as for every reader, so that a fault gives the same problem everywhere
        body = decode_content(raw, _header(_headers(message), "content-encoding"), cap=MAX_BODY_BYTES)
    except BodyDecodeError as exc:
        issues.append(Issue(exc.kind, f"{direction} body: {exc}"))
        return None, len(raw)
    return body, len(raw)


def _headers(message: Any) -> list[tuple[str, str]]:
    headers = getattr(message, "headers", None)
    if headers is None:
        return []
    try:
        items = headers.items(multi=True)
    except TypeError:  # a plain mapping
        items = headers.items()
    return [(str(n), str(v)) for n, v in items]


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    for n, v in headers:
        if n.lower() == name:
            return v
    return None


def _attr(obj: Any, name: str) -> Any:
    return getattr(obj, name, None) if obj is not None else None


_TNETSTRING = re.compile(rb"^\d{1,12}:")


def recognize(head: bytes) -> bool:
    """A tnetstring: a decimal length and a colon."""
    return bool(_TNETSTRING.match(head))
