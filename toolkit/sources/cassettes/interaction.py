"""What every cassette format shares: loading the YAML, and one recorded interaction into a ``Decoded``.

A cassette is small and written whole by its recorder, so it is parsed whole (PyYAML's safe loader, the
C one when built): what each format's module adds is only where it keeps the method, URL, status,
headers, bodies and times. ``!!binary`` (VCR.py) and ``!binary`` (Ruby's Psych) scalars are base64
bytes; one that is not valid base64 costs its body (a ``bad-base64`` problem), never the file.

A key written twice in one mapping is what a lost ``- request:`` line leaves: the next interaction's
request keys land in this one's response and its ``response:`` repeats this one's, so PyYAML would keep a
request of one exchange with the response of the next and drop the rest without a word. The loader marks
such a mapping (``RepeatedKeys``); an interaction holding one is a ``bad-entry`` problem naming the line
and the key, the other interactions are read, and a repeat outside the interactions refuses the file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import yaml

from toolkit.errors import CaptureError
from toolkit.sources import yaml_text
from toolkit.sources.inflate import inflate_file
from toolkit.wire import json_text
from toolkit.wire.encodings import (
    MAX_BODY_BYTES,
    BodyDecodeError,
    decode_base64,
    decode_content,
    sniff_compression,
)
from toolkit.wire.http import decode_exchange, host_and_path
from toolkit.wire.json_text import json_kind, utf8_size
from toolkit.wire.records import (
    BAD_BASE64,
    BAD_BODY,
    BAD_ENTRY,
    BODY_MISSING,
    Decoded,
    EntryCount,
    Exchange,
    Header,
    Issue,
    Problem,
)

__all__ = [
    "BadBinary",
    "Interaction",
    "Malformed",
    "RepeatedKeys",
    "bodies_present",
    "body_bytes",
    "headers",
    "load",
    "read_cassette",
    "request_response",
    "to_decoded",
]

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class BadBinary:
    """A ``!!binary`` / ``!binary`` scalar that is not base64 (kept so the reader can report it)."""

    def __init__(self, message: str):
        self.message = message


class RepeatedKeys(dict[Any, Any]):
    """A mapping the cassette wrote a key twice in (the last value kept, as PyYAML does); ``repeats``
    holds each repeat as (1-based line, key, 1-based line of the first), for the reader to report."""

    __slots__ = ("repeats",)

    def __init__(self, repeats: list[tuple[int, Any, int]]):
        super().__init__()
        self.repeats = repeats


class _Loader(yaml_text.UniqueKeys, yaml_text.TypedConstruction, _Base):  # type: ignore[misc,valid-type]
    def duplicate_key(self, node: yaml.MappingNode, key_node: yaml.Node, key: Any, first: yaml.Node) -> None:
        """Not an error here: ``_mapping`` has marked the mapping, and the reader reports it."""


def _mapping(loader: _Loader, node: yaml.MappingNode) -> Iterator[dict[Any, Any]]:
    repeats = [(k.start_mark.line + 1, key, f.start_mark.line + 1) for k, key, f in loader.repeated_keys(node)]
    data: dict[Any, Any] = RepeatedKeys(repeats) if repeats else {}
    yield data
    data.update(loader.construct_mapping(node))


def _first_repeat(value: Any) -> tuple[int, Any, int] | None:
    """The first repeated key anywhere inside ``value`` (its nesting is bounded by ``MAX_YAML_DEPTH``)."""
    if isinstance(value, RepeatedKeys):
        return value.repeats[0]
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        found = _first_repeat(child)
        if found is not None:
            return found
    return None


def _binary(loader: yaml.SafeLoader, node: yaml.Node) -> bytes | BadBinary:
    text = loader.construct_scalar(node)  # type: ignore[arg-type]
    try:
        return decode_base64(str(text))
    except BodyDecodeError as exc:
        return BadBinary(f"{exc} (at line {node.start_mark.line + 1})")


_Loader.add_constructor("tag:yaml.org,2002:map", _mapping)
_Loader.add_constructor("tag:yaml.org,2002:binary", _binary)
_Loader.add_constructor("!binary", _binary)  # Ruby's Psych writes non-UTF-8 strings so


class Malformed(Exception):
    """An interaction that cannot be read at all; it becomes a ``bad-entry`` problem."""


@dataclass(slots=True)
class Interaction:
    """What a cassette says about one exchange, whatever its format."""

    method: str | None = None
    url: str | None = None
    status: int | None = None
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    request_body: bytes | str | None = None
    response_body: bytes | str | None = None
    request_bytes: int | None = None
    response_bytes: int | None = None
    fidelity: str | None = None  # the weaker of the two bodies ("json" beats "wire")
    started_at: float | None = None
    duration_ms: float | None = None
    issues: list[Issue] = field(default_factory=list)

    def header(self, direction: str, name: str) -> str | None:
        pairs = self.request_headers if direction == "request" else self.response_headers
        return next((v for n, v in pairs if n.lower() == name), None)

    def fidelity_of(self, value: str | None) -> None:
        if value == "json" or self.fidelity is None:
            self.fidelity = value or self.fidelity


def load(path: Path) -> Any:
    """The cassette's document; ``CaptureError`` (file, line and column) when it is not YAML."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":  # .yaml.gz
        try:
            raw = inflate_file(raw, "gzip", path)
        except (OSError, EOFError) as exc:
            raise CaptureError(path, f"corrupt gzip data: {exc}", location="byte 0") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CaptureError(path, f"not UTF-8: {exc.reason}", location=f"byte {exc.start}") from None
    if text.lstrip().startswith("{"):  # the JSON serialisers (VCR.py "json", Ruby VCR :json)
        try:
            return json_text.loads(text)
        except json.JSONDecodeError as exc:
            raise CaptureError(
                path, f"not JSON: {exc.msg}", location=f"line {exc.lineno}, column {exc.colno}"
            ) from None
    try:
        return yaml_text.load(text, _Loader)  # a SafeLoader subclass, within yaml_text's bounds
    except yaml.YAMLError as exc:
        line, column, reason = yaml_text.error_place(exc, text)
        where = f"line {line}, column {column}" if line is not None else None
        raise CaptureError(path, f"not YAML: {reason}", location=where) from None


