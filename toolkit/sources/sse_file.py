"""A saved ``text/event-stream`` body (one response stream, no request, no headers).

The file is fed in 64 KiB chunks through ``toolkit.wire.sse.SSEDecoder`` and the stream state
machine of its API, so memory holds one frame at a time, never the file. The API is told by the
first frame that says: an ``event: response.*`` line or a payload whose ``type`` is ``response.*``
means Responses; a ``chat.completion.chunk`` payload (or one with ``choices``) means Chat
Completions. A stream that never says is decoded as Responses would be (as
``toolkit.wire.http.decode_exchange`` does) and keeps ``api = "other"``.

Yields one ``Decoded`` (exchange id ``"{source}:0"``, location ``"byte 0"``, ``stream=True``,
``response_bytes`` = file size) whose Issues carry the byte offsets of malformed frames and say
whether the stream was cut, then ``EntryCount(source, "stream", 1)``. A file with no SSE frame at all
raises ``CaptureError``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from os import PathLike
from typing import Any

from toolkit.errors import CaptureError
from toolkit.wire.chat import ChatStream
from toolkit.wire.http import apply_result
from toolkit.wire.json_text import loads
from toolkit.wire.messages import MessagesStream
from toolkit.wire.records import Decoded, EntryCount, Exchange
from toolkit.wire.responses import ResponsesStream
from toolkit.wire.sse import SSEDecoder, SSEEvent, parse_json_events

__all__ = ["CHUNK_SIZE", "read", "recognize"]

CHUNK_SIZE = 64 * 1024
_MAX_UNDECIDED = 256  # frames held while the API is unknown; after that, read as Responses


def read(path: str | PathLike[str], source: str, *, chunk_size: int = CHUNK_SIZE) -> Iterator[Any]:
    """Yield the one ``Decoded`` the stream makes, then ``EntryCount``."""
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    with f:
        decoder = SSEDecoder()
        stream = _Stream()
        size = 0
        while chunk := f.read(chunk_size):
            size += len(chunk)
            stream.add(decoder.feed(chunk))
        stream.add(decoder.close())
    if stream.frames == 0:
        what = "the file is empty" if size == 0 else "no text/event-stream frame (event:/data: lines) found"
        raise CaptureError(path, f"not an SSE stream: {what}", location="byte 0")
    info = stream.finish()
    exchange = Exchange(
        exchange_id=f"{source}:0",
        source=source,
        location="byte 0",
        api=stream.api,
        stream=True,
        response_bytes=size,
        body_fidelity="wire",
    )
    decoded = Decoded(exchange)
    apply_result(decoded, info)
    yield decoded
    yield EntryCount(source, "stream", 1)


class _Stream:
    """Routes decoded frames to the right state machine once the stream says which API it speaks."""

    def __init__(self) -> None:
        self.api = "other"
        self.frames = 0
        self._machine: Any = None
        self._held: list[SSEEvent] = []

    def add(self, events: list[SSEEvent]) -> None:
        self.frames += len(events)
        if self._machine is None:
            for ev in events:
                api = _api_of(ev)
                if api is not None:
                    self._start(api)
                    break
            else:
                self._held += events
                if len(self._held) > _MAX_UNDECIDED:
                    self._start(None)
                return
        self._run(events)

    def _start(self, api: str | None) -> None:
        self.api = api or "other"
        machines = {"chat": ChatStream, "messages": MessagesStream}
        self._machine = machines.get(api or "", ResponsesStream)()
        held, self._held = self._held, []
        self._run(held)

    def _run(self, events: list[SSEEvent]) -> None:
        if self._machine is None:
            self._held += events
            return
        for offset, payload, error in parse_json_events(events, on_bad_text=self._machine.bad_text):
            if error is not None:
                self._machine.bad_frame(offset, error)
            elif payload is None:
                self._machine.done(offset)
            else:
                self._machine.feed(payload, offset)

    def finish(self) -> Any:
        if self._machine is None:
            self._start(None)
        return self._machine.finish()


def _api_of(ev: SSEEvent) -> str | None:
    """The API a frame reveals, or None when it does not say (comments, [DONE], bare errors)."""
    if ev.event and ev.event.startswith("response."):
        return "responses"
    if ev.event in _MESSAGES_EVENTS:
        return "messages"
    try:
        payload = loads(ev.data)
    except (ValueError, RecursionError):  # ValueError: not JSON, or an integer past Python's digit limit
        return None
    if not isinstance(payload, dict):
        return None
    kind = payload.get("type")
    if not isinstance(kind, str):  # an object is no event name (and no key of a set)
        kind = None
    if isinstance(kind, str) and kind.startswith("response."):
        return "responses"
    if kind in _MESSAGES_EVENTS:
        return "messages"
    if payload.get("object") == "chat.completion.chunk" or isinstance(payload.get("choices"), list):
        return "chat"
    return None


# the Messages stream events that name their API (``ping`` and ``error`` do not)
_MESSAGES_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "message_delta"})

_SSE_LINE = re.compile(rb"^(?:event|data|id|retry)?:", re.M)


def recognize(head: bytes) -> bool:
    """The first line is an SSE field (``event:``, ``data:``, ``id:``, ``retry:``) or a comment."""
    return bool(_SSE_LINE.match(head))
