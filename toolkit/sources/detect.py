"""Which reader a file needs, decided from its first bytes rather than its name."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

from toolkit.errors import CaptureError

__all__ = ["FORMATS", "HEAD_BYTES", "ZSTD_MAGIC", "check_format", "detect", "head", "reader_for"]

#: Format name → module in ``toolkit.sources`` whose ``read(path, source)`` reads it.
FORMATS = {
    "har": "har",
    "jsonl": "jsonl",
    "sse": "sse_file",
    "dsh-session": "dsh_session",
    "mitm": "mitm",
}

HEAD_BYTES = 64 * 1024

_MAGIC = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x7fELF", "an executable"),
    (b"SQLite format 3\x00", "an SQLite database"),
]
_SSE_LINE = re.compile(rb"^(?:event|data|id|retry)?:", re.M)
_TNETSTRING = re.compile(rb"^\d{1,12}:")
_HAR_START = re.compile(rb'^\{\s*"log"\s*:')
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def check_format(name: str) -> str:
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; choose one of {', '.join(FORMATS)}")
    return name


def reader_for(fmt: str) -> Callable[[Path, str], Iterator[Any]]:
    """The ``read(path, source)`` of the reader module for ``fmt``."""
    reader: Callable[[Path, str], Iterator[Any]] = import_module(f"{__package__}.{FORMATS[check_format(fmt)]}").read
    return reader


def head(path: Path, n: int = HEAD_BYTES) -> bytes:
    """The first ``n`` bytes of the file's content, through zstd/gzip/zlib compression."""
    try:
        with open(path, "rb") as f:
            raw = f.read(n)
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    if raw.startswith(ZSTD_MAGIC):
        import zstandard

        try:
            with open(path, "rb") as f:
                return zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True).read(n)
        except zstandard.ZstdError as exc:
            raise CaptureError(path, f"zstd data that cannot be decompressed: {exc}", location="byte 0") from None
    if raw[:2] == b"\x1f\x8b":
        import gzip

        try:
            with gzip.open(path, "rb") as f:
                return f.read(n)
        except (OSError, EOFError) as exc:
            raise CaptureError(path, f"gzip data that cannot be decompressed: {exc}", location="byte 0") from None
    if len(raw) >= 2 and raw[0] == 0x78 and (raw[0] * 256 + raw[1]) % 31 == 0:  # zlib (.zhar)
        import zlib

        d = zlib.decompressobj()
        try:
            return d.decompress(raw, n)
        except zlib.error as exc:
            raise CaptureError(path, f"zlib data that cannot be decompressed: {exc}", location="byte 0") from None
    return raw


def detect(path: Path) -> str:
    """Name the format of ``path`` from its content; raise ``CaptureError`` if it is none of ours."""
    path = Path(path)
    if path.is_dir():
        raise CaptureError(path, "is a directory, not a capture file")
    data = head(path)
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise CaptureError(
                path,
                f"this is {what}, not a capture (HAR, JSONL, SSE, DSH session or mitmproxy flows)",
                location="byte 0",
            )
    text = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise CaptureError(
            path, "the file is empty" if not data else "the file holds only white space", location="byte 0"
        )
    if _TNETSTRING.match(text):
        return "mitm"
    if text[:1] == b"{":
        return _detect_json(path, text)
    if _SSE_LINE.match(text):
        return "sse"
    if text[:1] == b"[":
        raise CaptureError(
            path,
            "a JSON array, not one of the capture formats; for a Helicone export use "
            "`--format jsonl` (one request per line)",
            location="byte 0",
        )
    if b"\x00" in data[:1024]:
        raise CaptureError(path, "binary data that is not a known capture format", location="byte 0")
    snippet = text[:40].decode("utf-8", "replace")
    raise CaptureError(path, f"unknown format: the content starts with {snippet!r}", location="byte 0")


def _detect_json(path: Path, text: bytes) -> str:
    if _HAR_START.match(text):
        return "har"
    first, _, _rest = text.partition(b"\n")
    try:
        obj = json.loads(first)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        if obj.get("type") == "session":
            return "dsh-session"
        if "log" in obj and isinstance(obj["log"], dict):
            return "har"
        from toolkit.sources.jsonl import recognizes

        if not recognizes(obj):
            keys = ", ".join(list(obj)[:8])
            raise CaptureError(
                path,
                "JSON Lines, but not an exchange log: the first line has no request/response "
                f"(keys: {keys}); the accepted shapes are listed in toolkit/sources/jsonl/",
                location="line 1",
            )
        return "jsonl"
    # A pretty-printed document: HAR puts "log" first, but exporters may not.
    if re.search(rb'"log"\s*:\s*\{', text) and b'"entries"' in text:
        return "har"
    try:
        json.loads(text)
    except ValueError as exc:
        if len(text) < HEAD_BYTES:
            pos = getattr(exc, "pos", None)
            where = f"byte {pos}" if pos is not None else None
            raise CaptureError(path, f"not valid JSON: {getattr(exc, 'msg', exc)}", location=where) from None
    raise CaptureError(
        path, 'a JSON document that is neither HAR (no top-level "log") nor JSON Lines', location="byte 0"
    )
