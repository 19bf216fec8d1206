"""Which reader a file needs, decided from its content rather than its name (see ``registry``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from toolkit.errors import CaptureError
from toolkit.sources import registry
from toolkit.sources.sniff import HEAD_BYTES, first_line, first_line_object, head
from toolkit.wire import json_text

__all__ = ["FORMATS", "check_format", "detect", "reader_for", "recognize_file"]

#: The format names, in detection order (``registry.FORMATS`` says what each is).
FORMATS = registry.NAMES

_MAGIC = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x7fELF", "an executable"),
    (b"SQLite format 3\x00", "an SQLite database"),
]
_KNOWN = "one of the formats `agent-contract formats` lists"


def check_format(name: str) -> str:
    return registry.get(name).name


def reader_for(fmt: str) -> Callable[[Path, str], Iterator[Any]]:
    """The ``read(path, source)`` of the reader for ``fmt``."""
    return registry.get(fmt).reader()


def detect(path: Path) -> str:
    """Name the format of ``path`` from its content; raise ``CaptureError`` if it is none of ours."""
    path = Path(path)
    if path.is_dir():
        raise CaptureError(path, "is a directory, not a capture file")
    data = head(path)
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise CaptureError(path, f"this is {what}, not a capture ({_KNOWN})", location="byte 0")
    text = _content(data)
    if not text:
        raise CaptureError(
            path, "the file is empty" if not data else "the file holds only white space", location="byte 0"
        )
    found, data, text = recognize_file(path, data)
    if found is not None:
        return found
    _refuse(path, data, text)
    raise AssertionError("unreachable")  # _refuse always raises


def _content(data: bytes) -> bytes:
    """What the recognisers look at: the content without a BOM and leading white space."""
    return data.lstrip(b"\xef\xbb\xbf").lstrip()


def recognize_file(path: Path, data: bytes | None = None) -> tuple[str | None, bytes, bytes]:
    """``(format or None, the bytes judged, their content)`` for ``path`` (``data``: its head, if read)."""
    data = head(path) if data is None else data
    text = _content(data)
    found = registry.recognize(text)
    if found is None and len(data) == HEAD_BYTES and b"\n" not in text:
        # a first line longer than the head (a JSONL record with a large body): judge the whole line
        data = first_line(path)
        text = _content(data)
        found = registry.recognize(text)
    return found, data, text


def _refuse(path: Path, data: bytes, text: bytes) -> None:
    """Say as precisely as the content allows why no reader takes it."""
    obj = first_line_object(text)
    if obj is not None:
        keys = ", ".join(list(obj)[:8])
        raise CaptureError(
            path,
            "JSON Lines, but not an exchange log: the first line has no request/response "
            f"(keys: {keys}); the accepted shapes are listed in toolkit/sources/jsonl/",
            location="line 1",
        )
    if text[:1] == b"[":
        raise CaptureError(
            path,
            "a JSON array, not one of the capture formats; for a Helicone export use "
            "`--format jsonl` (one request per line)",
            location="byte 0",
        )
    if text[:1] == b"{":
        try:
            try:
                json.loads(text)
            except RecursionError:  # Python's parser recurses: say where, as a JSON error
                raise json_text.depth_error(text.decode("utf-8", "replace")) from None
        except ValueError as exc:
            if len(text) < HEAD_BYTES:
                pos = getattr(exc, "pos", None)
                where = f"byte {pos}" if pos is not None else None
                raise CaptureError(path, f"not valid JSON: {getattr(exc, 'msg', exc)}", location=where) from None
        raise CaptureError(
            path, 'a JSON document that is neither HAR (no top-level "log") nor JSON Lines', location="byte 0"
        )
    if b"\x00" in data[:1024]:
        raise CaptureError(path, "binary data that is not a known capture format", location="byte 0")
    snippet = text[:40].decode("utf-8", "replace")
    raise CaptureError(path, f"unknown format: the content starts with {snippet!r}", location="byte 0")
