"""What one log line says about an exchange, whatever its shape, and how that becomes decoded records."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkit.sources.jsonl.fields import header
from toolkit.wire.http import ParsedBody, decode_exchange, host_and_path
from toolkit.wire.records import Decoded, Exchange, Header, Issue

__all__ = ["Entry", "to_decoded"]


@dataclass(slots=True)
class Entry:
    """What one log line says about an exchange, before the protocol is decoded."""

    log_id: str | None = None
    started_at: float | None = None
    duration_ms: float | None = None
    method: str | None = None
    url: str | None = None
    status: int | None = None
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    request_body: bytes | str | ParsedBody | None = None  # ParsedBody: the log held it as JSON
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


def to_decoded(entry: Entry, source: str, line_no: int) -> Decoded:
    """The exchange the bodies describe; the log's own columns fill only what the bodies did not say."""
    host, path = host_and_path(entry.url, entry.issues)
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
        request_content_type=header(entry.request_headers, "content-type"),
        response_content_type=header(entry.response_headers, "content-type"),
    )
    ex = decoded.exchange
    for name in ("model", "input_tokens", "output_tokens", "provider", "error_type", "error_code", "error_message"):
        if getattr(ex, name) is None and getattr(entry, name) is not None:
            setattr(ex, name, getattr(entry, name))
    decoded.headers += [Header("request", n, v) for n, v in entry.request_headers]
    decoded.headers += [Header("response", n, v) for n, v in entry.response_headers]
    decoded.issues[:0] = entry.issues
    return decoded
