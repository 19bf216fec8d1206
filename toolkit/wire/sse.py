"""Incremental text/event-stream decoder (WHATWG), so a stream reads the same however it was chunked.

Lines are split on the raw bytes (CR, LF, CRLF are ASCII, never inside a UTF-8 sequence) and each
whole line is decoded afterwards, which makes splits inside CRLF or inside a character harmless.
Dispatch follows the OpenAI SDKs: a blank line dispatches a frame that has ``data`` or ``event``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from toolkit.wire.json_text import describe_json_error, loads, utf8
from toolkit.wire.values import TOO_MANY_DIGITS

__all__ = [
    "BAD_TEXT",
    "DONE_PREFIX",
    "Frame",
    "SSEDecoder",
    "SSEEvent",
    "decode_events",
    "parse_json_events",
    "split_frames",
]

_BOM = b"\xef\xbb\xbf"
_EOL = re.compile(rb"[\r\n]")
BAD_TEXT = "bytes that are not UTF-8, read as U+FFFD"  # the message for a frame's bad bytes
DONE_PREFIX = "[DONE]"  # openai-python _streaming.py: `if sse.data.startswith("[DONE]")`


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched frame; ``offset`` is the byte where its first field line starts."""

    event: str | None
    data: str
    id: str | None
    retry: int | None
    offset: int
    complete: bool = True  # False: the stream ended before the frame's blank line (never dispatched)
    bad_byte: int | None = None  # the first byte of the frame's lines that is not UTF-8 (read as U+FFFD)


class SSEDecoder:
    """Bytes in (any chunking), events out. ``close()`` reports an unfinished last frame."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._base = 0  # absolute offset of _buf[0]
        self._scanned = 0  # bytes of _buf already known to hold no line break
        self._bom_checked = False
        self._after_cr = False
        self._reset_frame()
        self._last_id: str | None = None

    def _reset_frame(self) -> None:
        self._start: int | None = None
        self._event: str | None = None
        self._data: list[str] = []
        self._retry: int | None = None
        self._bad: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        self._buf += chunk
        out: list[SSEEvent] = []
        if not self._bom_checked:
            if len(self._buf) < len(_BOM) and _BOM.startswith(bytes(self._buf)):
                return out  # could still be a BOM split across chunks
            self._bom_checked = True
            if self._buf.startswith(_BOM):
                self._consume(len(_BOM))
        if self._after_cr and self._buf:
            self._after_cr = False
            if self._buf[0] == 0x0A:  # the LF of a CRLF split across chunks
                self._consume(1)
        buf, start = self._buf, 0
        while (m := _EOL.search(buf, max(start, self._scanned))) is not None:
            i = m.start()
            end = i + 1
            if buf[i] == 0x0D:
                if i + 1 < len(buf):
                    end += buf[i + 1] == 0x0A
                else:
                    self._after_cr = True
            self._line(bytes(buf[start:i]), self._base + start, out)
            start = end
        self._consume(start)
        self._scanned = len(self._buf)
        return out

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated last line still counts, but an unfinished frame is
        returned with ``complete=False`` because a client would never dispatch it."""
        out: list[SSEEvent] = []
        if self._buf:
            self._bom_checked = True
            self._line(bytes(self._buf), self._base, out)
            self._consume(len(self._buf))
        if self._data or self._event is not None:
            out.append(self._frame(complete=False))
        self._reset_frame()
        return out

    def _consume(self, n: int) -> None:
        del self._buf[:n]
        self._base += n
        self._scanned = 0

    def _frame(self, complete: bool = True) -> SSEEvent:
        return SSEEvent(
            self._event,
            "\n".join(self._data),
            self._last_id,
            self._retry,
            self._start if self._start is not None else self._base,
            complete,
            self._bad,
        )

    def _line(self, raw: bytes, offset: int, out: list[SSEEvent]) -> None:
        if not raw:
            if self._data or self._event is not None:
                out.append(self._frame())
            self._reset_frame()
            return
        try:
            line, bad = raw.decode("utf-8"), None
        except UnicodeDecodeError as e:  # read as a client does (U+FFFD), and remembered for a problem
            line, bad = raw.decode("utf-8", errors="replace"), offset + e.start
        if line.startswith(":"):
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if self._start is None:
            self._start = offset
        if bad is not None and self._bad is None:
            self._bad = bad
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)


def decode_events(chunks: bytes | str | Iterable[bytes]) -> list[SSEEvent]:
    """All events of a whole body or an iterable of chunks, including an unfinished last frame."""
    frames, tail = split_frames(chunks)
    return [
        SSEEvent(None if ev is None else ev.decode("utf-8"), data.decode("utf-8"), id_, retry, offset)
        for ev, data, id_, retry, offset in frames
    ] + tail


#: A dispatched frame of a body that is all UTF-8, as a plain tuple ``(event, data, id, retry, offset)``
#: with ``event`` and ``data`` still UTF-8 bytes (orjson parses bytes; most callers never need the text).
Frame = tuple[bytes | None, bytes, str | None, int | None, int]


def split_frames(chunks: bytes | str | Iterable[bytes]) -> tuple[list[Frame], list[SSEEvent]]:
    """``decode_events`` in two parts, for callers that read thousands of frames: the leading frames
    that were dispatched whole from a body that is all UTF-8 (plain tuples, no object or text per
    frame), then every other event (an unfinished last frame; everything, for a body with CR or with
    bytes that are not UTF-8)."""
    if isinstance(chunks, str):
        chunks = utf8(chunks)  # text is UTF-8 by construction (a lone surrogate raises here)
        if b"\r" not in chunks:
            return _split_lf_body(chunks)
    if isinstance(chunks, (bytes, bytearray)):
        if b"\r" not in chunks:
            data = bytes(chunks)
            if data.isascii():
                return _split_lf_body(data)
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return [], _decode_lf_body(data)
            return _split_lf_body(data)
        chunks = (chunks,)
    dec = SSEDecoder()
    out: list[SSEEvent] = []
    for chunk in chunks:
        out += dec.feed(chunk)
    return [], out + dec.close()


