"""A bare response body in a file: a Responses object (``"object": "response"``) or a Chat Completions
one (``"object": "chat.completion"``), pretty-printed or not, as SDK test suites and ``curl -o`` save them.

The file is one entry: a response-only ``Decoded`` (no request; exchange id ``"{source}:0"``, location
``"byte 0"``, ``stream=False``, ``body_fidelity="json"``: the saved value need not be the wire bytes),
decoded by ``toolkit.wire.http.decode_exchange`` as a response body. A file that is not JSON (cut
short, say) is a ``bad-entry`` Problem with the byte offset of the error and loses its one entry.
Ends with ``EntryCount(source, "body", 1)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from os import PathLike
from pathlib import Path

from toolkit.errors import CaptureError
from toolkit.wire import json_text
from toolkit.wire.encodings import MAX_BODY_BYTES
from toolkit.wire.http import decode_exchange
from toolkit.wire.json_text import describe_json_error
from toolkit.wire.records import BAD_ENTRY, Decoded, EntryCount, Exchange, Problem

__all__ = ["read", "recognize"]

_OBJECT = re.compile(rb'"object"\s*:\s*"(?:response|chat\.completion)"')
_DECODER = json.JSONDecoder()


def recognize(head: bytes) -> bool:
    """One JSON object (not one per line) whose own ``object`` is ``response`` or ``chat.completion``."""
    if head[:1] != b"{":
        return False
    text = head.decode("utf-8", errors="replace")
    try:
        obj, end = _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        # cut short (a body longer than the head, or broken): the key must show near the top
        return _OBJECT.search(head[:4096]) is not None
    if text[end:].strip():
        return False  # more JSON after the first value: a log or a stream fixture, not a body
    return isinstance(obj, dict) and obj.get("object") in ("response", "chat.completion")


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BODY_BYTES:
            raise CaptureError(path, f"a response body of {size} bytes is over the {MAX_BODY_BYTES}-byte cap")
        raw = path.read_bytes()
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    text = raw[bom:].decode("utf-8", errors="replace")
    try:
        doc = json_text.loads(text)
    except json.JSONDecodeError as exc:
        where = f"byte {bom + len(text[: exc.pos].encode('utf-8'))}"
        yield Problem(source, where, BAD_ENTRY, f"{where}: the response body is not JSON: {describe_json_error(exc)}")
    else:
        ex = Exchange(
            exchange_id=f"{source}:0",
            source=source,
            location="byte 0",
            response_bytes=len(raw),
            body_fidelity="json",
        )
        told = doc.get("object") if isinstance(doc, dict) else None
        api = {"response": "responses", "chat.completion": "chat"}.get(told) if isinstance(told, str) else None
        yield decode_exchange(ex, None, raw[bom:], response_content_type="application/json", api=api)
    yield EntryCount(source, "body", 1)
