"""Bounded decompression for every reader: the caps, and the one decompressor that keeps to them.

A capture comes from a system the reader does not trust, and a compressed file is a promise about its
size that the file cannot keep: 1.3 MB of gzip can inflate to 1.25 GiB. So no reader inflates a whole
file or a whole line in one call; each goes through this module, which streams the decompression and
stops with a ``CaptureError`` that names the cap as soon as the output passes it. Bodies inside a
capture have their own cap (``toolkit.wire.encodings.MAX_BODY_BYTES``, 64 MiB), which is the model here.

The caps:

* ``MAX_INFLATED_BYTES`` (256 MiB): the most a file read whole into memory (HAR, httprr, a cassette)
  may inflate to.
* ``MAX_INFLATE_RATIO`` (100): a file read whole may not inflate to more than 100 times its size on
  disk once its output passes ``RATIO_FREE_BYTES`` (16 MiB). Streaming readers (JSON Lines, DSH
  session logs) hold one line at a time, so memory does not grow with the output; for them the ratio
  applies only past ``MAX_INFLATED_BYTES``, so that a large log that compresses well (a request's
  tool list repeated on every line) is read, and a bomb still ends after bounded work. The project's own HARs, JSON Lines, cassettes and DSH
  session logs compress 2 to 24 times (gzip and zstd -19); a bomb of one repeated byte, 1,000 times
  (gzip) or far more (zstd). The ratio stops a bomb after a bounded amount of work
  in streaming readers too, which the size cap alone would not.
* ``MAX_LINE_BYTES`` (64 MiB): the longest line a line reader takes (and the furthest
  ``sniff.first_line`` looks); a line without an end within it is refused, not buffered.

The caps are module attributes read at each call, so a test can lower them.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from os import PathLike
from typing import BinaryIO

from toolkit.errors import CaptureError

__all__ = [
    "CHUNK_BYTES",
    "MAX_INFLATED_BYTES",
    "MAX_INFLATE_RATIO",
    "MAX_LINE_BYTES",
    "RATIO_FREE_BYTES",
    "BoundedStream",
    "Budget",
    "inflate_file",
    "line_too_long",
    "open_stream",
]

MAX_INFLATED_BYTES = 256 * 1024 * 1024
MAX_INFLATE_RATIO = 100
RATIO_FREE_BYTES = 16 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024 * 1024

#: Decompressed bytes asked for per step: the most one step adds above a cap.
CHUNK_BYTES = 1024 * 1024

_MiB = 1024 * 1024


def _mib(n: int) -> str:
    return f"{n // _MiB} MiB" if n % _MiB == 0 else f"{n / _MiB:.1f} MiB"


class Budget:
    """How much one file may inflate to (see the module's caps; ``whole`` for a file held in memory).
    ``spend`` counts output and raises the ``CaptureError`` naming the cap it passes."""

    def __init__(self, path: str | PathLike[str] | None, kind: str, compressed_bytes: int, *, whole: bool):
        self.path = path
        self.kind = kind
        self.compressed_bytes = compressed_bytes
        self.whole = whole
        self.used = 0

    def spend(self, n: int) -> None:
        self.used += n
        by_ratio = MAX_INFLATE_RATIO * self.compressed_bytes
        if self.whole:
            if self.used > MAX_INFLATED_BYTES:
                self._refuse(f"MAX_INFLATED_BYTES ({_mib(MAX_INFLATED_BYTES)})")
            if self.used > max(RATIO_FREE_BYTES, by_ratio):
                self._ratio(max(RATIO_FREE_BYTES, by_ratio))
        elif self.used > max(MAX_INFLATED_BYTES, by_ratio):
            if by_ratio > MAX_INFLATED_BYTES:
                self._ratio(by_ratio)
            self._refuse(
                f"MAX_INFLATED_BYTES ({_mib(MAX_INFLATED_BYTES)}) at more than MAX_INFLATE_RATIO "
                f"({MAX_INFLATE_RATIO}) times the file's {self.compressed_bytes} bytes"
            )

    def _ratio(self, limit: int) -> None:
        self._refuse(
            f"MAX_INFLATE_RATIO ({MAX_INFLATE_RATIO} times the file's {self.compressed_bytes} bytes, {_mib(limit)})"
        )

    def _refuse(self, cap: str) -> None:
        raise CaptureError(
            self.path,
            f"{self.kind} data inflates past {cap}; refused as a possible decompression bomb",
            location=f"decompressed byte {self.used}",
        )


def inflate_file(data: bytes, kind: str, path: str | PathLike[str] | None) -> bytes:
    """A whole compressed file (``kind`` "gzip" or "zlib") inflated within ``MAX_INFLATED_BYTES`` and the
    ratio cap. The decompressors' own exceptions (``OSError``/``EOFError`` for gzip, ``zlib.error``) pass
    through unchanged, with the texts ``gzip.decompress`` and ``zlib.decompress`` give, so each reader
    words a corrupt file as before."""
    budget = Budget(path, kind, len(data), whole=True)
    out = bytearray()
    for chunk in _chunks(data, kind):
        budget.spend(len(chunk))
        out += chunk
    return bytes(out)


def _chunks(data: bytes, kind: str) -> Iterator[bytes]:
    if kind == "gzip":  # GzipFile reads concatenated members and checks each CRC, as gzip.decompress does
        f = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
        while chunk := f.read(CHUNK_BYTES):
            yield chunk
        return
    if kind != "zlib":
        raise ValueError(f"no whole-file decompressor for {kind!r}")
    d = zlib.decompressobj()
    pending = data
    while True:
        chunk = d.decompress(pending, CHUNK_BYTES)
        pending = d.unconsumed_tail
        if chunk:
            yield chunk
        if d.eof:
            return
        if not chunk and not pending:
            # zlib.decompress's own words for a cut stream; decompressobj says nothing
            raise zlib.error("Error -5 while decompressing data: incomplete or truncated stream")


class BoundedStream(io.RawIOBase):
    """A decompressed stream (``read(k)`` returns at most ``k`` bytes) that counts what it hands out
    against ``budget``; wrap it in ``io.BufferedReader`` for ``readline``."""

    def __init__(self, read: Callable[[int], bytes], budget: Budget, close: Callable[[], None]):
        self._read = read
        self._budget = budget
        self._close = close

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        chunk = self._read(min(len(buffer), CHUNK_BYTES))
        self._budget.spend(len(chunk))
        buffer[: len(chunk)] = chunk
        return len(chunk)

    def close(self) -> None:
        if not self.closed:
            self._close()
        super().close()


def open_stream(f: BinaryIO, kind: str, path: str | PathLike[str], compressed_bytes: int) -> io.BufferedReader:
    """``f`` (opened at byte 0) read through gzip or zstd, within the ratio cap; closing it closes ``f``."""
    read: Callable[[int], bytes]
    if kind == "gzip":
        read = gzip.GzipFile(fileobj=f, mode="rb").read
    elif kind == "zstd":
        import zstandard

        read = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True, closefd=False).read
    else:
        raise ValueError(f"no stream decompressor for {kind!r}")
    return io.BufferedReader(BoundedStream(read, Budget(path, kind, compressed_bytes, whole=False), f.close))


def line_too_long(path: str | PathLike[str], line_no: int) -> CaptureError:
    """The error for a line with no end within ``MAX_LINE_BYTES``: reading it would buffer without bound."""
    return CaptureError(
        path,
        f"line {line_no} runs past MAX_LINE_BYTES ({_mib(MAX_LINE_BYTES)}) without ending; refused",
        location=f"line {line_no}",
    )
