"""What a reader looks at to recognise its format: the first bytes of a file's content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkit.errors import CaptureError

__all__ = ["HEAD_BYTES", "ZSTD_MAGIC", "first_line_object", "head"]

HEAD_BYTES = 64 * 1024
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


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


def first_line_object(text: bytes) -> dict[str, Any] | None:
    """The first line parsed as a JSON object, or None (not JSON, or not an object)."""
    first = text.partition(b"\n")[0]
    try:
        obj = json.loads(first)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None
