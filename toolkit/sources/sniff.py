"""What a reader looks at to recognise its format: the first bytes of a file's content."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from toolkit.errors import CaptureError
from toolkit.sources import inflate

__all__ = ["HEAD_BYTES", "ZSTD_MAGIC", "first_line", "first_line_object", "head"]

HEAD_BYTES = 64 * 1024
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def head(path: Path, n: int = HEAD_BYTES) -> bytes:
    """The first ``n`` bytes of the file's content, through zstd/gzip/zlib compression. Each decompressor
    is asked for at most what is still missing, so a bomb costs ``n`` bytes, never its whole output."""
    return _read(path, n, to_newline=False)


def first_line(path: Path) -> bytes:
    """The content up to and including its first newline (at most ``inflate.MAX_LINE_BYTES``, the longest
    line a line reader takes): a head that holds no whole line cannot say whether the file is JSON Lines."""
    return _read(path, inflate.MAX_LINE_BYTES, to_newline=True)


def _read(path: Path, n: int, *, to_newline: bool) -> bytes:
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    kind = _compression(magic)
    try:
        with open(path, "rb") as f:
            read = _reader(f, kind)
            out = bytearray()
            while len(out) < n:
                chunk = read(n - len(out) if not to_newline else min(HEAD_BYTES, n - len(out)))
                if not chunk:
                    break
                out += chunk
                if not to_newline or b"\n" in chunk:
                    break
    except Exception as exc:  # each decompressor raises its own class; all mean the same here
        if kind == "plain":
            raise CaptureError(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
        raise CaptureError(path, f"{kind} data that cannot be decompressed: {exc}", location="byte 0") from None
    if to_newline and b"\n" in out:
        del out[out.index(b"\n") + 1 :]
    return bytes(out)


def _compression(magic: bytes) -> str:
    if magic.startswith(ZSTD_MAGIC):
        return "zstd"
    if magic[:2] == b"\x1f\x8b":
        return "gzip"
    if len(magic) >= 2 and magic[0] == 0x78 and (magic[0] * 256 + magic[1]) % 31 == 0:  # zlib (.zhar)
        return "zlib"
    return "plain"


def _reader(f: BinaryIO, kind: str) -> Callable[[int], bytes]:
    """``read(k)`` over the decompressed content (k bytes or fewer; empty at the end)."""
    if kind == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True).read
    if kind == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=f, mode="rb").read
    if kind == "zlib":
        import zlib

        d = zlib.decompressobj()

        def read(k: int) -> bytes:
            out = d.decompress(d.unconsumed_tail, k) if d.unconsumed_tail else b""
            while not out and not d.eof:
                raw = f.read(HEAD_BYTES)
                if not raw:
                    return d.flush()
                out = d.decompress(raw, k)
            return out

        return read
    return f.read


def first_line_object(text: bytes) -> dict[str, Any] | None:
    """The first line parsed as a JSON object, or None (not JSON, nested past Python's stack, or not an
    object)."""
    first = text.partition(b"\n")[0]
    try:
        obj = json.loads(first)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None