def request_response(item: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An interaction's request and response mappings; every cassette format nests them so."""
    req, resp = item.get("request"), item.get("response")
    if not isinstance(req, dict):
        raise Malformed("interaction has no request mapping")
    if not isinstance(resp, dict):
        raise Malformed("interaction has no response mapping")
    return req, resp


def bodies_present(
    it: Interaction, req: dict[str, Any], resp: dict[str, Any], keys: tuple[str, ...] = ("body",)
) -> None:
    """A body key (one of ``keys``) missing from the request or the response is a ``body-missing``
    issue: the recorders write one for both, empty or not, so its absence is a cassette cut or damaged
    inside the interaction, and what that body held (tools, calls) is lost."""
    for direction, part in (("request", req), ("response", resp)):
        if not any(k in part for k in keys):
            it.issues.append(Issue(BODY_MISSING, f"{direction} has no body: the cassette is cut off inside it?"))


def read_cassette(
    path: str | PathLike[str],
    source: str,
    key: str,
    convert: Callable[[dict[str, Any]], Interaction],
) -> Iterator[Decoded | Problem | EntryCount]:
    """Every interaction of the list under ``key`` as a ``Decoded``, or a ``bad-entry`` problem."""
    path = Path(path)
    doc = load(path)
    if not isinstance(doc, dict) or key not in doc:
        what = f"a YAML {json_kind(doc)}" if not isinstance(doc, dict) else f"no {key!r} key"
        raise CaptureError(path, f"not a cassette: {what} at the top level", location="line 1")
    if isinstance(doc, RepeatedKeys):
        line, repeated, first = doc.repeats[0]
        raise CaptureError(
            path, f"duplicate key {repeated!r} at the top level (first at line {first})", location=f"line {line}"
        )
    items = doc[key]
    if not isinstance(items, list) or not items:
        what = "empty" if items in (None, []) else f"a {json_kind(items)}, not a list"
        raise CaptureError(path, f"no interactions: {key!r} is {what}", location=f"key {key!r}")
    for n, item in enumerate(items):
        location = f"interaction {n}"
        try:
            if not isinstance(item, dict):
                raise Malformed(f"interaction is a {json_kind(item)}, not a mapping")
            repeat = _first_repeat(item)
            if repeat is not None:
                line, repeated, first = repeat
                raise Malformed(
                    f"duplicate key {repeated!r} at line {line} (first at line {first}): "
                    "the later value hides the earlier (a lost '- request:' line merges two interactions), so it is not read"
                )
            it = convert(item)
        except Malformed as exc:
            yield Problem(source, location, BAD_ENTRY, str(exc))
            continue
        yield to_decoded(it, source, location, f"{source}:{n}")
    yield EntryCount(source, "interaction", len(items))


def to_decoded(it: Interaction, source: str, location: str, xid: str) -> Decoded:
    host, path = host_and_path(it.url, it.issues)
    exchange = Exchange(
        exchange_id=xid,
        source=source,
        location=location,
        started_at=it.started_at,
        method=it.method,
        url=it.url,
        host=host,
        path=path,
        status=it.status,
        duration_ms=it.duration_ms,
        request_bytes=it.request_bytes,
        response_bytes=it.response_bytes,
        body_fidelity=it.fidelity,
    )
    decoded = decode_exchange(
        exchange,
        it.request_body,
        it.response_body,
        request_content_type=it.header("request", "content-type"),
        response_content_type=it.header("response", "content-type"),
    )
    decoded.headers = [Header("request", n, v) for n, v in it.request_headers] + [
        Header("response", n, v) for n, v in it.response_headers
    ]
    decoded.issues[:0] = it.issues
    return decoded


def headers(raw: Any) -> list[tuple[str, str]]:
    """A mapping of header names to a list of values (or one value), as every cassette keeps them."""
    out: list[tuple[str, str]] = []
    if not isinstance(raw, dict):
        return out
    for name, values in raw.items():
        for value in values if isinstance(values, list) else [values]:
            if value is not None:
                out.append((str(name), str(value)))
    return out


def body_bytes(value: Any, it: Interaction, direction: str) -> tuple[bytes | str | None, int | None]:
    """A stored body (text, bytes or a bad ``!!binary``) as the decoder takes it, and its stored size.

    Bytes are undone through the Content-Encoding header (or their gzip/zstd magic): a recorder stores a
    body as bytes only when it is not text, so bytes that do not decompress are a broken body.
    """
    if value is None:
        return None, None
    if isinstance(value, BadBinary):
        it.issues.append(Issue(BAD_BASE64, f"{direction} body: {value.message}"))
        return None, None
    if isinstance(value, str):
        return value, utf8_size(value)
    if not isinstance(value, bytes):
        it.issues.append(Issue(BAD_BODY, f"{direction} body is a {json_kind(value)}, not text or bytes"))
        return None, None
    size = len(value)
    coding = it.header(direction, "content-encoding") or sniff_compression(value)
    if not coding:
        return value, size
    try:
        return decode_content(value, coding, cap=MAX_BODY_BYTES), size
    except BodyDecodeError as exc:
        it.issues.append(Issue(exc.kind, f"{direction} body ({coding}): {exc}"))
        return None, size
