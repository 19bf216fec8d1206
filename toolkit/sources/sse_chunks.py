"""SDK stream fixtures: one SSE payload (the JSON after ``data:``) per line, no ``event:``/``data:`` prefix.

SDK test suites save streams this way (``*.chunks.txt``): Responses events (``{"type":
"response.created", ...}``) or Chat Completions chunks (``{"object": "chat.completion.chunk", ...}``),
often several responses in one file. A new response starts at each ``response.created`` and, for
Chat Completions, at a chunk whose ``id`` differs from the one before.

Each response is one entry: a response-only ``Decoded`` (no request; exchange id ``"{source}:{k}"``,
location ``"line N (byte B)"`` of its first line, ``stream=True``, ``body_fidelity="json"``: the
payloads are JSON values as the SDK re-serialised them, not the bytes on the wire), decoded by the
same stream machines as an SSE body (``toolkit.wire.responses`` / ``toolkit.wire.chat``). A line that
is not a JSON object is an ``sse-frame`` issue of the response it falls in, with its line and byte
offset; a response without its terminal event is ``cut``. Ends with ``EntryCount(source, "response", k)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from os import PathLike
from typing import Any

from toolkit.errors import CaptureError
from toolkit.sources.sniff import first_line_object
from toolkit.wire import json_text
from toolkit.wire.chat import ChatStream
from toolkit.wire.http import apply_result
from toolkit.wire.json_text import describe_json_error
from toolkit.wire.records import Decoded, EntryCount, Exchange
from toolkit.wire.responses import ResponsesStream

__all__ = ["read", "recognize"]


def recognize(head: bytes) -> bool:
    """The first line is a Responses stream event or a Chat Completions chunk, as a bare JSON object."""
    obj = first_line_object(head)
    if obj is None:  # a first line longer than the head (a large echoed response): look for its kind
        return head[:1] == b"{" and b"\n" not in head and bool(_LONG_FIRST.search(head))
    return _api_of(obj) is not None


_LONG_FIRST = re.compile(rb'"type"\s*:\s*"response\.created"|"object"\s*:\s*"chat\.completion\.chunk"')


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | EntryCount]:
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    k = 0
    current: _Response | None = None
    offset = 0
    with f:
        for number, line in enumerate(f, start=1):
            at, offset = offset, offset + len(line)
            text = line.strip()
            if not text:
                continue
            payload, error = _parse(text, number)
            api = _api_of(payload) if payload is not None else None
            if current is None or (current.starts_new(payload, api)):
                if current is not None:
                    yield current.decoded()
                    k += 1
                current = _Response(f"{source}:{k}", source, f"line {number} (byte {at})")
            current.add(payload, api, error, at, len(line))
    if current is None:
        raise CaptureError(path, "no stream event found (the file is empty or blank)", location="byte 0")
    yield current.decoded()
    yield EntryCount(source, "response", k + 1)


def _parse(text: bytes, number: int) -> tuple[dict[str, Any] | None, str | None]:
    if text == b"[DONE]":
        return None, None
    try:
        obj = json_text.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"line {number}: not JSON: {describe_json_error(exc)}"
    except (ValueError, RecursionError) as exc:
        return None, f"line {number}: not JSON: {exc}"
    if not isinstance(obj, dict):
        return None, f"line {number}: a JSON {type(obj).__name__}, not an event object"
    return obj, None


def _api_of(obj: dict[str, Any]) -> str | None:
    kind = obj.get("type")
    if isinstance(kind, str) and kind.startswith("response."):
        return "responses"
    if obj.get("object") == "chat.completion.chunk":
        return "chat"
    return None


class _Response:
    """One response's lines: held until its API is known, then fed to that API's stream machine."""

    def __init__(self, xid: str, source: str, location: str) -> None:
        self.xid, self.source, self.location = xid, source, location
        self.api: str | None = None
        self.chat_id: Any = None
        self.events = 0  # JSON objects seen
        self.size = 0
        self._machine: Any = None
        self._held: list[tuple[dict[str, Any] | None, str | None, int]] = []

    def starts_new(self, payload: dict[str, Any] | None, api: str | None) -> bool:
        if payload is None or api is None or self.events == 0:
            return False
        if api != self.api:
            return self.api is not None
        if api == "responses":
            return payload.get("type") == "response.created"
        return payload.get("id") is not None and payload.get("id") != self.chat_id

    def add(self, payload: dict[str, Any] | None, api: str | None, error: str | None, at: int, size: int) -> None:
        self.size += size
        if payload is not None:
            self.events += 1
            if api == "chat":
                self.chat_id = payload.get("id", self.chat_id)
        if self._machine is None and api is not None:
            self.api = api
            self._machine = ChatStream() if api == "chat" else ResponsesStream()
            held, self._held = self._held, []
            for item in held:
                self._feed(*item)
        self._feed(payload, error, at)

    def _feed(self, payload: dict[str, Any] | None, error: str | None, at: int) -> None:
        if self._machine is None:
            self._held.append((payload, error, at))
        elif error is not None:
            self._machine.bad_frame(at, error)
        elif payload is None:
            self._machine.done(at)
        else:
            self._machine.feed(payload, at)

    def decoded(self) -> Decoded:
        if self._machine is None:  # never said which API: read as Responses, as an SSE body would be
            self._machine = ResponsesStream()
            held, self._held = self._held, []
            for item in held:
                self._feed(*item)
        ex = Exchange(
            exchange_id=self.xid,
            source=self.source,
            location=self.location,
            api=self.api or "other",
            stream=True,
            response_bytes=self.size,
            body_fidelity="json",
        )
        d = Decoded(ex)
        apply_result(d, self._machine.finish())
        return d
