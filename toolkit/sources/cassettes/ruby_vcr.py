"""Ruby VCR cassettes (the ``vcr`` gem's YAML serializer, also its JSON one; ``lib/vcr/structs.rb``).

Layout::

    ---
    http_interactions:
    - request:
        method: post
        uri: https://...
        body: {encoding: UTF-8, string: "..."}          # or {encoding: ASCII-8BIT, base64_string: "..."}
        headers: {Name: [value]}
      response:
        status: {code: 200, message: OK}
        headers: {Name: [value]}
        body: {encoding: UTF-8, string: "..."}
        http_version: null                              # optional, as is adapter_metadata
      recorded_at: Mon, 30 Nov 2026 09:00:00 GMT
    recorded_with: VCR 6.3.1

``base64_string`` is what ``preserve_exact_body_bytes`` stores: the exact bytes, undone here through
their ``Content-Encoding``; a ``string`` tagged ``!binary`` (Psych's form for bytes that are not UTF-8)
is bytes as well. ``recorded_at`` (RFC 2822, UTC) is the exchange's ``started_at``; there is no duration.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from os import PathLike
from typing import Any

from toolkit.sources.cassettes.interaction import (
    BadBinary,
    Interaction,
    bodies_present,
    body_bytes,
    headers,
    read_cassette,
    request_response,
)
from toolkit.wire.encodings import BodyDecodeError, decode_base64
from toolkit.wire.records import BAD_FIELD, Decoded, EntryCount, Issue, Problem

__all__ = ["read", "recognize"]


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    return read_cassette(path, source, "http_interactions", _interaction)


def _interaction(item: dict[str, Any]) -> Interaction:
    req, resp = request_response(item)
    method = req.get("method")
    it = Interaction(
        method=method.upper() if isinstance(method, str) else None,
        url=req.get("uri") if isinstance(req.get("uri"), str) else None,
        request_headers=headers(req.get("headers")),
        response_headers=headers(resp.get("headers")),
        fidelity="wire",
    )
    bodies_present(it, req, resp)
    it.request_body, it.request_bytes = body_bytes(_stored(req.get("body")), it, "request")
    it.response_body, it.response_bytes = body_bytes(_stored(resp.get("body")), it, "response")
    status = resp.get("status")
    code = status.get("code") if isinstance(status, dict) else status
    if isinstance(code, int) and not isinstance(code, bool):
        it.status = code
    else:
        it.issues.append(Issue(BAD_FIELD, f"response status {status!r} has no integer code"))
    when = item.get("recorded_at")
    if when is not None:
        try:
            it.started_at = parsedate_to_datetime(str(when)).timestamp()
        except (TypeError, ValueError):
            it.issues.append(Issue(BAD_FIELD, f"recorded_at {when!r} is not an RFC 2822 date"))
    return it


def _stored(body: Any) -> Any:
    """The body's text or bytes: ``base64_string`` decoded, ``string`` as it is (None when absent or empty)."""
    if not isinstance(body, dict):  # a value of another type goes on, for body_bytes to report as no body
        return (body or None) if isinstance(body, (str, bytes)) else body
    if isinstance(body.get("base64_string"), str):
        try:
            return decode_base64(body["base64_string"]) or None
        except BodyDecodeError as exc:
            return BadBinary(str(exc))
    value = body.get("string")
    return value if value not in ("", None) else None


_YAML = re.compile(rb"^http_interactions:", re.M)
_JSON = re.compile(rb'^\{\s*"http_interactions"\s*:')


def recognize(head: bytes) -> bool:
    return bool(_YAML.search(head) or _JSON.match(head))