def _split_lf_body(data: bytes) -> tuple[list[Frame], list[SSEEvent]]:
    """A whole LF-only body that is all UTF-8 (nearly every real one): split at blank lines, each
    block of the usual ``event:``/``data:`` shape read in one step and any other block line by line
    with ``SSEDecoder._line``'s rules. Splitting bytes keeps offsets true byte offsets for free. The
    lines after the last blank line and an unfinished frame go through the decoder itself, so the
    events are identical to the incremental path's."""
    offset = len(_BOM) if data.startswith(_BOM) else 0
    cut = max(data.rfind(b"\n") + 1, offset)
    rest = data[cut:]  # after the last LF: an unterminated line, or b""
    blocks = data[offset:cut].split(b"\n\n")  # each but the last ends with its last line's LF and a blank line
    last = blocks.pop()
    out: list[Frame] = []
    append = out.append
    last_id: str | None = None
    for block in blocks:
        if block[:7] == b"event: ":  # "event: X" then "data: Y", the shape of nearly every frame
            nl = block.find(b"\n", 7)
            if nl > 0 and block[nl + 1 : nl + 7] == b"data: " and block.find(b"\n", nl + 7) < 0:
                append((block[7:nl], block[nl + 7 :], last_id, None, offset))
                offset += len(block) + 2
                continue
        elif block[:6] == b"data: " and b"\n" not in block:
            append((None, block[6:], last_id, None, offset))
            offset += len(block) + 2
            continue
        last_id = _block(block, offset, last_id, append)
        offset += len(block) + 2
    dec = SSEDecoder()
    dec._bom_checked = True
    dec._last_id = last_id
    tail: list[SSEEvent] = []
    if last:  # the lines after the last blank line, each ending in LF
        for raw in last[:-1].split(b"\n"):
            dec._line(raw, offset, tail)
            offset += len(raw) + 1
    dec._buf = bytearray(rest)
    dec._base = offset
    return out, tail + dec.close()


def _block(block: bytes, offset: int, last_id: str | None, append: Callable[[Frame], None]) -> str | None:
    """One block of lines and the blank line after it, by ``SSEDecoder._line``'s rules (a frame
    ends with the block, so only the last ``id`` carries over, returned)."""
    start: int | None = None
    event: str | None = None
    frame: list[str] = []
    retry: int | None = None
    for raw in (*block.split(b"\n"), b""):  # b"": the blank line that ends the block
        if not raw:
            if frame or event is not None:
                data = "\n".join(frame).encode("utf-8")
                append(
                    (
                        None if event is None else event.encode("utf-8"),
                        data,
                        last_id,
                        retry,
                        offset if start is None else start,
                    )
                )
            start = event = retry = None
            frame = []
            offset += 1
            continue
        line = raw.decode("utf-8")
        if line[0] != ":":
            name, colon, value = line.partition(":")
            if colon and value[:1] == " ":
                value = value[1:]
            if start is None:
                start = offset
            if name == "data":
                frame.append(value)
            elif name == "event":
                event = value
            elif name == "id":
                if "\0" not in value:
                    last_id = value
            elif name == "retry" and value.isascii() and value.isdigit():
                retry = int(value)
        offset += len(raw) + 1
    return last_id


def _decode_lf_body(data: bytes) -> list[SSEEvent]:
    """A whole LF-only body with bytes that are not UTF-8: line by line through ``SSEDecoder._line``,
    which places each bad byte; the last, unterminated line and any unfinished frame through ``close``."""
    dec = SSEDecoder()
    dec._bom_checked = True
    offset = len(_BOM) if data.startswith(_BOM) else 0
    lines = data[offset:].split(b"\n")
    rest = lines.pop()  # after the last LF: an unterminated line, or b""
    out: list[SSEEvent] = []
    for raw in lines:  # every line through _line, which places the bad bytes
        dec._line(raw, offset, out)
        offset += len(raw) + 1
    dec._buf = bytearray(rest)
    dec._base = offset
    return out + dec.close()


def parse_json_events(
    events: Iterable[SSEEvent], *, on_bad_text: Callable[[int, str], None] | None = None
) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """Yield ``(offset, payload, error)`` per frame. ``(offset, None, None)`` is the ``[DONE]``
    marker; a frame that is not a JSON object (strict JSON), or never finished, yields an error string.
    A frame with bytes that are not UTF-8 is still parsed (as U+FFFD) and ``on_bad_text(byte, message)``
    is told, so that the change is reported, not silent."""
    for ev in events:
        if ev.bad_byte is not None and on_bad_text is not None:
            on_bad_text(ev.bad_byte, BAD_TEXT)
        if not ev.complete:
            yield ev.offset, None, "stream ended inside this frame (no blank line), so it was never dispatched"
        elif ev.data.startswith(DONE_PREFIX):
            yield ev.offset, None, None
        else:
            try:
                payload = loads(ev.data)
            except json.JSONDecodeError as e:
                yield ev.offset, None, describe_json_error(e)
                continue
            except ValueError:  # an integer past Python's digit limit (sys.get_int_max_str_digits)
                yield ev.offset, None, TOO_MANY_DIGITS
                continue
            if isinstance(payload, dict):
                yield ev.offset, payload, None
            else:
                yield ev.offset, None, f"frame is JSON {type(payload).__name__}, not an object"
