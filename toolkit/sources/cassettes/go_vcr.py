"""go-vcr cassettes, format version 2 (gopkg.in/dnaeon/go-vcr.v2 and later, ``cassette/cassette.go``).

Layout (yaml.v2/v3 of go-vcr's ``Cassette``; v3 and v4 add fields such as ``id``, ``proto``,
``content_length``, ``host`` that are not needed here)::

    ---
    version: 2
    interactions:
    - request:  {body: str, form: {name: [value]}, headers: {Name: [value]}, url, method}
      response: {body: str, headers: {Name: [value]}, status: "200 OK", code: 200, duration: 1.5ms}

Bodies are strings as Go's transport handed them to go-vcr (already decompressed when Go asked for gzip
itself), so ``body_fidelity`` is ``wire``. ``duration`` is Go's ``time.Duration`` text (``1m2.5s``,
``350ms``, ``12µs``) or a number of nanoseconds; there is no start time (``started_at`` stays empty).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from os import PathLike
from typing import Any

from toolkit.sources.cassettes.interaction import (
    Interaction,
    bodies_present,
    body_bytes,
    headers,
    read_cassette,
    request_response,
)
from toolkit.wire.records import BAD_FIELD, Decoded, EntryCount, Issue, Problem
from toolkit.wire.values import finite, what_is_wrong

__all__ = ["go_duration_ms", "read", "recognize"]


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    return read_cassette(path, source, "interactions", _interaction)


def _interaction(item: dict[str, Any]) -> Interaction:
    req, resp = request_response(item)
    it = Interaction(
        method=req.get("method") if isinstance(req.get("method"), str) else None,
        url=req.get("url") if isinstance(req.get("url"), str) else None,
        request_headers=headers(req.get("headers")),
        response_headers=headers(resp.get("headers")),
        fidelity="wire",
    )
    bodies_present(it, req, resp)
    it.request_body, it.request_bytes = body_bytes(_text(req.get("body")), it, "request")
    it.response_body, it.response_bytes = body_bytes(_text(resp.get("body")), it, "response")
    code = resp.get("code")
    if not isinstance(code, int) or isinstance(code, bool):  # older files: only "200 OK"
        m = re.match(r"\s*(\d{3})\b", str(resp.get("status") or ""))
        code = int(m.group(1)) if m else None
    if code is None:
        it.issues.append(Issue(BAD_FIELD, f"response code {resp.get('code')!r} is not an integer"))
    it.status = code
    if resp.get("duration") is not None:
        it.duration_ms = go_duration_ms(resp["duration"])
        if it.duration_ms is None:
            said = resp["duration"]
            said = repr(said) if isinstance(said, str) and len(said) <= 40 else what_is_wrong(said)
            it.issues.append(Issue(BAD_FIELD, f"duration {said} is not a Go duration"))
    return it


def _text(value: Any) -> Any:
    return None if value == "" else value  # go-vcr writes body: "" for no body


_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def go_duration_ms(value: Any) -> float | None:
    """Milliseconds of a Go ``time.Duration`` as yaml writes it (``String()`` text, or nanoseconds)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        ns = finite(value)  # a 400-digit count or .inf is no duration
        return ns / 1e6 if ns is not None and ns >= 0 else None
    text = str(value).strip()
    if text == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(text):
        m = _PART.match(text, pos)
        if m is None:
            return None
        total += float(m.group(1)) * _UNIT_MS[m.group(2)]
        pos = m.end()
    return total if pos else None


_VERSION = re.compile(rb"^version:[ \t]*2[ \t]*\r?$", re.M)
_INTERACTIONS = re.compile(rb"^interactions:", re.M)


def recognize(head: bytes) -> bool:
    """``version: 2`` and ``interactions:`` at the top level (go-vcr writes the version first)."""
    return bool(_VERSION.search(head) and _INTERACTIONS.search(head))
