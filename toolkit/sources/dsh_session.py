"""DSH session logs (``session*.jsonl`` or ``session*.jsonl.zstd``): find the lines, hand them over.

Decoding is ``toolkit.wire.dsh_records.SessionDecoder``'s; this module only opens the file, undoes
zstd (detected by its magic bytes, never by the name), splits lines and counts them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from os import PathLike
from pathlib import Path
from typing import BinaryIO

from toolkit.errors import CaptureError
from toolkit.sources import inflate
from toolkit.sources.sniff import ZSTD_MAGIC, first_line_object
from toolkit.wire.dsh_records import Record, SessionDecoder, SessionHeaderError
from toolkit.wire.records import BAD_COMPRESSION, EntryCount, Problem

__all__ = ["READ_SIZE", "ZSTD_FEED", "read", "recognize"]

#: Bytes read from the file per step.
READ_SIZE = 64 * 1024
#: Compressed bytes given to zstd per call: a zstd block of 3 or 4 bytes may inflate to 128 KiB, so one
#: call's output is at most about 11 MiB, and the ratio cap is checked after each.
ZSTD_FEED = 256


def read(path: str | PathLike[str], source: str) -> Iterator[Record | EntryCount]:
    """Yield ``Event``/``ToolResult``/``Decoded``/``Problem`` records, then one ``EntryCount``.

    Every non-blank line is counted and becomes at least one ``Event`` or exactly one ``Problem``.
    An empty file, or one whose first line is not a session header, raises ``CaptureError``.
    """
    path = Path(path)
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    with f:
        chunks = _ZstdChunks(f, path) if f.read(4) == ZSTD_MAGIC else _PlainChunks(f)
        f.seek(0)
        decoder = SessionDecoder(source)
        n_lines = 0
        header_line = None
        for lineno, raw in _lines(chunks, path):
            if lineno == 1:  # a BOM belongs to the file, not to its first line, which may be blank
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            if header_line is None:
                try:
                    records = decoder.read_header(raw, lineno)
                except SessionHeaderError as exc:
                    if chunks.error is not None:
                        raise CaptureError(path, chunks.error, location=f"byte {chunks.offset}") from None
                    raise CaptureError(path, str(exc), location=f"line {lineno}") from None
                header_line = lineno
            else:
                records = decoder.feed_line(raw, lineno)
            n_lines += 1
            yield from records
        if header_line is None:
            if chunks.error is not None:
                raise CaptureError(path, chunks.error, location=f"byte {chunks.offset}")
            raise CaptureError(path, "empty file: no session header", location="line 1")
        if chunks.error is not None:
            yield Problem(source, f"byte {chunks.offset}", BAD_COMPRESSION, chunks.error)
        yield from decoder.close()
        yield EntryCount(source, "line", n_lines)


class _PlainChunks:
    """The file's bytes as they are."""

    error: str | None = None
    offset = 0

    def __init__(self, f: BinaryIO) -> None:
        self._f = f

    def __iter__(self) -> Iterator[bytes]:
        while chunk := self._f.read(READ_SIZE):
            self.offset += len(chunk)
            yield chunk


class _ZstdChunks:
    """Every concatenated zstd frame decoded in turn, streamed; a broken stream stops with ``error``.

    One decompression object per frame, so that a last frame cut short is noticed: zstandard's
    ``stream_reader(read_across_frames=True)`` (0.25) returns a silent short read in that case. Its
    ``decompress`` takes no output limit, so input goes in ``ZSTD_FEED`` bytes at a time and the output
    is counted against ``inflate``'s ratio cap: a bomb stops with a ``CaptureError`` naming the cap.
    """

    def __init__(self, f: BinaryIO, path: Path) -> None:
        self._f = f
        self._budget = inflate.Budget(path, "zstd", os.fstat(f.fileno()).st_size, whole=False)
        self.error: str | None = None
        self.offset = 0  # decompressed bytes handed out so far
        self.frames = 0  # frames decoded completely

    def __iter__(self) -> Iterator[bytes]:
        import zstandard

        dctx = zstandard.ZstdDecompressor()
        obj = None
        consumed = 0  # compressed bytes fed in
        frame_at = 0  # compressed offset where the current frame starts
        while block := self._f.read(READ_SIZE):
            for at in range(0, len(block), ZSTD_FEED):
                comp = block[at : at + ZSTD_FEED]
                consumed += len(comp)
                while comp:
                    if obj is None:
                        obj = dctx.decompressobj()
                        frame_at = consumed - len(comp)
                    try:
                        out = obj.decompress(comp)
                    except zstandard.ZstdError as exc:
                        self.error = (
                            f"corrupt zstd data in frame {self.frames + 1} (at compressed byte {frame_at}): "
                            f"{exc}; decoding stopped after {self.offset} decompressed bytes"
                        )
                        return
                    if out:
                        self._budget.spend(len(out))
                        self.offset += len(out)
                        yield out
                    if obj.eof:
                        self.frames += 1
                        comp = obj.unused_data
                        obj = None
                    else:
                        comp = b""
        if obj is not None:
            self.error = (
                f"zstd stream truncated: frame {self.frames + 1} (at compressed byte {frame_at}) ends early "
                f"after {self.offset} decompressed bytes ({self.frames} complete frames)"
            )


def _lines(chunks: Iterable[bytes], path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` for each ``\\n``-separated line; an unterminated tail is a line too. A line
    longer than ``inflate.MAX_LINE_BYTES`` is refused rather than buffered."""
    pending: list[bytes] = []
    held = 0  # bytes in pending
    n = 0
    for chunk in chunks:
        start = 0
        while (nl := chunk.find(b"\n", start)) >= 0:
            pending.append(chunk[start:nl])
            n += 1
            if held + nl - start > inflate.MAX_LINE_BYTES:
                raise inflate.line_too_long(path, n)
            yield n, b"".join(pending)
            pending, held = [], 0
            start = nl + 1
        if start < len(chunk):
            pending.append(chunk[start:])
            held += len(chunk) - start
            if held > inflate.MAX_LINE_BYTES:
                raise inflate.line_too_long(path, n + 1)
    if pending:
        yield n + 1, b"".join(pending)


def recognize(head: bytes) -> bool:
    """The first line is DSH's session header (``"type": "session"``)."""
    obj = first_line_object(head)
    return obj is not None and obj.get("type") == "session"
